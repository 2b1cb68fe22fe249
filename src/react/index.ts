/**
 * React hooks over the engine: each mounted hook is one reference on the shared request, released
 * on unmount or re-key.
 * @module stitch-fetch/react
 */
export type { InfiniteData, PagePolicy } from './infinite';
export type { InfiniteControls, InfiniteResult } from './infiniteObserver';
export type { QueryControls, QueryResult, QueryStatus } from './observer';
export { keepPreviousData, type PlaceholderData } from './placeholder';
export { StitchProvider, type StitchProviderProps, useEngine } from './provider';
export { type HookInput, skipToken } from './readInput';
export { StitchScope, type StitchScopeProps, useStitchScope } from './scope';
export type { FocusSource, OnlineSource, RefetchTriggers } from './triggers';
export { type DefinedQueryResult, type UseStitchOptions, useStitch } from './useStitch';
export { type UseStitchInfiniteOptions, useStitchInfinite } from './useStitchInfinite';
export type {
  MutateArgs,
  MutationControls,
  MutationResult,
  MutationState,
  MutationStatus,
} from './useStitchMutation';
export { useStitchMutation } from './useStitchMutation';
export { type UseSuspenseStitchOptions, useSuspenseStitch } from './useSuspenseStitch';
