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
