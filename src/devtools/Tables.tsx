import type { DevtoolsSnapshot } from './model';
import { button, cell, duration, mono, PALETTE } from './theme';

const preview = (data: unknown) => {
  if (data === undefined) return '—';
  const text = JSON.stringify(data) ?? String(data);
  return text.length > 120 ? `${text.slice(0, 119)}…` : text;
};

/** Cache keys with their freshness, readers, a data preview and invalidate/refetch buttons. */
export function CacheTable({ cache, now }: { cache: DevtoolsSnapshot['cache']; now: number }) {
  if (cache.length === 0) return <p style={{ color: PALETTE.muted }}>The cache is empty.</p>;
  return (
    <table style={{ borderCollapse: 'collapse', width: '100%' }}>
      <thead>
        <tr>
          <th style={cell}>Key</th>
          <th style={cell}>State</th>
          <th style={cell}>Readers</th>
          <th style={cell}>Actions</th>
        </tr>
      </thead>
      <tbody>
        {cache.map((entry) => {
          const { snapshot } = entry;
          const state = snapshot.fetching
            ? 'fetching'
            : snapshot.error
              ? `error: ${snapshot.error.kind}`
              : snapshot.updatedAt === undefined
                ? 'empty'
                : `${duration(now - snapshot.updatedAt)} old`;
          return (
            <tr key={entry.key} data-testid="devtools-cache-entry" data-key={entry.key}>
              <td style={{ ...cell, ...mono, wordBreak: 'break-all' }}>
                {entry.key}
                <div style={{ color: PALETTE.muted }}>{preview(snapshot.data)}</div>
              </td>
              <td style={cell}>{state}</td>
              <td style={cell}>{entry.readers}</td>
              <td style={cell}>
                <button
                  type="button"
                  style={button}
                  onClick={entry.invalidate}
                  aria-label={`Invalidate ${entry.key}`}
                >
                  Invalidate
                </button>
                <button
                  type="button"
                  style={button}
                  onClick={entry.refetch}
                  disabled={!entry.refetch}
                  aria-label={`Refetch ${entry.key}`}
                >
                  Refetch
                </button>
              </td>
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}

const probeText = (state: DevtoolsSnapshot['breakers'][number]['state'], now: number) => {
  if (state.state === 'open') return `next probe in ${duration(Math.max(0, state.until - now))}`;
  if (state.state === 'half-open') return state.lease ? 'probe in flight' : 'next call probes';
  return `${state.failures} failure${state.failures === 1 ? '' : 's'}`;
};

/** Breakers by key (a URL origin unless a stitch names one) and throttle queues. */
export function StateTables({ snapshot, now }: { snapshot: DevtoolsSnapshot; now: number }) {
  const colour = {
    closed: PALETTE.status.answered,
    open: PALETTE.status.failed,
    'half-open': PALETTE.status.queued,
  };
  return (
    <div style={{ display: 'grid', gap: 12 }}>
      <section aria-label="Breakers">
        <h3 style={{ margin: '0 0 4px', fontSize: 'inherit' }}>Breakers</h3>
        {snapshot.breakers.length === 0 ? (
          <p style={{ color: PALETTE.muted, margin: 0 }}>No breaker has changed yet.</p>
        ) : (
          <ul style={{ listStyle: 'none', margin: 0, padding: 0 }}>
            {snapshot.breakers.map(({ key, state }) => (
              <li
                key={key}
                data-testid="devtools-breaker"
                data-state={state.state}
                style={{ padding: '2px 0' }}
              >
                <span style={mono}>{key}</span>{' '}
                <strong style={{ color: colour[state.state] }}>{state.state}</strong>{' '}
                <span style={{ color: PALETTE.muted }}>{probeText(state, now)}</span>
              </li>
            ))}
          </ul>
        )}
      </section>
      <section aria-label="Throttle queues">
        <h3 style={{ margin: '0 0 4px', fontSize: 'inherit' }}>Throttle queues</h3>
        {snapshot.throttles.length === 0 ? (
          <p style={{ color: PALETTE.muted, margin: 0 }}>No throttle in use.</p>
        ) : (
          <ul style={{ listStyle: 'none', margin: 0, padding: 0 }}>
            {snapshot.throttles.map(({ key, active, queued }) => (
              <li key={key} data-testid="devtools-throttle" style={{ padding: '2px 0' }}>
                <span style={mono}>{key}</span> {active} active · {queued} queued
              </li>
            ))}
          </ul>
        )}
      </section>
    </div>
  );
}
