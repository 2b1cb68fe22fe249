/**
 * The engine: `stitch(config)` turns an endpoint into a typed, resilient, cancellable call;
 * `createEngine` holds the cache, coalescer, breakers and throttles the calls share.
 * @module stitch-fetch
 */
export type { CacheOptions, CacheSnapshot, DehydratedState } from './engine/cache';
export {
  type CircuitOptions,
  type CircuitOutcome,
  type CircuitState,
  type CircuitWindow,
  circuit,
} from './engine/circuit';
export { type CancelTimer, type Clock, createRealClock } from './engine/clock';
export type {
  CallArgs,
  CallOptions,
  CircuitValue,
  HttpMethod,
  IdempotencyValue,
  InputFor,
  PathParamNames,
  PolicyValue,
  ResolvedInput,
  RetryValue,
  Stitch,
  StitchConfig,
  StitchDefinition,
  StitchHooks,
  ThrottleValue,
} from './engine/definition';
export {
  createEngine,
  defaultEngine,
  type Engine,
  type StitchLike,
} from './engine/engine';
export type { EngineOptions, FetchLike } from './engine/engineOptions';
export {
  type AbortErrorLike,
  isAbortError,
  isStitchError,
  MAX_ERROR_BODY,
  StitchError,
  StitchErrorBase,
  type StitchErrorByKind,
  type StitchErrorConstructor,
  type StitchErrorDetails,
  type StitchErrorInit,
  type StitchErrorKind,
  type TimeoutPhase,
} from './engine/errors';
export {
  type CancelPhase,
  type ErrorSummary,
  type EventBase,
  type RunOutcome,
  SECRET_HEADERS,
  SECRET_QUERY,
  type StitchEvent,
  type StitchEventType,
  type StoreOperation,
  type TraceSink,
} from './engine/events';
export { IDEMPOTENCY_HEADER, type IdempotencyOptions, mintKey } from './engine/idempotency';
export { idempotency } from './engine/idempotent';
export type { InspectEvent, InspectListener } from './engine/inspect';
export type { InputArg } from './engine/invoke';
export {
  type AnyStitch,
  checkMutationOptions,
  type Invalidation,
  type MutateOptions,
  type MutationLifecycle,
  mutate,
} from './engine/mutate';
export type { HeadersHook, OutgoingRequest } from './engine/outgoing';
export { type PrefetchOptions, prefetch } from './engine/prefetch';
export type { RedirectMode } from './engine/redirectMode';
export type { QueryValue, StitchInput } from './engine/request';
export type { ResponseType, StandardResult, StandardSchemaV1 } from './engine/response';
export { type BackoffOptions, type RetryBudgetOptions, type RetryOptions, retry } from './engine/retry';
export { type RunReport, type RunSource, type SafeResult, StitchRun } from './engine/run';
export type { CircuitChange, Claim, SharedState } from './engine/shared';
export { stitch } from './engine/stitch';
export { createMemoryStore, type Store } from './engine/store';
export { type SharedThrottleOptions, type ThrottleOptions, throttle } from './engine/throttle';
export type { TimeoutOptions } from './engine/timeout';
