/**
 * Fakes for property tests driven by a fast-check scheduler: a fetch whose answers are scheduler
 * tasks, so the scheduler picks which request is answered when, and a failing interleaving shrinks
 * and replays. A real socket per step would make hundreds of cases too slow; the end-to-end vendor
 * is `./vendor.ts`.
 */
import type fc from 'fast-check';

/** How the fake vendor answers one request. */
export type Answer = 'ok' | '503' | 'network';

/** The body of an `ok` answer: the item id from the path, and which request served it. */
export interface Item {
  id: number;
  request: number;
}

/** What the fake vendor saw of one request, and what became of it. Updated in place. */
export interface Sent {
  /** 0-based arrival order. */
  readonly n: number;
  /** The request's pathname. */
  readonly key: string;
  readonly signal: AbortSignal;
  readonly answer: Answer;
  status: 'in-flight' | 'answered' | 'aborted';
  /** Aborted by a per-attempt deadline (a `TimeoutError` reason), not by a caller leaving. */
  timedOut: boolean;
}

/** Options of {@link createSchedulerVendor}. */
export interface SchedulerVendorOptions {
  /**
   * `with-head`: an `ok` body comes whole with the head, in one scheduler step; `own-step`: the
   * body is a later step of its own, so an abort can land between head and body.
   * @default 'with-head'
   */
  body?: 'with-head' | 'own-step';
  /** Called when a request in flight is aborted (not one whose signal was aborted before it was sent). */
  onAbort?: (request: Sent) => void;
}

const isTimeout = (reason: unknown) => reason instanceof DOMException && reason.name === 'TimeoutError';

/**
 * A fetch whose answers the scheduler releases. The n-th request gets `answers[n % answers.length]`.
 * Like real fetch it rejects with `signal.reason` the moment its signal aborts, whether the head or
 * the body is on its way, and drops its listeners once settled. It records a violation when a
 * request starts while a live one for the same key is in flight (the coalescer should have shared it).
 */
export function createSchedulerVendor(
  s: fc.Scheduler,
  answers: readonly Answer[],
  violations: string[],
  options: SchedulerVendorOptions = {},
) {
  const ownStep = options.body === 'own-step';
  const requests: Sent[] = [];
  const fetch = (url: string | URL | globalThis.Request, init?: RequestInit): Promise<Response> => {
    const key = new URL(String(url)).pathname;
    const signal = init?.signal as AbortSignal;
    const n = requests.length;
    const answer = answers[n % answers.length] as Answer;
    const live = requests.find((r) => r.key === key && r.status === 'in-flight' && !r.signal.aborted);
    if (live) violations.push(`request #${n} for ${key} sent while #${live.n} is in flight`);
    const request: Sent = { n, key, signal, answer, status: 'in-flight', timedOut: false };
    requests.push(request);
    const aborted = () => {
      request.status = 'aborted';
      request.timedOut = isTimeout(signal.reason);
    };
    return new Promise<Response>((resolve, reject) => {
      if (signal.aborted) {
        aborted();
        reject(signal.reason);
        return;
      }
      const onAbort = () => {
        aborted();
        options.onAbort?.(request);
        reject(signal.reason);
      };
      signal.addEventListener('abort', onAbort, { once: true });
      const label = ownStep ? `vendor head #${n} ${key} ${answer}` : `vendor answers #${n} ${key}`;
      s.schedule(Promise.resolve(answer), label).then(() => {
        if (request.status !== 'in-flight') return;
        signal.removeEventListener('abort', onAbort);
        const item: Item = { id: Number(key.split('/').pop()), request: n };
        if (answer === 'ok' && ownStep) {
          resolve(
            new Response(bodyOf(s, request, JSON.stringify(item), options.onAbort), {
              headers: { 'content-type': 'application/json' },
            }),
          );
          return;
        }
        request.status = 'answered';
        if (answer === 'network') reject(new TypeError('fetch failed'));
        else if (answer === '503') resolve(new Response('unavailable', { status: 503 }));
        else resolve(Response.json(item));
      });
    });
  };
  return { fetch: fetch as typeof globalThis.fetch, requests };
}

/** A body that arrives as a later scheduler step, and errors with the abort reason if aborted first. */
function bodyOf(
  s: fc.Scheduler,
  request: Sent,
  text: string,
  onAborted: ((request: Sent) => void) | undefined,
): ReadableStream<Uint8Array> {
  const { signal } = request;
  return new ReadableStream<Uint8Array>({
    start(controller) {
      const onAbort = () => {
        request.status = 'aborted';
        request.timedOut = isTimeout(signal.reason);
        onAborted?.(request);
        controller.error(signal.reason);
      };
      if (signal.aborted) {
        onAbort();
        return;
      }
      signal.addEventListener('abort', onAbort, { once: true });
      s.schedule(Promise.resolve(), `vendor body #${request.n}`).then(() => {
        if (signal.aborted) return;
        signal.removeEventListener('abort', onAbort);
        request.status = 'answered';
        controller.enqueue(new TextEncoder().encode(text));
        controller.close();
      });
    },
  });
}

/** Lets every promise chain the last step started run to its end: one turn of the event loop, no timer. */
export const flush = () => new Promise<void>((resolve) => setImmediate(resolve));
