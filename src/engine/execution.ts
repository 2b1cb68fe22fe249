import { raceAbort } from './abort';
import { runAttempt } from './attempt';
import { type AttemptResult, advance, type ExecutionContext, failure, left } from './context';
import { reasonMessage, type StitchError } from './errors';
import { safely } from './events';
import { isRetryable, nextDelay } from './retry';
import { summarize } from './run';

/** An execution's end. `aborted`: its own signal aborted (its last caller left); nobody waits. */
export type ExecutionResult<TData> =
  /** `recorded`: the data is an idempotency record's; nothing was sent. */
  | { type: 'success'; data: TData; recorded?: boolean; at?: number }
  | { type: 'failure'; error: StitchError }
  | { type: 'aborted' };

/**
 * The shared part of a call: the total deadline around the attempt loop (retry, backoff sleep,
 * retry budget). A caller's abort reaches it only as an abort of `context.signal`, which it
 * checks before any hook, event or sleep, so a cancellation is never retried or reported as an
 * error here. The total deadline is the context's, started with the execution.
 */
export async function execute<TData>(context: ExecutionContext<TData>): Promise<ExecutionResult<TData>> {
  const { definition, parts, retry } = context;
  // The budget is per vendor, like the breaker: an outage there must not multiply its traffic.
  const budgetKey = definition.circuit?.key ?? context.request.origin;
  const limits = retry.budget;
  const budget = limits && parts.use(limits.part);
  if (limits && budget) budget.recordCall(budgetKey, limits);
  const total = context.lifetime;
  let previous: StitchError | undefined;
  try {
    for (let attempt = 1; ; attempt++) {
      const result: AttemptResult<TData> = await runAttempt(context, attempt);
      // Law 4: once the last caller has left, nothing is delivered, so nothing gets cached.
      if (left(context)) return { type: 'aborted' };
      if (result.type !== 'failure') return result;
      // This call's own failures opened the breaker: report what the vendor said, not 'circuit-open'.
      // An open breaker is never retried, that answer included, nor the failure that opened it:
      // each retry would only wait to be refused (and spend the retry budget). So with a retry
      // the throttle gave up on: the vendor's answer is the call's, not a wait for a slot.
      const refused = result.error.kind === 'circuit-open';
      const error = (refused || result.throttled) && previous ? previous : result.error;
      previous = error;
      if (refused || result.opened || attempt >= retry.attempts || !isRetryable(error, retry))
        return fail(context, error);
      const next = nextDelay({
        retry: attempt,
        policy: retry,
        retryAfter: result.retryAfter,
        remaining: total.remaining(),
      });
      if ('giveUp' in next) return fail(context, error);
      if (limits && budget) {
        // The ask may outlive the run (it is raced, not cut): a late store failure is not this run's news.
        const storeError = (cause: unknown) => {
          if (total.signal.aborted) return;
          context.emit({ type: 'store', operation: 'budget', key: budgetKey, error: reasonMessage(cause) });
        };
        const asking = budget.tryRetry(budgetKey, limits, storeError);
        // A slow store is bounded by the total deadline too, never only by `storeTimeout`.
        let fits: boolean;
        try {
          fits = typeof asking === 'boolean' ? asking : await raceAbort(asking, total.signal);
        } catch {
          if (left(context)) return { type: 'aborted' };
          return expiredTotal(context, attempt);
        }
        if (!fits) return fail(context, error);
      }
      // What this attempt met (a throttle's refusal too), not what the call would report.
      const met = result.error;
      advance(context, {
        type: 'backoff',
        event: { type: 'retry', attempt, delay: next.delay, error: summarize(met) },
      });
      safely(definition.hooks.onRetry, { stitch: definition.name, attempt, delay: next.delay, error: met });
      try {
        await parts.clock.sleep(next.delay, total.signal);
      } catch {
        if (left(context)) return { type: 'aborted' };
        return expiredTotal(context, attempt);
      }
    }
  } catch (error) {
    return unexpected(context, error);
  }
}

/** Only a defect can throw out of an execution; a run must still settle, and say why. */
export function unexpected<TData>(context: ExecutionContext<TData>, error: unknown): ExecutionResult<TData> {
  if (left(context)) return { type: 'aborted' };
  const said = (error as Error)?.message ?? String(error);
  const message = `stitch '${context.definition.name}' failed unexpectedly: ${said}`;
  return fail(context, failure(context, 'config', message, { cause: error, retryable: false }));
}

/** The end of an execution whose total deadline passed outside an attempt (backoff, a wait). */
export function expiredTotal<TData>(
  context: ExecutionContext<TData>,
  attempt: number,
): ExecutionResult<TData> {
  const total = context.lifetime;
  const dispatched = context.state.requests > 0;
  advance(context, { type: 'timeout', event: { type: 'timeout', phase: 'total', attempt, dispatched } });
  return fail(
    context,
    failure(context, 'timeout', (total.signal.reason as Error).message, {
      phase: 'total',
      cause: total.signal.reason,
    }),
  );
}

function fail<TData>(context: ExecutionContext<TData>, error: StitchError): ExecutionResult<TData> {
  safely(context.definition.hooks.onError, error);
  return { type: 'failure', error };
}
