/**
 * `<StitchDevtools />`: a floating panel over `engine.inspect()` showing live request lanes, the
 * cache, breakers and throttle queues. Its panel is a lazy chunk, loaded on first open.
 * `useStitchInspector(select)` reads the same model, for a page's own view of it.
 * @module stitch-fetch/devtools
 */
export {
  type AttemptView,
  type CacheView,
  type CancelView,
  createDevtoolsModel,
  type DevtoolsModel,
  type DevtoolsSnapshot,
  type LaneStatus,
  type LaneView,
} from './model';
export { StitchDevtools, type StitchDevtoolsProps } from './StitchDevtools';
export { type InspectorOptions, type SharedDevtoolsModel, useDevtoolsModel } from './shared';
export { useStitchInspector } from './useStitchInspector';
