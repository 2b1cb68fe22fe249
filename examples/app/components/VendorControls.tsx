import { useDevtoolsModel } from '../../../src/devtools/index';
import { useVendorControls } from '../hooks/useVendorControls';

/** The vendor's fault switches, with their labels. */
const FAULTS = [
  ['hang', 'Hang (never answer)'],
  ['reset', 'Reset (drop the connection)'],
] as const;

/** The demo vendor's latency and fault knobs, posted to `/api/controls` as they change. */
export function VendorControls() {
  const { controls, set, reset, error } = useVendorControls();
  const { clearLanes } = useDevtoolsModel();
  const resetAll = async () => {
    await reset();
    clearLanes();
  };
  return (
    <section className="card" aria-labelledby="controls-title">
      <h2 id="controls-title">Vendor controls</h2>
      {controls === undefined ? (
        <p className="muted">Loading…</p>
      ) : (
        <form className="controls" onSubmit={(event) => event.preventDefault()}>
          <label>
            Search delay (ms)
            <input
              type="number"
              min={0}
              step={50}
              value={controls.delay}
              onChange={(event) => set({ delay: event.currentTarget.valueAsNumber || 0 })}
            />
          </label>
          <label>
            503 rate ({Math.round(controls.failRate * 100)}%)
            <input
              type="range"
              min={0}
              max={1}
              step={0.1}
              value={controls.failRate}
              onChange={(event) => set({ failRate: event.currentTarget.valueAsNumber })}
            />
          </label>
          {FAULTS.map(([flag, label]) => (
            <label key={flag} className="check">
              <input
                type="checkbox"
                checked={controls[flag]}
                onChange={(event) => set({ [flag]: event.currentTarget.checked })}
              />
              {label}
            </label>
          ))}
          <button type="button" onClick={resetAll}>
            Restore defaults, clear ledger and trace
          </button>
        </form>
      )}
      {error && (
        <p role="alert" className="error">
          {error.message}
        </p>
      )}
    </section>
  );
}
