/**
 * How a call's run ends without an execution's answer: cancelled by its caller (the reason
 * intact, law 1) or refused before it started (a `config` error).
 */
import type { Clock } from './clock';
import type { Reference } from './coalescer';
import type { ExecutionState } from './context';
import type { StitchDefinition } from './definition';
import { asConfigError, reasonMessage, StitchError } from './errors';
import { safely } from './events';
import { countFrom, emitTo, finishRun, hasStarted, nextRunId, type RunTally, StitchRun } from './run';

/**
 * Ends `run` as cancelled by its caller with `reason`: the reference (if any) is let go, the
 * `cancel` event and `onCancel` hook say where it was and whether anything had left, and the
 * run rejects with `kind: 'aborted'` whose `cause` is the reason itself.
 */
export function cancelRun<TData>(
  run: StitchRun<TData>,
  tally: RunTally,
  definition: Pick<StitchDefinition, 'name' | 'hooks'>,
  reason: unknown,
  where: {
    state?: ExecutionState | undefined;
    reference?: Reference<TData> | undefined;
    url: string;
    idempotencyKey?: string | undefined;
  },
): void {
  const { state } = where;
  const phase = state?.phase ?? 'before-dispatch';
  countFrom(tally, state);
  const { attempts, requests } = tally;
  const dispatched = requests > 0;
  const shared = where.reference?.release(reason) ?? false;
  emitTo(run, {
    type: 'cancel',
    phase,
    dispatched,
    shared,
    reason: reasonMessage(reason),
    attempt: attempts,
  });
  safely(definition.hooks.onCancel, { stitch: definition.name, reason, phase, dispatched });
  const error = new StitchError({
    kind: 'aborted',
    message: reasonMessage(reason),
    cause: reason,
    attempts,
    requests,
    // Cut off with a request out, or after one went unanswered earlier in the run.
    ambiguous: phase === 'in-flight' || phase === 'body' || state?.ambiguous === true,
    url: where.url,
    stitch: definition.name,
    idempotencyKey: where.idempotencyKey,
  });
  finishRun(run, { ok: false, error }, tally);
}

export const emptyTally = (): RunTally => ({
  attempts: 0,
  requests: 0,
  status: undefined,
  source: 'live',
  idempotencyKey: undefined,
});

/**
 * Ends `run`, refused before anything was sent, with `error` (a `config` error unless it is a
 * StitchError already, such as an input's `invalid`): its events run from a `start` (logged here
 * unless it was already) to `done`, as every run's do.
 */
export function refuseRun<TData>(
  run: StitchRun<TData>,
  definition: Pick<StitchDefinition, 'name' | 'method'>,
  url: string,
  error: unknown,
  tally: RunTally = emptyTally(),
): StitchRun<TData> {
  if (!hasStarted(run)) emitTo(run, { type: 'start', method: definition.method, url });
  finishRun(run, { ok: false, error: asConfigError(error, definition.name) }, tally);
  return run;
}

/**
 * A run that failed before it started, for a caller whose call could not reach an engine at all
 * (an `engine` option that is not one): it rejects like any other run, it never throws.
 */
export function rejectedRun<TData>(
  definition: Pick<StitchDefinition, 'name' | 'method'>,
  url: string,
  error: unknown,
  clock: Clock,
): StitchRun<TData> {
  return refuseRun(
    new StitchRun<TData>(`r${nextRunId()}`, definition.name, clock, undefined),
    definition,
    url,
    error,
  );
}
