/**
 * `stitch()` with policies as values: here it takes `retry: retry(…)`, `circuit: circuit(…)` and
 * `throttle: throttle(…)` only, so an app bundles just the policies it imports. No breaker unless
 * a stitch names one, one attempt unless it retries. Everything else (`createEngine`, errors,
 * types) comes from `stitch-fetch`, and the two entries' stitches run on the same engines.
 * @module stitch-fetch/lite
 */
export { circuit } from '../engine/circuit';
export type { CircuitValue, PolicyValue, RetryValue, ThrottleValue } from '../engine/definition';
export { type LiteStitchConfig, stitch } from '../engine/liteStitch';
export { retry } from '../engine/retry';
export { throttle } from '../engine/throttle';
