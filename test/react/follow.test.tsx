/**
 * `src/react/follow.ts`: the hooks' signals follow a scope's signal through one listener on it, however many hooks read
 * under the scope (Node warns past 10 listeners on one signal), and a hook that unmounted no
 * longer follows it.
 */
import { getEventListeners } from 'node:events';
import { act, render } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { follow } from '../../src/react/follow';
import { StitchScope, useStitchScope } from '../../src/react/index';
import { actAtOnce, flushMicrotasks, setup } from './harness';
import { Reader, type UserStitch, userStitch } from './users';

/** Hands the signal of the scope it renders under to `seen`. */
function ScopeProbe({ seen }: { seen: (signal: AbortSignal) => void }) {
  seen(useStitchScope());
  return null;
}

/** `readers` components reading user 1 under one scope. */
function Page({
  getUser,
  readers,
  seen,
}: {
  getUser: UserStitch;
  readers: number;
  seen: (signal: AbortSignal) => void;
}) {
  return (
    <StitchScope resetKey="/users">
      <ScopeProbe seen={seen} />
      {Array.from({ length: readers }, (_, n) => `reader-${n}`).map((name) => (
        <Reader key={name} getUser={getUser} id={1} />
      ))}
    </StitchScope>
  );
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe('hooks under one scope', () => {
  it('put a single listener on its signal, gone with the last of them, and stop following it once unmounted', async () => {
    const { vendor, wrapper } = await setup();
    const getUser = userStitch(vendor);
    let scope: AbortSignal | undefined;
    const seen = (signal: AbortSignal) => {
      scope = signal;
    };
    const { rerender, unmount } = render(<Page getUser={getUser} readers={50} seen={seen} />, { wrapper });
    await vendor.arrival(1);
    if (!scope) throw new Error('the probe saw no scope');
    // Fifty reads in flight, each on a signal of its own that follows the scope's.
    expect(getEventListeners(scope, 'abort')).toHaveLength(1);

    await actAtOnce(() => rerender(<Page getUser={getUser} readers={0} seen={seen} />));
    expect(await vendor.hangUp(1)).toMatchObject({ hungUp: true });
    // The listener went with the last of them.
    expect(getEventListeners(scope, 'abort')).toHaveLength(0);
    // The scope's abort now aborts its own controller and nothing else: no follower is left.
    const abort = vi.spyOn(AbortController.prototype, 'abort');
    unmount();
    await act(flushMicrotasks);
    expect(scope.aborted).toBe(true);
    expect(abort).toHaveBeenCalledTimes(1);
  });
});

describe('follow', () => {
  it('aborts with the reason of the source that aborted, the very object, and at once if it already has', () => {
    const scope = new AbortController();
    const own = new AbortController();
    const reason = new DOMException('The scope was reset', 'AbortError');
    const call = follow(own.signal, scope.signal);
    scope.abort(reason);
    expect(call.signal.reason).toBe(reason);
    expect(follow(undefined, scope.signal).signal.reason).toBe(reason);
    expect(own.signal.aborted).toBe(false);
  });

  it('a call that ended no longer follows its sources', () => {
    const scope = new AbortController();
    const call = follow(scope.signal);
    call.dispose();
    scope.abort(new Error('after the call'));
    expect(call.signal.aborted).toBe(false);
  });
});
