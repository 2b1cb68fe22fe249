/**
 * The demo vendor's knobs: latency per endpoint and the faults a person can switch on from the demo
 * to watch Stitch cope. They are read when a request arrives, so a change applies to the next request
 * and never to one already waiting.
 */

/**
 * Latency (ms) and faults of the demo vendor. Faults apply to the endpoints the ledger counts (the
 * two searches, report, upload, charges, people and to-dos), before any endpoint work (so a
 * faulted charge makes no charge), checked in this order: `reset`, `hang`, `failRate`.
 */
export interface Controls {
  /** Search latency. @default 300 */
  delay: number;
  /** Report latency: slow enough to navigate away from. @default 4000 */
  reportDelay: number;
  /** Time spent "processing" an upload once its body is in. @default 4000 */
  uploadDelay: number;
  /** Time from a charge being created to its answer: the window in which a hang-up is ambiguous. @default 1500 */
  chargeDelay: number;
  /** Probability (0..1) that a request is answered 503 with `Retry-After: 1`. @default 0 */
  failRate: number;
  /** Never answer; the request stays open until the client hangs up. @default false */
  hang: boolean;
  /** Drop the connection without an HTTP answer (the client's fetch fails). @default false */
  reset: boolean;
}

/** What a new vendor starts with. */
export const DEFAULT_CONTROLS: Readonly<Controls> = Object.freeze({
  delay: 300,
  reportDelay: 4_000,
  uploadDelay: 4_000,
  chargeDelay: 1_500,
  failRate: 0,
  hang: false,
  reset: false,
});

/** Longer than this and `setTimeout` would overflow and fire at once; an hour is plenty for a demo. */
const MAX_DELAY = 3_600_000;

const DELAYS = ['delay', 'reportDelay', 'uploadDelay', 'chargeDelay'] as const;
const FLAGS = ['hang', 'reset'] as const;

/**
 * Checks a partial update (e.g. a `POST /api/controls` body) and returns it typed. Throws a `TypeError`
 * naming the first bad field: an unknown key, a delay outside 0..3,600,000 ms, a `failRate` outside
 * 0..1, or a non-boolean fault flag.
 */
export function parseControls(input: unknown): Partial<Controls> {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    throw new TypeError('controls must be a JSON object');
  }
  const patch: Partial<Controls> = {};
  for (const [key, value] of Object.entries(input)) {
    if ((DELAYS as readonly string[]).includes(key)) {
      if (typeof value !== 'number' || !(value >= 0 && value <= MAX_DELAY)) {
        throw new TypeError(`${key} must be a number of milliseconds from 0 to ${MAX_DELAY}`);
      }
      patch[key as (typeof DELAYS)[number]] = value;
    } else if (key === 'failRate') {
      if (typeof value !== 'number' || !(value >= 0 && value <= 1)) {
        throw new TypeError('failRate must be a number from 0 to 1');
      }
      patch.failRate = value;
    } else if ((FLAGS as readonly string[]).includes(key)) {
      if (typeof value !== 'boolean') throw new TypeError(`${key} must be true or false`);
      patch[key as (typeof FLAGS)[number]] = value;
    } else {
      throw new TypeError(`unknown control "${key}"`);
    }
  }
  return patch;
}
