/**
 * `<StitchDevtools />`: a floating panel over `engine.inspect()` showing live request lanes, the
 * cache, breakers and throttle queues. Its panel is a lazy chunk, loaded on first open.
 * `useStitchInspector(select)` reads the same model, for a page's own view of it.
 * @module stitch-fetch/devtools
 */
// The model, as `stitch-fetch/devtools/model` exports it (its list is the explicit one).
export * from './headless';
export { StitchDevtools, type StitchDevtoolsProps } from './StitchDevtools';
export { type InspectorOptions, type SharedDevtoolsModel, useDevtoolsModel } from './shared';
export { useStitchInspector } from './useStitchInspector';
