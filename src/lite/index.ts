/**
 * `stitch()` with policies as values: here it takes `retry: retry(…)`, `circuit: circuit(…)`,
 * `throttle: throttle(…)` and `idempotency: idempotency(…)` only, so an app bundles just the
 * policies it imports. No breaker unless a stitch names one, one attempt unless it retries, no
 * idempotency key or record unless it asks. Everything else (`createEngine`, errors, types) comes
 * from `stitch-fetch`, and the two entries' stitches run on the same engines.
 * @module stitch-fetch/lite
 */
export { circuit } from '../engine/circuit';
export type {
  CircuitValue,
  IdempotencyValue,
  PolicyValue,
  RetryValue,
  ThrottleValue,
} from '../engine/definition';
export { idempotency } from '../engine/idempotent';
export { type LiteStitchConfig, stitch } from '../engine/liteStitch';
export { retry } from '../engine/retry';
export { throttle } from '../engine/throttle';
