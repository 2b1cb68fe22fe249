export { createManualClock, type ManualClock } from '../../src/testing/index';
