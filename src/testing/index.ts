/**
 * Test helpers: a manual clock, so a test steps time instead of waiting for it.
 * @module stitch-fetch/testing
 */
export { createManualClock, type ManualClock } from './manualClock';
