export type { QueryControls, QueryResult, QueryStatus } from './observer';
export { StitchProvider, type StitchProviderProps, useEngine } from './provider';
export { StitchScope, type StitchScopeProps, useStitchScope } from './scope';
export { skipToken, type UseStitchOptions, useStitch } from './useStitch';
export type {
  MutateArgs,
  MutationControls,
  MutationResult,
  MutationState,
  MutationStatus,
} from './useStitchMutation';
export { useStitchMutation } from './useStitchMutation';
export { type UseSuspenseStitchOptions, useSuspenseStitch } from './useSuspenseStitch';
