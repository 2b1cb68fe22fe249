export { createManualClock, type ManualClock } from './manualClock';
