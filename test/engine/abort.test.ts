import { getEventListeners } from 'node:events';
import { describe, expect, it } from 'vitest';
import { abortReason, linkSignals, onAbortShared, own, raceAbort } from '../../src/engine/abort';

describe('linkSignals', () => {
  it('aborts with the source reason, identity kept', () => {
    const source = new AbortController();
    const link = linkSignals(source.signal);
    const reason = new Error('navigated away');
    source.abort(reason);
    expect(link.signal.aborted).toBe(true);
    expect(link.signal.reason).toBe(reason);
  });

  it('starts aborted when a source already is', () => {
    const reason = new Error('early');
    const link = linkSignals(undefined, AbortSignal.abort(reason));
    expect(link.signal.reason).toBe(reason);
  });

  it('dispose removes its listener from long-lived sources', () => {
    const appWide = new AbortController();
    for (let i = 0; i < 200; i++) linkSignals(appWide.signal).dispose();
    expect(getEventListeners(appWide.signal, 'abort')).toHaveLength(0);
  });

  it('abort() aborts the link, not its sources, and detaches', () => {
    const source = new AbortController();
    const link = linkSignals(source.signal);
    link.abort('superseded');
    expect(link.signal.reason).toBe('superseded');
    expect(source.signal.aborted).toBe(false);
    expect(getEventListeners(source.signal, 'abort')).toHaveLength(0);
  });
});

describe('own', () => {
  it('waits on an owned signal carry no listener: its owner runs them right after aborting it', () => {
    const controller = new AbortController();
    const owner = own(controller.signal);
    const heard: string[] = [];
    const stopFirst = onAbortShared(controller.signal, () => heard.push('first'));
    onAbortShared(controller.signal, () => heard.push('second'));
    onAbortShared(controller.signal, () => heard.push('third'));
    stopFirst();
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
    controller.abort();
    expect(heard).toEqual([]);
    owner.aborted();
    owner.aborted();
    expect(heard).toEqual(['second', 'third']);
  });

  it('given up with a wait still on it, the signal gets its real listener back', () => {
    const controller = new AbortController();
    const owner = own(controller.signal);
    const heard: string[] = [];
    onAbortShared(controller.signal, () => heard.push('wait'));
    owner.release();
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(1);
    controller.abort();
    expect(heard).toEqual(['wait']);
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
  });

  it('given up with nothing on it, the signal is an ordinary one again', () => {
    const controller = new AbortController();
    const owner = own(controller.signal);
    onAbortShared(controller.signal, () => {})();
    owner.release();
    const stop = onAbortShared(controller.signal, () => {});
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(1);
    stop();
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
  });
});

describe('raceAbort', () => {
  it('rejects with the reason at once, without waiting for the work', async () => {
    const controller = new AbortController();
    const never = new Promise<never>(() => {});
    const racing = raceAbort(never, controller.signal);
    controller.abort('gone');
    await expect(racing).rejects.toBe('gone');
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
  });

  it('removes its listener when the work settles first', async () => {
    const controller = new AbortController();
    await expect(raceAbort(Promise.resolve(1), controller.signal)).resolves.toBe(1);
    await expect(raceAbort(Promise.reject(new Error('x')), controller.signal)).rejects.toThrow('x');
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
  });

  it('on a signal aborted already, the work that fails later raises no unhandled rejection', async () => {
    const controller = new AbortController();
    controller.abort('gone');
    const unhandled: unknown[] = [];
    const record = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', record);
    try {
      const failing = new Promise<never>((_, reject) => setImmediate(() => reject(new Error('late'))));
      await expect(raceAbort(failing, controller.signal)).rejects.toBe('gone');
      // The work fails at the next turn; a rejection nobody handles is reported the turn after.
      for (let turn = 0; turn < 3; turn++) await new Promise((resolve) => setImmediate(resolve));
    } finally {
      process.off('unhandledRejection', record);
    }
    expect(unhandled).toEqual([]);
  });
});

it('abortReason gives a DOMException AbortError for a bare abort()', () => {
  const controller = new AbortController();
  controller.abort();
  const reason = abortReason(controller.signal);
  expect(reason).toBeInstanceOf(DOMException);
  expect((reason as DOMException).name).toBe('AbortError');
});
