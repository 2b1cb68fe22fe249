/**
 * Suite 3, engine overhead.
 *
 * Over the network: bare `fetch` + `res.json()` against Stitch with retry, timeout (each and
 * total), circuit breaker and throttle (concurrency and rate) all configured, none of them ever
 * triggered, against a keep-alive node:http vendor in another process on 127.0.0.1. Each call
 * has its own URL (`?i=n`), so Stitch's coalescer never merges two calls. At concurrency 1 and
 * 64: p50 and p99 latency, throughput, the client's CPU per call, and Stitch's ratio to bare
 * fetch. The two alternate in slices within each run, so both see the same load on the machine.
 *
 * In process, with a stub fetch that resolves a Response at once: wall and CPU ns per call for
 * (a) a cache hit, (b) the full pipeline, (c) each of 100 callers coalesced onto one execution;
 * the same policies composed with cockatiel, `wrap(timeout, retry, circuitBreaker, bulkhead)`,
 * around the same stub; Stitch with its policies switched on one by one; and what one pipeline
 * call allocates that Node makes costly (AbortControllers, timers, events).
 */
import { runSuite } from '../lib/child';
import { SETTINGS } from './overhead/calls';
import { inProcess } from './overhead/inProcess';
import { network } from './overhead/network';

runSuite(async () => {
  // In process first, on a fresh heap; the network part's heap and sockets do not matter to it.
  const stubbed = await inProcess();
  return { policies: SETTINGS, network: await network(), inProcess: stubbed };
});
