import type { Lane } from './store';

/** A search lane is labelled by its query. */
export const queryLabel = (lane: Lane) =>
  `“${new URLSearchParams(lane.path.split('?')[1] ?? '').get('q') ?? ''}”`;

/** A write lane is labelled by the idempotency key it sent. */
export const keyLabel = (lane: Lane) =>
  lane.idempotencyKey ? `key ${lane.idempotencyKey.slice(0, 8)}…` : 'no key';
