/**
 * A server render that suspends (React's streaming renderer): the read is sent once and, the
 * render done, nothing of it waits for a commit that never comes on a server. Its own file: a
 * streaming render marks the provider's context as its renderer's for the rest of the module.
 */
import { Writable } from 'node:stream';
import { Suspense } from 'react';
import { renderToPipeableStream } from 'react-dom/server';
import { describe, expect, it, onTestFinished, vi } from 'vitest';
import { createEngine } from '../../src/index';
import { StitchProvider, useSuspenseStitch } from '../../src/react/index';
import { createManualClock } from '../helpers/clock';
import { setup } from './harness';
import { ada, type UserStitch, userStitch } from './users';

function SuspenseName({ getUser }: { getUser: UserStitch }) {
  return <p>{useSuspenseStitch(getUser, { params: { id: 7 } }).data.name}</p>;
}

describe('a streamed server render', () => {
  it('that suspends reads once and, done, leaves no timer behind (nothing commits there)', async () => {
    const { vendor } = await setup({ respond: () => ({ status: 200, body: ada }) });
    const getUser = userStitch(vendor);
    const clock = createManualClock();
    const server = createEngine({ clock });
    // A server has no window: a render there is final.
    vi.stubGlobal('window', undefined);
    onTestFinished(() => void vi.unstubAllGlobals());
    const html = await new Promise<string>((resolve, reject) => {
      const stream = renderToPipeableStream(
        <StitchProvider engine={server}>
          <Suspense fallback={<p>loading</p>}>
            <SuspenseName getUser={getUser} />
          </Suspense>
        </StitchProvider>,
        {
          onAllReady: () => {
            let out = '';
            const sink = new Writable({
              write(chunk, _encoding, done) {
                out += chunk;
                done();
              },
            });
            sink.on('finish', () => resolve(out));
            stream.pipe(sink);
          },
          onShellError: reject,
        },
      );
    });
    expect(html).toContain('Ada');
    expect(vendor.requests()).toBe(1);
    expect(clock.pending()).toBe(0);
  });
});
