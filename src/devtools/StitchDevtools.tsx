import { lazy, Suspense, useRef, useState } from 'react';
import type { Engine } from '../index';
import { useDevtoolsModel, useWatching } from './shared';
import { button, PALETTE } from './theme';

// The panel's code loads on first open: an app that mounts the toggle pays for the model only.
const Panel = lazy(() => import('./Panel').then((module) => ({ default: module.Panel })));

/** Props of {@link StitchDevtools}. */
export interface StitchDevtoolsProps {
  /** The engine to watch. @default the nearest `StitchProvider`'s engine, else `defaultEngine()` */
  engine?: Engine | undefined;
  /** Whether the panel starts open. @default false */
  initialOpen?: boolean | undefined;
  /** How many request lanes are kept. @default 200 */
  maxLanes?: number | undefined;
}

/**
 * A floating devtools panel for a Stitch engine: a live lane per request (queued, sent, joined,
 * cancelled with its reason and what became of the socket, answered, failed, each attempt), the
 * cache with invalidate and refetch, breakers with their next probe, and throttle queues. It
 * watches the engine from the commit that mounts it (pushed by `engine.inspect`, never polled),
 * so the requests made since, those the components mounted with it send from their effects
 * included, are there when the panel opens (a `useSuspenseStitch` read starts while React
 * renders, before any effect: it shows when the panel mounted in an earlier commit). Import it
 * only where you want it: nothing of it reaches a bundle that does not import
 * `stitch-fetch/devtools`. Its model is the engine's shared one (`useDevtoolsModel`), so a page's
 * `useStitchInspector` shows the same lanes.
 */
export function StitchDevtools({ engine, initialOpen = false, maxLanes }: StitchDevtoolsProps) {
  const model = useDevtoolsModel({ engine, maxLanes });
  const [open, setOpen] = useState(initialOpen);
  const toggle = useRef<HTMLButtonElement>(null);
  // Closing from inside the panel (its ✕ or Escape) hands focus back to the toggle.
  const close = () => {
    setOpen(false);
    toggle.current?.focus();
  };

  // Watched from mount, not from the first open.
  useWatching(model);

  return (
    <>
      <button
        ref={toggle}
        type="button"
        aria-expanded={open}
        aria-label={open ? 'Close Stitch devtools' : 'Open Stitch devtools'}
        onClick={() => setOpen((was) => !was)}
        style={{
          ...button,
          position: 'fixed',
          right: 8,
          bottom: 8,
          zIndex: 2147483000,
          background: PALETTE.background,
          padding: '6px 12px',
        }}
      >
        Stitch
      </button>
      {open && (
        <Suspense fallback={null}>
          <Panel model={model} onClose={close} />
        </Suspense>
      )}
    </>
  );
}
