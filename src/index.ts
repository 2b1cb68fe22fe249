export { abortReason, type LinkedSignal, linkSignals } from './engine/abort';
export { type CancelTimer, type Clock, createRealClock } from './engine/clock';
