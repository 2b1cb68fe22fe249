/**
 * Idempotency records: a call under a caller-owned idempotency key first claims the key in the
 * engine's shared state. A key that already succeeded (in this process or another sharing the
 * store) resolves with the recorded data and sends nothing; a key another call holds is waited on
 * (bounded by the caller's signal and the total deadline) instead of being sent a second time; a
 * key whose run failed or was cancelled is freed, so it can be sent again.
 *
 *   A: claim ─ claimed ─ send ──────────── response ─ settle(done) ─┐
 *   B:            claim ─ pending ─ pause ·········· (woken or polled) ─ claim ─ done: A's data
 */
import { linkSignals, raceAbort } from './abort';
import type { Clock } from './clock';
import { type ExecutionContext, left, UNANSWERED } from './context';
import { reasonMessage } from './errors';
import { type ExecutionResult, expiredTotal } from './execution';
import { mintKey } from './idempotency';
import { hash, isPlainData } from './keys';
import { addHeaders } from './outgoing';
import type { Part } from './parts';
import type { Claim, IdempotencyRecord, SharedState } from './shared';
import { type LocalStore, lateOf, type Store } from './store';

/** How long a claim holds a key beyond the call's total deadline (or alone, without one). */
const LEASE_MARGIN = 5_000;
const LEASE_UNBOUNDED = 60_000;
/** Polling a key another process holds: the first pause, doubling up to the last. */
const FIRST_PAUSE = 20;
const LAST_PAUSE = 500;

/** Runs keyed calls through their records. */
export interface Ledger {
  /**
   * Runs `send` (the attempt loop, on the context's total deadline) under the record of the call's
   * idempotency key, scoped by stitch name, unless the record answers first. A recorded success
   * comes back with `recorded: true`; a success is recorded for `ttl` ms.
   */
  run<TData>(
    context: ExecutionContext<TData>,
    ttl: number,
    send: () => Promise<ExecutionResult<TData>>,
  ): Promise<ExecutionResult<TData>>;
}

/** The records' operations over any `Store` (the engine's own memory store by default). */
export function storeRecords(store: Store | LocalStore): Pick<SharedState, 'claim' | 'settle'> {
  return {
    async claim(key, owner, lease) {
      const storeKey = `idempotency:${key}`;
      // Anything but a record (a store shared with other code, or a corrupt one) fails the claim:
      // the call fails open rather than waiting for ever on something that never settles.
      const held = (current: IdempotencyRecord | undefined): Claim => {
        if (current === undefined) return { status: 'claimed' };
        // A success's data is never `undefined` (an output validator's transform to it is invalid).
        if (current?.state === 'done' && current.data !== undefined)
          return { status: 'done', data: current.data };
        if (current?.state !== 'pending' || typeof current.owner !== 'string')
          throw new Error(`the store holds something else than an idempotency record under ${storeKey}`);
        return current.owner === owner ? { status: 'claimed' } : { status: 'pending' };
      };
      const seen = await store.get<IdempotencyRecord>(storeKey);
      if (seen) return held(seen);
      const mine: IdempotencyRecord = { state: 'pending', owner };
      return held(await store.update<IdempotencyRecord>(storeKey, (current) => current ?? mine, lease));
    },
    async settle(key, owner, outcome, ttl) {
      const storeKey = `idempotency:${key}`;
      const current = await store.get<IdempotencyRecord>(storeKey);
      if (current && (current.state !== 'pending' || current.owner !== owner)) return;
      if (outcome) await store.set<IdempotencyRecord>(storeKey, { state: 'done', data: outcome.data }, ttl);
      else if (current) await store.delete(storeKey);
    },
  };
}

/** Creates the ledger over `shared`. Waiters in this process wake as soon as a key here settles. */
export function createLedger(shared: Pick<SharedState, 'claim' | 'settle'>): Ledger {
  const waiters = new Map<string, Set<() => void>>();
  // The keys calls of this engine are sending under, and how many: a duplicate here waits for
  // them however long they take (the claim's lease bounds the waits of other engines, here or in
  // other processes).
  const sending = new Map<string, number>();
  const stopSending = (key: string) => {
    const left = (sending.get(key) ?? 1) - 1;
    if (left > 0) sending.set(key, left);
    else sending.delete(key);
  };

  const wake = (key: string) => {
    const woken = waiters.get(key);
    waiters.delete(key);
    for (const wakeUp of woken ?? []) wakeUp();
  };

  /** Sleeps `ms` on the engine's clock, or less if `key` settles here first; rejects on abort. */
  const pause = async (clock: Clock, key: string, ms: number, signal: AbortSignal) => {
    const link = linkSignals(signal);
    const set = waiters.get(key) ?? new Set();
    waiters.set(key, set);
    const wakeUp = () => link.abort(undefined);
    set.add(wakeUp);
    try {
      await clock.sleep(ms, link.signal);
    } catch (error) {
      if (signal.aborted) throw error;
    } finally {
      set.delete(wakeUp);
      if (set.size === 0 && waiters.get(key) === set) waiters.delete(key);
      link.dispose();
    }
  };

  return {
    async run<TData>(
      context: ExecutionContext<TData>,
      ttl: number,
      send: () => Promise<ExecutionResult<TData>>,
    ): Promise<ExecutionResult<TData>> {
      const { definition, parts } = context;
      const key = context.idempotencyKey as string;
      // Another stitch (another endpoint) may use the same key for something else, and another
      // principal may send a key it chose to equal this one's: neither gets this record.
      // A list, not joined text: a name or key holding a `:` ('refund' and 'order:42', 'refund:order'
      // and '42') must not make another stitch's record, or a principal's, this one's.
      const recordKey = JSON.stringify([definition.name, await principalOf(context), key]);
      const total = context.lifetime;
      const lease = (definition.timeout.total ?? LEASE_UNBOUNDED - LEASE_MARGIN) + LEASE_MARGIN;
      const owner = mintKey();
      const storeError = (error: unknown) =>
        context.emit({ type: 'store', operation: 'idempotency', key, error: reasonMessage(error) });
      const stopped = (): ExecutionResult<TData> =>
        left(context) ? { type: 'aborted' } : expiredTotal(context, 0);
      // A caller gone while the digest was made claims nothing.
      if (total.signal.aborted) return stopped();
      const waitOnce = async (wait: number) => {
        if (wait === FIRST_PAUSE) context.emit({ type: 'idempotency', key, status: 'waiting' });
        await pause(parts.clock, recordKey, wait, total.signal);
      };
      for (let wait = FIRST_PAUSE; ; wait = Math.min(wait * 2, LAST_PAUSE)) {
        if (sending.has(recordKey)) {
          try {
            await waitOnce(wait);
          } catch {
            return stopped();
          }
          continue;
        }
        let claim: Claim;
        const claiming = shared.claim(recordKey, owner, lease);
        // A claim that lands after the call stopped waiting for it (its caller left, or the engine
        // gave up on a slow store, which still runs it once it answers again) must not hold the
        // key until its lease ends: it is settled as the call ended.
        const settleLate = (outcome: { data: unknown } | undefined) =>
          claiming
            .then(
              (late) => late.status === 'claimed',
              // Given up on, it may land yet (the claim, or the store write under it): settled by
              // its owner once it has (a record someone else holds is left alone).
              (error: unknown) => lateOf(error)?.then(() => true) ?? false,
            )
            .then((landed) => (landed ? shared.settle(recordKey, owner, outcome, ttl) : undefined))
            .then(
              () => wake(recordKey),
              () => wake(recordKey),
            );
        try {
          claim = await raceAbort(claiming, total.signal);
        } catch (error) {
          if (total.signal.aborted) {
            settleLate(undefined);
            // The deadline, not the caller, ended the wait: the run says the store was why.
            if (!left(context)) storeError(UNANSWERED);
            return stopped();
          }
          // Fail open: an unreachable store must not stop the write, only its de-duplication.
          storeError(error);
          const result = await send();
          settleLate(recordedOutcome(result));
          return result;
        }
        if (claim.status === 'done') {
          context.emit({ type: 'idempotency', key, status: 'recorded' });
          return { type: 'success', data: claim.data as TData, recorded: true };
        }
        if (claim.status === 'claimed') {
          sending.set(recordKey, (sending.get(recordKey) ?? 0) + 1);
          let result: ExecutionResult<TData>;
          try {
            result = await send();
          } finally {
            stopSending(recordKey);
          }
          const outcome = recordedOutcome(result);
          // The record is written even when the caller has gone; only the wait for it is bounded.
          const settling = shared.settle(recordKey, owner, outcome, ttl).then(
            () => undefined,
            (error: unknown) => ({ error }),
          );
          settling.then(() => wake(recordKey));
          const failed = await raceAbort(settling, total.signal).catch(() => undefined);
          if (failed) storeError(failed.error);
          return result;
        }
        try {
          await waitOnce(wait);
        } catch {
          return stopped();
        }
      }
    },
  };
}

/**
 * Whose call it is, as a record's key says: a digest of the credentials it carries (its secret
 * headers, those the engine's `headers` hook adds included, and its secret query values), so a
 * record answers only calls of the principal that made it, as a vendor scopes its keys by
 * account. The same in every process sharing the store: SHA-256 where the platform has it (a key
 * in Redis must not reveal a password), else a 64-bit hash. Empty for a call without any.
 */
async function principalOf(context: ExecutionContext<unknown>): Promise<string> {
  const { request, parts } = context;
  let headers = request.headers;
  // The first attempt's, as the hook will make them (it is asked once more for this, as a preview).
  if (parts.headers) {
    headers = new Headers(headers);
    addHeaders(parts.headers, context, 1, true, headers);
  }
  const credentials: string[] = [];
  headers.forEach((value, name) => {
    if (parts.secret.has(name)) credentials.push(`${name}: ${value}`);
  });
  credentials.push(...request.secrets);
  if (credentials.length === 0) return '';
  const text = JSON.stringify(credentials);
  const subtle = globalThis.crypto?.subtle;
  if (!subtle) return hash(text);
  const digest = new Uint8Array(await subtle.digest('SHA-256', new TextEncoder().encode(text)));
  return Array.from(digest, (byte) => byte.toString(16).padStart(2, '0')).join('');
}

/** What a record keeps of a run: the data of a success that can be stored as it is, else nothing. */
function recordedOutcome(result: ExecutionResult<unknown>): { data: unknown } | undefined {
  return result.type === 'success' && isPlainData(result.data) ? { data: result.data } : undefined;
}

/**
 * The engine's idempotency records, over the store's own operations where it has them (Redis's),
 * else over the engine's store: made by the first call under a key its caller owns.
 */
export const records: Part<Ledger> = {
  name: 'stitch-fetch/idempotency-records@1',
  create: ({ shared, store }) => createLedger(shared ?? storeRecords(store)),
};
