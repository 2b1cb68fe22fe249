/**
 * The devtools' model without React: `createDevtoolsModel(engine)` is what `<StitchDevtools />`
 * renders (request lanes, the cache, breakers and throttle queues), for a panel of another
 * framework's (Vue, Svelte, Solid) or a test. This entry imports no React; `stitch-fetch/devtools`
 * exports the same model beside the React panel.
 * @module stitch-fetch/devtools/model
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
