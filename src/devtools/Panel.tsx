import {
  type KeyboardEvent,
  type PointerEvent as ReactPointerEvent,
  useDeferredValue,
  useEffect,
  useId,
  useRef,
  useState,
  useSyncExternalStore,
} from 'react';
import { Lanes } from './Lanes';
import { EMPTY } from './model';
import type { SharedDevtoolsModel } from './shared';
import { CacheTable, StateTables } from './Tables';
import { button, PALETTE } from './theme';

const TABS = ['Requests', 'Cache', 'Breakers & queues'] as const;
type Tab = (typeof TABS)[number];

/** Keyboard resizing: each arrow press moves the panel's top-left corner by this many px. */
const STEP = 24;
const MIN = { width: 280, height: 160 };

/** Props of the lazily loaded panel body. */
export interface PanelProps {
  model: SharedDevtoolsModel;
  onClose: () => void;
}

/** Renders again every second while `ticking` (a countdown, an age on show). */
function useTicks(ticking: boolean) {
  const [, setTicks] = useState(0);
  useEffect(() => {
    if (!ticking) return;
    const timer = setInterval(() => setTicks((ticks) => ticks + 1), 1_000);
    return () => clearInterval(timer);
  }, [ticking]);
}

const serverSnapshot = () => EMPTY;

/**
 * `size` within the minimum and the viewport (less the panel's margins, as its style draws it):
 * a size kept beyond what is drawn would make the first shrinking moves do nothing.
 */
function fitted(size: { width: number; height: number }) {
  return {
    width: Math.max(MIN.width, Math.min(size.width, window.innerWidth - 16)),
    height: Math.max(MIN.height, Math.min(size.height, window.innerHeight - 64)),
  };
}

/**
 * The floating panel: tabs for requests, cache, and breakers with throttle queues. Resized by
 * dragging its corner or with the arrow keys on the resize handle; never wider than the viewport.
 */
export function Panel({ model, onClose }: PanelProps) {
  // A server renders the empty model (nothing watches there): so does a hydrating client first.
  const latest = useSyncExternalStore(model.subscribe, model.getSnapshot, serverSnapshot);
  // Drawn in the background: a burst of events (hundreds of runs) is drawn once it pauses, and
  // never holds up the app's own renders (a keystroke in the page being inspected).
  const snapshot = useDeferredValue(latest);
  const [tab, setTab] = useState<Tab>('Requests');
  const [size, setSize] = useState({ width: 560, height: 420 });
  const id = useId();
  const tabs = useRef<Array<HTMLButtonElement | null>>([]);
  const aging = tab === 'Cache' && snapshot.cache.some((entry) => entry.snapshot.updatedAt !== undefined);
  useTicks(aging || snapshot.breakers.some(({ state }) => state.state === 'open'));
  // Read at every render: ages and countdowns as of now, whatever rendered the panel.
  const now = model.engine.clock.now();

  const resize = (dx: number, dy: number) =>
    setSize((current) => {
      const drawn = fitted(current);
      return fitted({ width: drawn.width + dx, height: drawn.height + dy });
    });

  const onHandleKey = (event: KeyboardEvent) => {
    const moves: Record<string, [number, number]> = {
      ArrowLeft: [STEP, 0],
      ArrowRight: [-STEP, 0],
      ArrowUp: [0, STEP],
      ArrowDown: [0, -STEP],
    };
    const move = moves[event.key];
    if (!move) return;
    event.preventDefault();
    resize(...move);
  };

  const onHandlePointer = (event: ReactPointerEvent) => {
    const start = { x: event.clientX, y: event.clientY, ...fitted(size) };
    const target = event.currentTarget;
    target.setPointerCapture(event.pointerId);
    const move = (next: PointerEvent) =>
      setSize(
        fitted({
          width: start.width + start.x - next.clientX,
          height: start.height + start.y - next.clientY,
        }),
      );
    const up = () => {
      target.removeEventListener('pointermove', move as EventListener);
      target.removeEventListener('pointerup', up);
    };
    target.addEventListener('pointermove', move as EventListener);
    target.addEventListener('pointerup', up);
  };

  const onTabKey = (event: KeyboardEvent, index: number) => {
    const delta = event.key === 'ArrowRight' ? 1 : event.key === 'ArrowLeft' ? -1 : 0;
    if (delta === 0) return;
    event.preventDefault();
    const next = (index + delta + TABS.length) % TABS.length;
    setTab(TABS[next] as Tab);
    tabs.current[next]?.focus();
  };

  return (
    <section
      aria-label="Stitch devtools"
      data-testid="stitch-devtools"
      onKeyDown={(event) => {
        if (event.key === 'Escape') onClose();
      }}
      style={{
        position: 'fixed',
        right: 8,
        bottom: 48,
        zIndex: 2147483000,
        width: `min(${size.width}px, calc(100vw - 16px))`,
        height: `min(${size.height}px, calc(100vh - 64px))`,
        display: 'flex',
        flexDirection: 'column',
        background: PALETTE.background,
        color: PALETTE.text,
        border: `1px solid ${PALETTE.muted}`,
        borderRadius: 6,
        font: '13px/1.4 system-ui, sans-serif',
        boxShadow: '0 8px 24px rgb(0 0 0 / 0.4)',
      }}
    >
      <div
        style={{
          display: 'flex',
          alignItems: 'center',
          gap: 8,
          padding: 6,
          borderBottom: `1px solid ${PALETTE.raised}`,
        }}
      >
        <button
          type="button"
          aria-label="Resize the panel (arrow keys, or drag)"
          title="Resize: drag, or arrow keys"
          onKeyDown={onHandleKey}
          onPointerDown={onHandlePointer}
          style={{ ...button, cursor: 'nwse-resize', touchAction: 'none' }}
        >
          ⤡
        </button>
        <div
          role="tablist"
          aria-label="Devtools views"
          style={{ display: 'flex', gap: 4, flex: 1, flexWrap: 'wrap' }}
        >
          {TABS.map((name, index) => (
            <button
              key={name}
              ref={(element) => {
                tabs.current[index] = element;
              }}
              type="button"
              role="tab"
              id={`${id}-tab-${index}`}
              aria-selected={tab === name}
              aria-controls={`${id}-panel`}
              tabIndex={tab === name ? 0 : -1}
              onClick={() => setTab(name)}
              onKeyDown={(event) => onTabKey(event, index)}
              style={{
                ...button,
                background: tab === name ? PALETTE.text : PALETTE.raised,
                color: tab === name ? PALETTE.background : PALETTE.text,
              }}
            >
              {name}
            </button>
          ))}
        </div>
        <button type="button" style={button} onClick={onClose} aria-label="Close the devtools">
          ✕
        </button>
      </div>
      <div
        role="tabpanel"
        id={`${id}-panel`}
        aria-labelledby={`${id}-tab-${TABS.indexOf(tab)}`}
        // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable region must be reachable by keyboard.
        tabIndex={0}
        style={{ flex: 1, overflow: 'auto', padding: 8 }}
      >
        {tab === 'Requests' && <Lanes lanes={snapshot.lanes} onClear={model.clearLanes} />}
        {tab === 'Cache' && <CacheTable cache={snapshot.cache} now={now} />}
        {tab === 'Breakers & queues' && <StateTables snapshot={snapshot} now={now} />}
      </div>
    </section>
  );
}
