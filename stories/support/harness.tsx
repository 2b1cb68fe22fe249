/**
 * What every story renders the demo app's components with: a fresh fake vendor, a fresh engine whose
 * `fetch` is that vendor, and the app's own trace store as the engine's sink, wired as
 * `examples/app/main.tsx` wires them (StrictMode, StitchProvider, TraceProvider).
 *
 * A story gets its harness from a loader (created before the first render, so requests sent on mount
 * already go to it); the play function reads it with `harnessOf(context)`.
 */
import type { Decorator, Loader } from '@storybook/react-vite';
import { type ReactNode, StrictMode } from 'react';
import { waitFor } from 'storybook/test';
import { LedgerTable } from '../../examples/app/components/LedgerTable';
import { VendorControls } from '../../examples/app/components/VendorControls';
import { TraceProvider } from '../../examples/app/trace/context';
import { createTraceStore, type TraceStore } from '../../examples/app/trace/store';
import { createEngine, type Engine } from '../../src/index';
import { StitchProvider } from '../../src/react/index';
import { createFakeVendor, type FakeVendor, type FakeVendorOptions } from './fakeVendor';

export interface Harness {
  readonly vendor: FakeVendor;
  readonly engine: Engine;
  readonly trace: TraceStore;
}

/** Harnesses not yet closed: the previous story's pending timers must not outlive it. */
const live = new Set<Harness>();

export function createHarness(options: FakeVendorOptions = {}): Harness {
  for (const old of live) old.vendor.close();
  live.clear();
  const vendor = createFakeVendor(options);
  const trace = createTraceStore();
  const engine = createEngine({ fetch: vendor.fetch, trace });
  const harness = { vendor, engine, trace };
  live.add(harness);
  return harness;
}

/** The story's harness, from its `loaded` data. */
export function harnessOf(context: { loaded: Record<string, unknown> }): Harness {
  const harness = context.loaded.harness as Harness | undefined;
  if (!harness) throw new Error('this story has no harness: spread withDemo(...) into its meta');
  return harness;
}

/** The app's providers around `children`, as `examples/app/main.tsx` has them. */
export function DemoFrame({ harness, children }: { harness: Harness; children?: ReactNode }) {
  return (
    <StrictMode>
      <StitchProvider engine={harness.engine}>
        <TraceProvider store={harness.trace}>{children}</TraceProvider>
      </StitchProvider>
    </StrictMode>
  );
}

/** The app's layout: the page in `main`, the vendor's controls and ledger (the fake's) beside it. */
function Layout({ children }: { children?: ReactNode }) {
  return (
    <div className="layout">
      <main>{children}</main>
      <aside aria-label="Vendor">
        <VendorControls />
        <LedgerTable />
      </aside>
    </div>
  );
}

/**
 * Loaders and decorators for a meta: a fresh harness per story, its fake vendor created with
 * `parameters.fakeVendor` (e.g. `{ hold: ['search'] }`; a story's parameters override its meta's),
 * and the app's providers and layout around the story.
 */
// Typed for any story's args: neither the loader nor the decorator reads them.
// biome-ignore lint/suspicious/noExplicitAny: a loader and decorator for every meta, whatever its args.
type AnyArgs = any;

export const withDemo: { loaders: Loader<AnyArgs>[]; decorators: Decorator<AnyArgs>[] } = {
  loaders: [
    async (context) => ({
      harness: createHarness(context.parameters.fakeVendor as FakeVendorOptions | undefined),
    }),
  ],
  decorators: [
    (Story, context) => (
      <DemoFrame harness={harnessOf(context)}>
        <Layout>
          <Story />
        </Layout>
      </DemoFrame>
    ),
  ],
};

/** Waits (on state, never a fixed sleep) until `assertion` passes; longer than testing-library's 1 s default. */
export function eventually(assertion: () => void, timeout = 5_000): Promise<void> {
  return waitFor(assertion, { timeout, interval: 20 });
}

/** Ends a play: no endpoint is held any more and held requests are answered, so a person can go on. */
export function letGo({ vendor }: Harness): void {
  for (const endpoint of ['search', 'report', 'upload', 'charges'] as const) {
    vendor.hold(endpoint, false);
    vendor.release(endpoint);
  }
}
