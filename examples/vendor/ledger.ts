/**
 * What the demo vendor saw: per-endpoint counters, the most recent requests and the charges it made.
 * The demo follows it (`GET /api/ledger/stream`, pushed on each change) to show, from the vendor's
 * side, that an abort in the browser really closed a socket, and that an idempotency key turned a
 * re-issued charge into a duplicate.
 */

/** The endpoints the ledger counts (controls and ledger requests are the demo's own, not counted). */
export type Endpoint = 'search' | 'flaky-search' | 'report' | 'upload' | 'charges' | 'people' | 'todos';

/** How one request ended. `pending` until the vendor answers, fails it, or the client hangs up. */
export type Outcome = 'pending' | 'completed' | 'hungUp' | 'failed';

/** Counters of one endpoint. */
export interface EndpointStats {
  /** Requests that arrived. */
  requests: number;
  /** Answered by the endpoint itself (a 4xx for a bad request included). */
  completed: number;
  /** The client closed the connection before the answer: its pending work was dropped. */
  hungUp: number;
  /** Ended by an injected fault: a 503 from `failRate`, or a `reset`. */
  failed: number;
}

/** One request, as the vendor saw it. Updated in place until it settles. */
export interface LedgerEntry {
  /** 1-based arrival order since the last reset. */
  n: number;
  /** Arrival time, ms since the epoch. */
  at: number;
  method: string;
  path: string;
  query: Record<string, string>;
  /** The status answered; absent while pending, after a hang-up, and for a reset. */
  status?: number;
  outcome: Outcome;
  /** `outcome === 'hungUp'`, spelled out for readers of the JSON. */
  hungUp: boolean;
  idempotencyKey?: string;
}

/** A charge the vendor created. Exactly one per idempotency key. */
export interface Charge {
  /** `ch_000001`, … in creation order. */
  id: string;
  key: string;
  amount: number;
  currency: string;
  /** ISO 8601. */
  createdAt: string;
}

/** `GET /api/ledger`: a copy, safe to keep. */
export interface LedgerSnapshot {
  endpoints: Record<Endpoint, EndpointStats>;
  charges: Charge[];
  /** The last {@link RECENT} requests, oldest first. */
  recent: LedgerEntry[];
}

/** How many entries `recent` keeps. */
export const RECENT = 200;

const emptyStats = (): Record<Endpoint, EndpointStats> => ({
  search: { requests: 0, completed: 0, hungUp: 0, failed: 0 },
  'flaky-search': { requests: 0, completed: 0, hungUp: 0, failed: 0 },
  report: { requests: 0, completed: 0, hungUp: 0, failed: 0 },
  upload: { requests: 0, completed: 0, hungUp: 0, failed: 0 },
  charges: { requests: 0, completed: 0, hungUp: 0, failed: 0 },
  people: { requests: 0, completed: 0, hungUp: 0, failed: 0 },
  todos: { requests: 0, completed: 0, hungUp: 0, failed: 0 },
});

/** The ledger of one demo vendor. */
export function createLedger() {
  let stats = emptyStats();
  let recent: LedgerEntry[] = [];
  let charges = new Map<string, Charge>();
  /** Entries opened since the last reset. One still in flight across a reset settles without counting. */
  let live = new WeakMap<LedgerEntry, Endpoint>();
  let n = 0;
  /** Never reset, so a charge id seen before a reset is never handed out again. */
  let chargeSeq = 0;
  const listeners = new Set<() => void>();
  const changed = () => {
    for (const listener of [...listeners]) listener();
  };

  return {
    /** Records an arriving request and returns its entry, to {@link settle} later. */
    open(endpoint: Endpoint, request: Pick<LedgerEntry, 'method' | 'path' | 'query' | 'idempotencyKey'>) {
      const entry: LedgerEntry = { n: ++n, at: Date.now(), ...request, outcome: 'pending', hungUp: false };
      live.set(entry, endpoint);
      stats[endpoint].requests++;
      recent.push(entry);
      if (recent.length > RECENT) recent.shift();
      changed();
      return entry;
    },
    /** Ends a request. Only the first call counts: an answer racing a hang-up is one or the other. */
    settle(entry: LedgerEntry, outcome: Exclude<Outcome, 'pending'>, status?: number): void {
      if (entry.outcome !== 'pending') return;
      entry.outcome = outcome;
      entry.hungUp = outcome === 'hungUp';
      if (status !== undefined) entry.status = status;
      const endpoint = live.get(entry);
      if (endpoint) stats[endpoint][outcome]++;
      changed();
    },
    /** The charge made for `key`, if any. */
    charge: (key: string): Charge | undefined => charges.get(key),
    /** Makes the charge for a key that has none yet. */
    createCharge(key: string, amount: number, currency: string): Charge {
      const charge = {
        id: `ch_${String(++chargeSeq).padStart(6, '0')}`,
        key,
        amount,
        currency,
        createdAt: new Date().toISOString(),
      };
      charges.set(key, charge);
      changed();
      return charge;
    },
    snapshot(): LedgerSnapshot {
      return structuredClone({ endpoints: stats, charges: [...charges.values()], recent });
    },
    /** Forgets every request and charge (charge ids keep counting up). */
    reset(): void {
      stats = emptyStats();
      recent = [];
      charges = new Map();
      live = new WeakMap();
      n = 0;
      changed();
    },
    /** Calls `listener` after each change; returns the function that stops it. */
    subscribe(listener: () => void): () => void {
      listeners.add(listener);
      return () => {
        listeners.delete(listener);
      };
    },
  };
}

/** See {@link createLedger}. */
export type Ledger = ReturnType<typeof createLedger>;
