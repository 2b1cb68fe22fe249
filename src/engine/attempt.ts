/**
 * One attempt: a throttle slot, the breaker's admission, then the send (`send.ts`), then the
 * breaker's record. The slot is held for this attempt only.
 */
import { onAbortShared, raceAbort } from './abort';
import type { Admission } from './circuit';
import {
  type AttemptResult,
  advance,
  type ExecutionContext,
  failure,
  left,
  timedOut,
  UNANSWERED,
} from './context';
import { isStitchError, reasonMessage, type StitchError } from './errors';
import { isPending } from './maybe';
import { dispatch } from './send';
import type { Release, ThrottlePolicy, Throttles } from './throttle';

const noop = () => {};
const unthrottled: Release = noop;

/**
 * A throttle slot, if the stitch has a throttle: at once when this process's throttle has one
 * free, else a wait for one. The wait resolves an error when it gave up.
 */
function takeSlot<TData>(context: ExecutionContext<TData>): Release | Promise<Release | StitchError> {
  const policy = context.definition.throttle;
  if (!policy) return unthrottled;
  const key = policy.key ?? context.request.origin;
  const throttles = context.parts.use(policy.part);
  const local = !throttles.shared || !((policy.rate && policy.shared.rate) || policy.shared.concurrency);
  const free = local && !context.lifetime.signal.aborted && throttles.local.tryAcquire(key, policy);
  return free || waitForSlot(context, policy, throttles, key, local);
}

/** Waits for a throttle slot (this process's, or one the store shares); an error when it gave up. */
async function waitForSlot<TData>(
  context: ExecutionContext<TData>,
  policy: ThrottlePolicy,
  throttles: Throttles,
  key: string,
  local: boolean,
): Promise<Release | StitchError> {
  const total = context.lifetime;
  const onQueued = (position: number) => context.emit({ type: 'queued', key, position });
  const bound = total.remaining();
  const options = { signal: total.signal, maxWait: bound, onQueued };
  try {
    const release =
      local || !throttles.shared
        ? await throttles.local.acquire(key, policy, options)
        : await throttles.shared(throttles.local, key, policy, options, (operation, error) => {
            // A wait on the store's answer that something else ended (`setData`, the last caller
            // leaving) is not the store's doing: only the deadline's is.
            if (error !== UNANSWERED || total.expired)
              context.emit({ type: 'store', operation, key, error: reasonMessage(error) });
          });
    if (!total.passed()) return release;
    // Granted as the deadline passed (before its timer ran): the slot goes to the next in line.
    release(true);
    throw total.signal.reason;
  } catch (error) {
    // A caller's abort unwinds; a wait past maxWait or past the total deadline is 'rate-limited'.
    if (left(context)) throw error;
    const retryAfter = isStitchError(error) ? error.retryAfter : undefined;
    // A wait bounded by the deadline rather than by maxWait gave up at the deadline, even when its
    // timer fired a fraction of a millisecond before the deadline's.
    const message =
      total.expired || bound < policy.maxWait
        ? 'the total deadline passed while waiting for a throttle slot'
        : (error as Error).message;
    return failure(context, 'rate-limited', message, { cause: error, retryable: true, retryAfter });
  }
}

/**
 * One attempt: throttle slot → breaker admission → per-attempt deadline → fetch → body → parse
 * and validate → breaker record. The slot is held for this attempt only, never during backoff,
 * nor while the breaker writes its record; that write is awaited only within the total deadline
 * (a slow store must not hold the caller's answer past it: the record finishes on its own).
 */
export async function runAttempt<TData>(
  context: ExecutionContext<TData>,
  attempt: number,
): Promise<AttemptResult<TData>> {
  const { state, definition, parts, request, lifetime: total } = context;
  advance(context, { type: 'wait', phase: definition.throttle ? 'queued' : 'before-dispatch' });
  let slot: Release | StitchError;
  try {
    const taking = takeSlot(context);
    slot = typeof taking === 'function' ? taking : await taking;
  } catch {
    return { type: 'aborted' };
  }
  if (typeof slot !== 'function')
    return { type: 'failure', error: slot, retryAfter: slot.retryAfter, throttled: true };
  const release = slot;
  const sentBefore = state.requests;
  let admission: Admission | undefined;
  // A caller who leaves hands the slot back and frees a probe lease at once (laws 1 and 3), not
  // once the aborted fetch has unwound: the next call of a re-key must find them free.
  const stopLeaving =
    release === unthrottled && !definition.circuit
      ? noop
      : onAbortShared(total.signal, () => {
          if (!left(context)) return;
          admission?.record('neutral');
          release(state.requests === sentBefore);
        });
  let recording: Promise<void> | undefined;
  let result: AttemptResult<TData>;
  let opened = false;
  try {
    advance(context, { type: 'wait', phase: 'before-dispatch' });
    if (definition.circuit) {
      const key = definition.circuit.key ?? request.origin;
      const admitting = parts.use(definition.circuit.part).circuit.admit(
        key,
        definition.circuit,
        {
          transition: (change) => {
            if (change.to === 'open') opened = true;
            context.emit({ type: 'circuit', ...change });
          },
          storeError: (error) =>
            context.emit({ type: 'store', operation: 'circuit', key, error: reasonMessage(error) }),
        },
        total.signal,
      );
      // A slow store must not hold an aborted or timed-out execution (nor its throttle slot); an
      // admission that arrives after that is handed back as neutral, freeing a probe lease.
      const verdict = !isPending(admitting)
        ? admitting
        : await raceAbort(admitting, total.signal).catch((error: unknown) => {
            admitting.then((late) => {
              if (late.admitted) late.admission.record('neutral');
            });
            // The deadline, not the caller, ended the wait: the run says the store was why.
            if (total.expired) context.emit({ type: 'store', operation: 'circuit', key, error: UNANSWERED });
            throw error;
          });
      if (!verdict.admitted) {
        const error = failure(context, 'circuit-open', `the circuit '${key}' is ${verdict.state}`, {
          retryAfter: verdict.retryAfter,
          retryable: true,
        });
        return { type: 'failure', error, retryAfter: undefined };
      }
      admission = verdict.admission;
    }
    const [outcome, ended] = await dispatch(context, attempt);
    recording = admission?.record(outcome);
    result = ended;
  } catch (error) {
    // An abort or the total deadline land here; anything else is not ours to swallow.
    if (total.expired) return timedOut(context, total, attempt, false);
    if (left(context)) return { type: 'aborted' };
    throw error;
  } finally {
    stopLeaving();
    // An attempt that sent nothing (breaker refused, caller left) hands back its rate token too.
    release(state.requests === sentBefore);
  }
  if (recording) await raceAbort(recording, total.signal).catch(() => {});
  return opened && result.type === 'failure' ? { ...result, opened } : result;
}
