/**
 * Suite 2, fan-in: 1,000 components mount at once, all reading one key, through Stitch,
 * TanStack Query or SWR, against the real node:http vendor (50 ms latency). Counts the requests
 * the vendor receives, the time from `root.render` to the commit where the last of the 1,000
 * shows data, and the commits of those components. Repeated under StrictMode.
 */
import { runSuite } from '../lib/child';
import { COMPONENTS, LATENCY, mountOnce } from '../lib/fanin';
import { compareLibraries } from '../lib/session';
import { RUNS } from '../lib/stats';

/**
 * Rounds of the fan-in: three times the other suites' runs. A run takes a fraction of a second,
 * and its spread on the shared machine (about ±20 %) is wider than the gap between libraries.
 */
export const FANIN_RUNS = 3 * RUNS;

runSuite(async () => ({
  components: COMPONENTS,
  latencyMs: LATENCY,
  runs: FANIN_RUNS,
  rows: await compareLibraries('fan-in', mountOnce, FANIN_RUNS),
}));
