import { describe, expect, it } from 'vitest';
import {
  type Admission,
  type CircuitOptions,
  type CircuitOutcome,
  type CircuitPolicy,
  type CircuitTransition,
  createCircuit,
  normalizeCircuit,
  storeCircuit,
} from '../../src/engine/circuit';
import { isStitchError } from '../../src/engine/errors';
import { createMemoryStore, type Store } from '../../src/engine/store';
import { createManualClock } from '../helpers/clock';
import { uniqueKey } from '../helpers/keys';
import { thrownBy } from '../helpers/throws';

/** A fresh breaker on a manual clock, recording its transitions and store errors. */
function setup(store?: (memory: Store) => Store) {
  const clock = createManualClock(1_000);
  const memory = createMemoryStore(clock.now);
  const transitions: CircuitTransition[] = [];
  const storeErrors: unknown[] = [];
  const circuit = createCircuit({
    shared: { circuit: storeCircuit(store ? store(memory) : memory, clock.now) },
    onTransition: (t) => transitions.push(t),
    onStoreError: (error) => storeErrors.push(error),
  });
  const key = uniqueKey('origin');
  /** Admits a caller, failing the test if the breaker refuses it. */
  const admit = async (policy: CircuitPolicy): Promise<Admission> => {
    const result = await circuit.admit(key, policy);
    if (!result.admitted) throw new Error(`refused while ${result.state}`);
    return result.admission;
  };
  const call = async (policy: CircuitPolicy, outcome: CircuitOutcome) =>
    (await admit(policy)).record(outcome);
  /** The `from→to` of each transition so far, in order. */
  const moves = () => transitions.map((t) => `${t.from}→${t.to}`);
  return { clock, memory, circuit, key, admit, call, moves, transitions, storeErrors };
}

const policyOf = (options: CircuitOptions = {}) => normalizeCircuit(options, 'test') as CircuitPolicy;
const consecutive = policyOf({ failures: 5, cooldown: 10_000, probeTimeout: 2_000 });

/** What `admit` answers when the breaker refuses a caller: exactly this, nothing more. */
const refused = (retryAfter: number, state: 'open' | 'half-open') => ({ admitted: false, retryAfter, state });

/** Opens the breaker of `t` with five failures. */
async function open(t: ReturnType<typeof setup>) {
  for (let i = 0; i < 5; i++) await t.call(consecutive, 'failure');
  expect((await t.circuit.state(t.key)).state).toBe('open');
}

/** Opens the breaker, waits out the cooldown and takes the probe lease. */
async function probe(t: ReturnType<typeof setup>) {
  await open(t);
  await t.clock.advance(10_000);
  const admission = await t.admit(consecutive);
  expect(admission.probe).toBe(true);
  return admission;
}

describe('closed', () => {
  it('opens after 5 consecutive failures; a success in between resets the count', async () => {
    const t = setup();
    for (let i = 0; i < 4; i++) await t.call(consecutive, 'failure');
    expect(await t.circuit.state(t.key)).toEqual({ state: 'closed', failures: 4 });
    await t.call(consecutive, 'success');
    expect(await t.circuit.state(t.key)).toEqual({ state: 'closed', failures: 0 });
    for (let i = 0; i < 4; i++) await t.call(consecutive, 'failure');
    expect((await t.circuit.state(t.key)).state).toBe('closed');
    await t.call(consecutive, 'failure');
    expect(await t.circuit.state(t.key)).toEqual({ state: 'open', until: 1_000 + 10_000 });
    expect(t.transitions).toEqual([{ key: t.key, from: 'closed', to: 'open' }]);
  });

  it('a success resets failures counted while it was in flight, though it was admitted with none', async () => {
    const t = setup();
    // Admitted with nothing counted: its success would change nothing, unless others fail meanwhile.
    const slow = await t.admit(consecutive);
    for (let i = 0; i < 4; i++) await t.call(consecutive, 'failure');
    await slow.record('success');
    expect(await t.circuit.state(t.key)).toEqual({ state: 'closed', failures: 0 });
    await t.call(consecutive, 'failure');
    expect(await t.circuit.state(t.key)).toEqual({ state: 'closed', failures: 1 });
  });

  it('a success resets failures counted while its admit’s answer travelled back (a store across the network)', async () => {
    // The store answers each read as it stands; the answer to the next one is held until released.
    let hold: Promise<void> | undefined;
    const t = setup((memory) => ({
      ...memory,
      get: async <T>(key: string) => {
        const read = await memory.get<T>(key);
        const held = hold;
        hold = undefined;
        await held;
        return read;
      },
    }));
    let release = () => {};
    hold = new Promise((resolve) => {
      release = resolve;
    });
    // The store admits A with nothing counted; its answer is still on the way.
    const admitting = t.circuit.admit(t.key, consecutive);
    for (let i = 0; i < 4; i++) await t.call(consecutive, 'failure');
    release();
    const slow = await admitting;
    if (!slow.admitted) throw new Error('refused');
    await slow.admission.record('success');
    expect(await t.circuit.state(t.key)).toEqual({ state: 'closed', failures: 0 });
  });

  it('adds up failures spaced minutes apart (a vendor failing now and then), and forgets them after a quiet day', async () => {
    const t = setup();
    for (let i = 0; i < 4; i++) {
      await t.call(consecutive, 'failure');
      await t.clock.advance(5 * 60_000);
    }
    await t.call(consecutive, 'failure');
    expect((await t.circuit.state(t.key)).state).toBe('open');

    const quiet = setup();
    for (let i = 0; i < 4; i++) await quiet.call(consecutive, 'failure');
    await quiet.clock.advance(86_400_000);
    await quiet.call(consecutive, 'failure');
    expect(await quiet.circuit.state(quiet.key)).toEqual({ state: 'closed', failures: 1 });
  });

  it('never opens on neutral outcomes (caller aborts), even 100 of them', async () => {
    const t = setup();
    await t.call(consecutive, 'failure');
    for (let i = 0; i < 100; i++) await t.call(consecutive, 'neutral');
    expect(await t.circuit.state(t.key)).toEqual({ state: 'closed', failures: 1 });
    expect(t.transitions).toEqual([]);
  });

  it('reads closed with 0 failures when nothing is stored, under the key circuit:<key>', async () => {
    const t = setup();
    expect(await t.circuit.state(t.key)).toEqual({ state: 'closed', failures: 0 });
    await t.call(consecutive, 'failure');
    expect(await t.memory.get(`circuit:${t.key}`)).toEqual({ state: 'closed', failures: 1 });
  });

  it('keeps breakers with different keys apart', async () => {
    const t = setup();
    await open(t);
    const other = await t.circuit.admit(uniqueKey('other-origin'), consecutive);
    expect(other.admitted).toBe(true);
  });

  it('records only the first outcome of an admission', async () => {
    const t = setup();
    const admission = await t.admit(consecutive);
    for (let i = 0; i < 5; i++) await admission.record('failure');
    expect(await t.circuit.state(t.key)).toEqual({ state: 'closed', failures: 1 });
  });
});

describe('open', () => {
  it('rejects with retryAfter until the cooldown ends, then lets one probe through', async () => {
    const t = setup();
    await open(t);
    expect(await t.circuit.admit(t.key, consecutive)).toEqual(refused(10_000, 'open'));
    await t.clock.advance(9_999);
    expect(await t.circuit.admit(t.key, consecutive)).toEqual(refused(1, 'open'));
    await t.clock.advance(1);
    const admission = await t.admit(consecutive);
    expect(admission.probe).toBe(true);
    expect(await t.circuit.state(t.key)).toMatchObject({
      state: 'half-open',
      lease: { expires: 11_000 + 2_000 },
    });
    expect(t.moves()).toEqual(['closed→open', 'open→half-open']);
  });

  it('ignores late outcomes of calls admitted while it was still closed', async () => {
    const t = setup();
    const late = await Promise.all([t.admit(consecutive), t.admit(consecutive)]);
    await open(t);
    await t.clock.advance(5_000);
    await late[0]?.record('failure'); // must not extend `until`
    await late[1]?.record('success'); // must not close it
    expect(await t.circuit.state(t.key)).toEqual({ state: 'open', until: 11_000 });
    expect(t.moves()).toEqual(['closed→open']);
  });
});

describe('half-open', () => {
  it('admits exactly one probe among 10 concurrent callers; the others wait for its lease', async () => {
    const t = setup();
    await open(t);
    await t.clock.advance(10_000);
    const results = await Promise.all(Array.from({ length: 10 }, () => t.circuit.admit(t.key, consecutive)));
    const probes = results.filter((r) => r.admitted && r.admission.probe);
    expect(probes).toHaveLength(1);
    expect(results.filter((r) => r.admitted)).toHaveLength(1);
    for (const r of results.filter((r) => !r.admitted)) {
      expect(r).toEqual({ admitted: false, retryAfter: 2_000, state: 'half-open' });
    }
  });

  it('closes on probe success', async () => {
    const t = setup();
    await (await probe(t)).record('success');
    expect(await t.circuit.state(t.key)).toEqual({ state: 'closed', failures: 0 });
    expect(t.moves()).toEqual(['closed→open', 'open→half-open', 'half-open→closed']);
    expect((await t.admit(consecutive)).probe).toBe(false);
  });

  it('re-opens for another cooldown on probe failure', async () => {
    const t = setup();
    const admission = await probe(t);
    await t.clock.advance(500);
    await admission.record('failure');
    expect(await t.circuit.state(t.key)).toEqual({ state: 'open', until: 11_500 + 10_000 });
    expect(t.moves()).toEqual(['closed→open', 'open→half-open', 'half-open→open']);
    expect(await t.circuit.admit(t.key, consecutive)).toMatchObject({ admitted: false, state: 'open' });
  });

  it('frees the lease when the probe is aborted (neutral), so the next caller probes', async () => {
    const t = setup();
    const aborted = await probe(t);
    expect(await t.circuit.admit(t.key, consecutive)).toMatchObject({ admitted: false, state: 'half-open' });
    await aborted.record('neutral');
    expect(await t.circuit.state(t.key)).toEqual({ state: 'half-open', lease: null });
    const next = await t.admit(consecutive);
    expect(next.probe).toBe(true);
    await next.record('success');
    expect((await t.circuit.state(t.key)).state).toBe('closed');
    // The aborted probe neither closed nor re-opened the breaker.
    expect(t.moves()).toEqual(['closed→open', 'open→half-open', 'half-open→closed']);
  });

  it('lets another caller probe once a hung probe lease expires, and ignores the hung one', async () => {
    const t = setup();
    const hung = await probe(t);
    await t.clock.advance(1_999);
    expect(await t.circuit.admit(t.key, consecutive)).toEqual(refused(1, 'half-open'));
    await t.clock.advance(1);
    const second = await t.admit(consecutive);
    expect(second.probe).toBe(true);
    await hung.record('failure'); // its lease is gone: must not re-open
    expect((await t.circuit.state(t.key)).state).toBe('half-open');
    await second.record('success');
    expect((await t.circuit.state(t.key)).state).toBe('closed');
  });
});

describe('rolling window', () => {
  // 10 s window in 10 buckets of 1 s; open at 50% failures over at least 4 calls.
  const rolling = policyOf({
    cooldown: 10_000,
    window: { size: 10_000, buckets: 10, ratio: 0.5, minimum: 4 },
  });

  it('opens on the failure ratio only once the window holds the minimum volume', async () => {
    const t = setup();
    for (let i = 0; i < 3; i++) await t.call(rolling, 'failure'); // 100% failures, but only 3 calls
    expect(await t.circuit.state(t.key)).toMatchObject({ state: 'closed', failures: 3 });
    await t.call(rolling, 'success');
    await t.call(rolling, 'success'); // 3 of 5: ratio 0.6, but only a failure opens
    expect((await t.circuit.state(t.key)).state).toBe('closed');
    await t.call(rolling, 'failure'); // 4 of 6
    expect(await t.circuit.state(t.key)).toEqual({ state: 'open', until: 11_000 });
    expect(t.moves()).toEqual(['closed→open']);
  });

  it('stays closed below the ratio', async () => {
    const t = setup();
    for (let i = 0; i < 30; i++) await t.call(rolling, i % 3 === 2 ? 'failure' : 'success');
    expect(await t.circuit.state(t.key)).toMatchObject({ state: 'closed', failures: 10 });
  });

  it('forgets buckets older than the window', async () => {
    const t = setup();
    for (let i = 0; i < 3; i++) await t.call(rolling, 'failure');
    await t.clock.advance(5_000);
    await t.call(rolling, 'success');
    await t.clock.advance(5_000); // the 3 failures at t=1 000 have left the window
    await t.call(rolling, 'failure');
    const state = await t.circuit.state(t.key);
    expect(state).toEqual({
      state: 'closed',
      failures: 1,
      buckets: [
        { start: 6_000, successes: 1, failures: 0 },
        { start: 11_000, successes: 0, failures: 1 },
      ],
    });
  });
});

describe('a failing store', () => {
  it('fails open when reads throw: admits, counts nothing, reports the error', async () => {
    const down = new Error('store unreachable');
    const t = setup((memory) => ({
      ...memory,
      get: () => Promise.reject(down),
      update: () => Promise.reject(down),
    }));
    const result = await t.circuit.admit(t.key, consecutive);
    expect(result.admitted).toBe(true);
    if (result.admitted) expect(await result.admission.record('failure')).toBeUndefined();
    expect(t.storeErrors).toEqual([down]);
  });

  it('swallows and reports a record that cannot be written', async () => {
    const down = new Error('write failed');
    const t = setup((memory) => ({ ...memory, update: () => Promise.reject(down) }));
    const admission = await t.admit(consecutive);
    await expect(admission.record('failure')).resolves.toBeUndefined();
    expect(t.storeErrors).toEqual([down]);
  });
});

describe('store contract', () => {
  it('stays correct when the backend runs a transition more than once (a retried atomic write)', async () => {
    const t = setup((memory) => ({
      ...memory,
      update: async (key, transition, ttl) => {
        transition(await memory.get(key)); // the attempt that lost a race, thrown away
        return memory.update(key, transition, ttl);
      },
    }));
    await open(t);
    await t.clock.advance(10_000);
    const results = await Promise.all(Array.from({ length: 5 }, () => t.circuit.admit(t.key, consecutive)));
    const probes = results.flatMap((r) => (r.admitted && r.admission.probe ? [r.admission] : []));
    expect(probes).toHaveLength(1);
    await probes[0]?.record('success');
    expect(t.moves()).toEqual(['closed→open', 'open→half-open', 'half-open→closed']);
  });

  it("tells a caller's own listener only the transitions its admit and record caused", async () => {
    const t = setup();
    for (let i = 0; i < 4; i++) await t.call(consecutive, 'failure');
    const heard: Record<'opener' | 'prober' | 'bystander', string[]> = {
      opener: [],
      prober: [],
      bystander: [],
    };
    const listen = (who: keyof typeof heard) => ({
      transition: (x: CircuitTransition) => heard[who].push(`${x.from}→${x.to}`),
    });
    const opener = await t.circuit.admit(t.key, consecutive, listen('opener'));
    if (opener.admitted) await opener.admission.record('failure');
    await t.clock.advance(10_000);
    const prober = await t.circuit.admit(t.key, consecutive, listen('prober'));
    await t.circuit.admit(t.key, consecutive, listen('bystander'));
    if (prober.admitted) await prober.admission.record('success');
    expect(heard).toEqual({
      opener: ['closed→open'],
      prober: ['open→half-open', 'half-open→closed'],
      bystander: [],
    });
    expect(t.moves()).toEqual(['closed→open', 'open→half-open', 'half-open→closed']);
  });

  it('keeps working when the transition listener throws', async () => {
    const clock = createManualClock();
    const circuit = createCircuit({
      shared: { circuit: storeCircuit(createMemoryStore(clock.now), clock.now) },
      onTransition: () => {
        throw new Error('listener bug');
      },
    });
    const key = uniqueKey('origin');
    for (let i = 0; i < 5; i++) {
      const result = await circuit.admit(key, consecutive);
      if (result.admitted) await result.admission.record('failure');
    }
    expect(await circuit.admit(key, consecutive)).toMatchObject({ admitted: false, state: 'open' });
  });
});

describe('normalizeCircuit', () => {
  const defaults = { key: undefined, failures: 5, cooldown: 30_000, probeTimeout: 30_000, window: undefined };

  it('turns the breaker on with defaults for undefined and true, off for false', () => {
    expect(normalizeCircuit(undefined, 'test')).toMatchObject(defaults);
    expect(normalizeCircuit(true, 'test')).toMatchObject(defaults);
    expect(normalizeCircuit(false, 'test')).toBeUndefined();
    const policy = policyOf();
    expect([policy.isFailureStatus(499), policy.isFailureStatus(500), policy.isFailureStatus(503)]).toEqual([
      false,
      true,
      true,
    ]);
  });

  it('fills window defaults and keeps given values', () => {
    expect(policyOf({ key: 'payments', cooldown: 5_000, window: { ratio: 0.25 } })).toMatchObject({
      key: 'payments',
      cooldown: 5_000,
      probeTimeout: 5_000,
      window: { size: 60_000, buckets: 10, ratio: 0.25, minimum: 10 },
    });
  });

  it.each([
    ['circuit.failures', { failures: 0 }],
    ['circuit.failures', { failures: 2.5 }],
    ['circuit.cooldown', { cooldown: -1 }],
    ['circuit.probeTimeout', { probeTimeout: Number.NaN }],
    ['circuit.window.ratio', { window: { ratio: 1.5 } }],
    ['circuit.window.buckets', { window: { buckets: 0 } }],
    ['circuit.key', { key: '' }],
  ])('throws a config StitchError naming %s', (field, options) => {
    const thrown = thrownBy(() => normalizeCircuit(options, 'searchUsers'));
    expect(isStitchError(thrown)).toBe(true);
    expect(thrown).toMatchObject({ kind: 'config', field, stitch: 'searchUsers' });
  });
});
