/**
 * Server rendering: the devtools render the empty model on a server (nothing watches there), and
 * a hydrating client renders that first, even when its model already holds lanes (a panel in the
 * shell watched requests before a code-split part hydrated). No hydration mismatch, then the
 * client's lanes. Against the real vendor.
 */

import { PassThrough } from 'node:stream';
import { act, render } from '@testing-library/react';
import type { ReactNode } from 'react';
import { hydrateRoot } from 'react-dom/client';
import { renderToPipeableStream } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { StitchDevtools, useStitchInspector } from '../../src/devtools/index';
import { createEngine, stitch } from '../../src/index';
import { StitchProvider } from '../../src/react/index';
import { uniqueKey } from '../helpers/keys';
import { flushMicrotasks, setup } from '../react/harness';

/** The HTML a streaming server render sends once everything is ready (the lazy panel included). */
function serverHtml(element: ReactNode): Promise<string> {
  return new Promise((resolve, reject) => {
    const { pipe } = renderToPipeableStream(element, {
      onAllReady() {
        const sink = new PassThrough();
        let html = '';
        sink.on('data', (chunk: Buffer) => {
          html += chunk.toString();
        });
        sink.on('end', () => resolve(html));
        pipe(sink);
      },
      onShellError: reject,
    });
  });
}

/** How many lanes the page's own view of the devtools model holds. */
function LaneCount() {
  return <p>{`${useStitchInspector((snapshot) => snapshot.lanes.length)} lanes`}</p>;
}

describe('hydration', () => {
  it.each([
    ['a page view (useStitchInspector)', false],
    ['the open panel', true],
  ])('%s hydrates over server HTML while the client model already has a lane', async (_, open) => {
    const { vendor, engine, wrapper } = await setup({ respond: () => ({ body: { ok: true } }) });
    const search = stitch({ name: uniqueKey('search'), url: vendor.url('/search') });
    const page = (
      <>
        <LaneCount />
        <StitchDevtools initialOpen={open} />
      </>
    );
    const html = await serverHtml(<StitchProvider engine={createEngine()}>{page}</StitchProvider>);
    expect(html).toContain('0 lanes');

    // A panel mounted elsewhere watches the engine: its model holds the lane of a finished call.
    render(<StitchDevtools />, { wrapper });
    await act(async () => {
      await search(undefined, { engine });
    });

    const container = document.createElement('div');
    container.innerHTML = html;
    document.body.append(container);
    const mismatches: unknown[] = [];
    await act(async () => {
      hydrateRoot(container, <StitchProvider engine={engine}>{page}</StitchProvider>, {
        onRecoverableError: (error) => mismatches.push(error),
      });
      await flushMicrotasks();
    });
    expect(mismatches).toEqual([]);
    expect(container.textContent).toContain('1 lanes');
    container.remove();
  });
});
