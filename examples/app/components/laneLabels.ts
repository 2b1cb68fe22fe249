import type { LaneView } from '../../../src/devtools/index';

/** Path and query of a lane's URL, e.g. `/api/search?q=ada&limit=20`. */
export const pathOf = (lane: LaneView) => {
  const url = new URL(lane.url);
  return `${url.pathname}${url.search}`;
};

/** A lane is labelled by its method and path by default. */
export const defaultLabel = (lane: LaneView) => `${lane.method} ${pathOf(lane).replace(/^\/api\//, '')}`;

/** A search lane is labelled by its query. */
export const queryLabel = (lane: LaneView) => `“${new URL(lane.url).searchParams.get('q') ?? ''}”`;

/** A write lane is labelled by the idempotency key its request sent. */
export const keyLabel = (lane: LaneView) => {
  const key = lane.events.find((event) => event.type === 'request')?.idempotencyKey;
  return key ? `key ${key.slice(0, 8)}…` : 'no key';
};
