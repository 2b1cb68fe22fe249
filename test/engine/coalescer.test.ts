import { describe, expect, it } from 'vitest';
import {
  type Coalescer,
  createCoalescer,
  type Ending,
  type EventListener,
  type Starter,
} from '../../src/engine/coalescer';
import type { ExecutionState } from '../../src/engine/context';
import type { EventPayload } from '../../src/engine/events';
import type { ExecutionResult } from '../../src/engine/execution';
import { uniqueKey } from '../helpers/keys';

/** A lifetime that records how it was ended. */
function recordedLifetime(): Ending {
  const lifetime = {
    ended: undefined as { reason: unknown } | undefined,
    end(reason: unknown) {
      lifetime.ended ??= { reason };
    },
  };
  return lifetime;
}

/**
 * A starter whose executions the test settles by hand. It records each start's lifetime and emit
 * function, so a test can see how many executions began and push events through them.
 */
function manualStarter<TData = string>() {
  const starts: Array<{
    lifetime: Ending;
    emit: (event: EventPayload) => void;
    settle: (result: ExecutionResult<TData>) => void;
  }> = [];
  const start: Starter<TData> = (emit) => {
    const lifetime = recordedLifetime();
    let settle!: (result: ExecutionResult<TData>) => void;
    const result = new Promise<ExecutionResult<TData>>((resolve) => {
      settle = resolve;
    });
    const state: ExecutionState = {
      phase: 'before-dispatch',
      attempts: 0,
      requests: 0,
      status: undefined,
      ambiguous: false,
    };
    starts.push({ lifetime, emit, settle });
    return { state, result, url: 'https://api.example.com/x', lifetime };
  };
  return { start, starts };
}

/**
 * Whether `coalescer` has an execution in flight for `key`, asked as a caller would: a probe that
 * joins it lets go at once; one that would start a new execution throws before anything opens.
 */
function inFlight(coalescer: Coalescer, key: string): boolean {
  try {
    coalescer
      .join(
        key,
        'probe',
        () => {},
        () => {
          throw new Error('nothing in flight');
        },
      )
      .release('probe done');
    return true;
  } catch {
    return false;
  }
}

/** A listener that records `[run, event type, trace]` into `log`. */
const recorder =
  (log: Array<[string, string, boolean]>, run: string): EventListener =>
  (event, trace) =>
    log.push([run, event.type, trace]);

const ignore: EventListener = () => {};
const queued: EventPayload = { type: 'queued', key: 'k', position: 1 };
const response: EventPayload = { type: 'response', attempt: 1, status: 200, elapsed: 5 };

describe('createCoalescer', () => {
  it('shares one execution between callers of the same key and marks who joined', () => {
    const coalescer = createCoalescer(() => 0);
    const { start, starts } = manualStarter();
    const key = uniqueKey('users');
    const a = coalescer.join(key, 'run-a', ignore, start);
    const b = coalescer.join(key, 'run-b', ignore, start);
    expect(starts).toHaveLength(1);
    expect(b.shared).toBe(a.shared);
    expect(a.joined).toBe(false);
    expect(b.joined).toBe(true);
    expect(a.shared.leader).toBe('run-a');
    expect(inFlight(coalescer, key)).toBe(true);
  });

  it('never shares without a key', () => {
    const coalescer = createCoalescer(() => 0);
    const { start, starts } = manualStarter();
    const a = coalescer.join(undefined, 'run-a', ignore, start);
    const b = coalescer.join(undefined, 'run-b', ignore, start);
    expect(starts).toHaveLength(2);
    expect(b.shared).not.toBe(a.shared);
    expect(b.joined).toBe(false);
  });

  it('keeps different keys apart', () => {
    const coalescer = createCoalescer(() => 0);
    const { start, starts } = manualStarter();
    coalescer.join(uniqueKey('a'), 'run-a', ignore, start);
    coalescer.join(uniqueKey('b'), 'run-b', ignore, start);
    expect(starts).toHaveLength(2);
  });

  it('delivers each event to every reference in join order, with trace true for exactly one', () => {
    const coalescer = createCoalescer(() => 0);
    const { start, starts } = manualStarter();
    const key = uniqueKey();
    const log: Array<[string, string, boolean]> = [];
    coalescer.join(key, 'run-a', recorder(log, 'run-a'), start);
    coalescer.join(key, 'run-b', recorder(log, 'run-b'), start);
    coalescer.join(key, 'run-c', recorder(log, 'run-c'), start);
    starts[0]?.emit(queued);
    expect(log).toEqual([
      ['run-a', 'queued', true],
      ['run-b', 'queued', false],
      ['run-c', 'queued', false],
    ]);
  });

  it('moves the trace to the next reference when the first lets go', () => {
    const coalescer = createCoalescer(() => 0);
    const { start, starts } = manualStarter();
    const key = uniqueKey();
    const log: Array<[string, string, boolean]> = [];
    const a = coalescer.join(key, 'run-a', recorder(log, 'run-a'), start);
    coalescer.join(key, 'run-b', recorder(log, 'run-b'), start);
    coalescer.join(key, 'run-c', recorder(log, 'run-c'), start);
    a.release(new Error('gone'));
    starts[0]?.emit(response);
    expect(log).toEqual([
      ['run-b', 'response', true],
      ['run-c', 'response', false],
    ]);
    expect(log.filter(([, , trace]) => trace)).toHaveLength(1);
  });

  it("hears the starter's synchronous first events on the leader", () => {
    const coalescer = createCoalescer(() => 0);
    const log: Array<[string, string, boolean]> = [];
    const start: Starter<string> = (emit) => {
      emit(queued);
      return {
        state: { phase: 'queued', attempts: 0, requests: 0, status: undefined, ambiguous: false },
        result: new Promise(() => {}),
        url: 'https://api.example.com/x',
        lifetime: recordedLifetime(),
      };
    };
    coalescer.join(uniqueKey(), 'run-a', recorder(log, 'run-a'), start);
    expect(log).toEqual([['run-a', 'queued', true]]);
  });

  it('releasing a reference that is not the last does not abort the execution', () => {
    const coalescer = createCoalescer(() => 0);
    const { start, starts } = manualStarter();
    const key = uniqueKey();
    const a = coalescer.join(key, 'run-a', ignore, start);
    coalescer.join(key, 'run-b', ignore, start);
    a.release(new Error('user navigated away'));
    expect(starts[0]?.lifetime.ended).toBeUndefined();
    expect(inFlight(coalescer, key)).toBe(true);
    // A newcomer still joins the same execution: nothing is re-sent.
    expect(coalescer.join(key, 'run-c', ignore, start).joined).toBe(true);
    expect(starts).toHaveLength(1);
  });

  it('the last release aborts the execution with its reason and frees the key', () => {
    const coalescer = createCoalescer(() => 0);
    const { start, starts } = manualStarter();
    const key = uniqueKey();
    const a = coalescer.join(key, 'run-a', ignore, start);
    const b = coalescer.join(key, 'run-b', ignore, start);
    a.release(new Error('first'));
    const reason = new Error('last one out');
    b.release(reason);
    expect(starts[0]?.lifetime.ended).toBeDefined();
    expect(starts[0]?.lifetime.ended?.reason).toBe(reason);
    expect(inFlight(coalescer, key)).toBe(false);
    const next = coalescer.join(key, 'run-c', ignore, start);
    expect(next.joined).toBe(false);
    expect(starts).toHaveLength(2);
    expect(starts[1]?.lifetime.ended).toBeUndefined();
  });

  it('release is idempotent: a second release does not count as another reference', () => {
    const coalescer = createCoalescer(() => 0);
    const { start, starts } = manualStarter();
    const key = uniqueKey();
    const a = coalescer.join(key, 'run-a', ignore, start);
    coalescer.join(key, 'run-b', ignore, start);
    a.release('once');
    a.release('twice');
    expect(starts[0]?.lifetime.ended).toBeUndefined();
    expect(inFlight(coalescer, key)).toBe(true);
  });

  it('the last release of an unkeyed execution aborts it too', () => {
    const coalescer = createCoalescer(() => 0);
    const { start, starts } = manualStarter();
    coalescer.join(undefined, 'run-a', ignore, start).release('superseded');
    expect(starts[0]?.lifetime.ended?.reason).toBe('superseded');
  });

  it("frees the key before its references' callbacks run, so a caller from a callback starts afresh", async () => {
    const coalescer = createCoalescer(() => 0);
    const { start, starts } = manualStarter();
    const key = uniqueKey();
    const a = coalescer.join(key, 'run-a', ignore, start);
    const seen = a.shared.result.then((result) => ({
      result,
      busy: inFlight(coalescer, key),
      again: coalescer.join(key, 'run-b', ignore, start),
    }));
    starts[0]?.settle({ type: 'success', data: 'ada' });
    const { result, busy, again } = await seen;
    expect(result).toEqual({ type: 'success', data: 'ada' });
    expect(busy).toBe(false);
    expect(again.joined).toBe(false);
    expect(starts).toHaveLength(2);
  });

  it('a release after the execution settled aborts nothing', async () => {
    const coalescer = createCoalescer(() => 0);
    const { start, starts } = manualStarter();
    const key = uniqueKey();
    const a = coalescer.join(key, 'run-a', ignore, start);
    starts[0]?.settle({ type: 'success', data: 'ada' });
    await a.shared.result;
    a.release('done with it');
    expect(starts[0]?.lifetime.ended).toBeUndefined();
  });

  it("a stale reference's release does not free a newer execution on the same key", async () => {
    const coalescer = createCoalescer(() => 0);
    const { start, starts } = manualStarter();
    const key = uniqueKey();
    const old = coalescer.join(key, 'run-a', ignore, start);
    starts[0]?.settle({ type: 'aborted' });
    await old.shared.result;
    coalescer.join(key, 'run-b', ignore, start);
    old.release('late');
    expect(inFlight(coalescer, key)).toBe(true);
    expect(starts[1]?.lifetime.ended).toBeUndefined();
  });
});
