/**
 * What every story renders the demo app's components with: a fresh vendor (msw handlers, see
 * vendor.ts) and a fresh engine on the page's own `fetch`, which msw intercepts, wired as
 * `examples/app/main.tsx` wires them (StrictMode, StitchProvider); and a devtools model of that
 * engine, watching from the start, for a play to read the lanes the pages draw.
 *
 * A story gets its harness from a loader and its handlers from `beforeEach` (both before the first
 * render, so requests sent on mount already reach it); the play function reads it with
 * `harnessOf(context)`.
 */
import type { Decorator, Loader, StoryContext } from '@storybook/react-vite';
// The addon's types put `msw` on every story context.
import type {} from 'msw-storybook-addon/types';
import { type ReactNode, StrictMode } from 'react';
import { waitFor } from 'storybook/test';
import { LedgerTable } from '../../examples/app/components/LedgerTable';
import { VendorControls } from '../../examples/app/components/VendorControls';
import { createDevtoolsModel, type DevtoolsModel } from '../../src/devtools/index';
import { createEngine, type Engine } from '../../src/index';
import { StitchProvider } from '../../src/react/index';
import { createStoryVendor, type StoryVendor, type StoryVendorOptions } from './vendor';

export interface Harness {
  readonly vendor: StoryVendor;
  readonly engine: Engine;
  readonly devtools: DevtoolsModel;
}

export function createHarness(options: StoryVendorOptions = {}): Harness {
  const engine = createEngine();
  return { vendor: createStoryVendor(options), engine, devtools: createDevtoolsModel(engine) };
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
      <StitchProvider engine={harness.engine}>{children}</StitchProvider>
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

// Typed for any story's args: neither the loader nor the decorator reads them.
// biome-ignore lint/suspicious/noExplicitAny: a loader and decorator for every meta, whatever its args.
type AnyArgs = any;

/** What a meta spreads in: a harness per story, msw handlers from its vendor, decorators around it. */
interface WithHarness {
  loaders: Loader<AnyArgs>[];
  beforeEach: (context: StoryContext<AnyArgs>) => void;
  decorators: Decorator<AnyArgs>[];
}

/**
 * Loaders, `beforeEach` and a decorator for a meta: a fresh harness per story, its vendor created
 * with `parameters.vendor` (e.g. `{ hold: ['search'] }`; a story's parameters override its meta's)
 * and its handlers given to msw, and the app's providers around the story (and its `Frame`).
 */
function withHarness(Frame: (props: { children?: ReactNode }) => ReactNode): WithHarness {
  return {
    loaders: [
      async (context) => ({
        harness: createHarness(context.parameters.vendor as StoryVendorOptions | undefined),
      }),
    ],
    beforeEach: (context) => context.msw.use(...harnessOf(context).vendor.handlers),
    decorators: [
      (Story, context) => (
        <DemoFrame harness={harnessOf(context)}>
          <Frame>
            <Story />
          </Frame>
        </DemoFrame>
      ),
    ],
  };
}

/** A demo page: the app's layout, with the vendor's controls and ledger beside the story. */
export const withDemo = withHarness(Layout);

/** One component: in a card, with the app's providers and nothing else around it. */
export const withComponent = withHarness(({ children }) => <div className="card">{children}</div>);

/** Waits (on state, never a fixed sleep) until `assertion` passes; longer than testing-library's 1 s default. */
export function eventually(assertion: () => void, timeout = 5_000): Promise<void> {
  return waitFor(assertion, { timeout, interval: 20 });
}

/** Ends a play: no endpoint is held any more and held requests are answered, so a person can go on. */
export function letGo({ vendor }: Harness): void {
  for (const endpoint of [
    'search',
    'flaky-search',
    'report',
    'upload',
    'charges',
    'people',
    'todos',
  ] as const) {
    vendor.hold(endpoint, false);
    vendor.release(endpoint);
  }
}
