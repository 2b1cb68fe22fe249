/**
 * The vendor of the React suites: the project's own test vendor (a real node:http server with a
 * ledger of arrivals, answers, hang-ups and bytes sent), answering `GET /search?q=…` after a
 * fixed latency with a list of results. A client that hangs up during the wait gets nothing:
 * the vendor's ledger then shows the request as hung up, with 0 bytes sent.
 */
import { createVendor, type LedgerEntry, type Vendor } from '../../test/helpers/vendor';
import { sleep } from './stats';

const ITEMS = 20;

function results(query: string) {
  return {
    query,
    items: Array.from({ length: ITEMS }, (_, id) => ({
      id,
      name: `${query} — result ${id + 1} of ${ITEMS}, with a description long enough to look like one`,
      score: Math.round((1 - id / ITEMS) * 1000) / 1000,
    })),
  };
}

/** Starts a vendor that answers every request after `latency` ms. */
export function searchVendor(latency: number): Promise<Vendor> {
  return createVendor({
    respond: async (entry: LedgerEntry) => {
      await sleep(latency);
      return { status: 200, body: results(entry.query.get('q') ?? '') };
    },
  });
}

/** What the vendor's ledger says about a run. */
export function ledgerTotals(vendor: Vendor) {
  const { ledger } = vendor;
  return {
    started: ledger.length,
    completed: ledger.filter((entry) => entry.answered).length,
    hungUp: ledger.filter((entry) => entry.hungUp).length,
    bytesSent: ledger.reduce((sum, entry) => sum + entry.bytesSent, 0),
  };
}

/**
 * Resolves once every request that has arrived is over (answered or hung up) and none arrived
 * for `quiet` ms; gives up after `limit` ms (a library that keeps polling would otherwise hang).
 */
export async function vendorIdle(vendor: Vendor, quiet: number, limit: number): Promise<boolean> {
  const deadline = performance.now() + limit;
  while (performance.now() < deadline) {
    const seen = vendor.requests();
    const open = vendor.ledger.filter((entry) => !entry.answered && !entry.hungUp).map((entry) => entry.n);
    if (open.length > 0) {
      await Promise.race([
        Promise.all(open.map((n) => vendor.finished(n))),
        sleep(deadline - performance.now()),
      ]);
      continue;
    }
    await sleep(quiet);
    if (vendor.requests() === seen) return true;
  }
  return false;
}
