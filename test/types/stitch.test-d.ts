import { describe, expectTypeOf, it } from 'vitest';
import { z } from 'zod';
import {
  type CacheOptions,
  createEngine,
  type IdempotencyOptions,
  type IdempotencyValue,
  type InputFor,
  idempotency,
  isAbortError,
  isStitchError,
  type PathParamNames,
  type RunReport,
  type SafeResult,
  type Stitch,
  StitchError,
  type StitchEvent,
  type StitchRun,
  stitch,
  type TimeoutPhase,
} from '../../src/index';
import { idempotency as liteIdempotency, stitch as liteStitch } from '../../src/lite/index';

const User = z.object({ id: z.number(), name: z.string() });
type User = z.infer<typeof User>;

describe('stitch() typing', () => {
  it('infers the data type from a zod output schema', async () => {
    const getUser = stitch({ name: 'getUser', url: 'https://api.example.com/users/{id}', output: User });
    expectTypeOf(getUser).toEqualTypeOf<Stitch<User, InputFor<'https://api.example.com/users/{id}'>>>();
    const run = getUser({ params: { id: 7 } });
    expectTypeOf(run).toEqualTypeOf<StitchRun<User>>();
    expectTypeOf(await run).toEqualTypeOf<User>();
  });

  it('narrows safe() on ok', async () => {
    const getUser = stitch({ name: 'getUser', url: 'https://api.example.com/users/{id}', output: User });
    const result = await getUser({ params: { id: 7 } }).safe();
    expectTypeOf(result).toEqualTypeOf<SafeResult<User>>();
    if (result.ok) {
      expectTypeOf(result.data).toEqualTypeOf<User>();
      expectTypeOf(result.error).toEqualTypeOf<null>();
    } else {
      expectTypeOf(result.data).toEqualTypeOf<null>();
      expectTypeOf(result.error).toEqualTypeOf<StitchError>();
    }
  });

  it('takes an explicit data type', async () => {
    const getUser = stitch<User>({ name: 'getUser', url: 'https://api.example.com/users/{id}' });
    expectTypeOf(getUser).toEqualTypeOf<Stitch<User>>();
    expectTypeOf(await getUser()).toEqualTypeOf<User>();
  });

  it('defaults the data type to unknown without a schema', async () => {
    const ping = stitch({ name: 'ping', url: 'https://api.example.com/ping' });
    expectTypeOf(await ping()).toEqualTypeOf<unknown>();
  });

  it('rejects an output schema of a different type than the explicit one', () => {
    // @ts-expect-error the schema's output is not a string
    stitch<string>({ name: 'getUser', url: 'https://api.example.com/users/{id}', output: User });
  });

  it('types the call options', () => {
    const getUser = stitch({ name: 'getUser', url: 'https://api.example.com/users/{id}', output: User });
    expectTypeOf(getUser)
      .parameter(1)
      .toExtend<{ signal?: AbortSignal; idempotencyKey?: string } | undefined>();
  });
});

describe('inputs typed from the URL template and the input schema', () => {
  const getUser = stitch({ name: 'getUser', url: 'https://api.example.com/users/{id}', output: User });

  it('makes each {param} a required params field, and refuses others', () => {
    getUser({ params: { id: 7 } });
    getUser({ params: { id: '7' }, query: { fields: 'name' } });
    // @ts-expect-error the input is required: it has a path param
    getUser();
    // @ts-expect-error a misspelt param
    getUser({ params: { idd: 7 } });
    // @ts-expect-error params is required
    getUser({ query: { q: 'x' } });
    expectTypeOf<PathParamNames<'https://a.test/{org}/repos/{repo}'>>().toEqualTypeOf<'org' | 'repo'>();
  });

  it('reads params from a literal baseUrl too, and none from a URL typed only as string', () => {
    const listRepos = stitch({ name: 'repos', baseUrl: 'https://api.test/orgs/{org}', url: 'repos/{kind}' });
    listRepos({ params: { org: 'acme', kind: 'public' } });
    // @ts-expect-error the base's param is missing
    listRepos({ params: { kind: 'public' } });
    const dynamic: string = 'https://api.test/users/{id}';
    const loose = stitch({ name: 'loose', url: dynamic });
    loose();
    loose({ params: { anything: 1 } });
  });

  it('lets a URL without params be called without input, and refuses params on it', () => {
    const ping = stitch({ name: 'ping', url: 'https://api.example.com/ping' });
    ping();
    ping({ query: { verbose: true } });
    // @ts-expect-error the URL has no {id}
    ping({ params: { id: 7 } });
  });

  it('keeps the template’s params beside an idempotency(…) value or a shared cache options object', () => {
    const url = 'https://api.example.com/orders/{id}/pay';
    const keys = idempotency();
    const tenant: CacheOptions = { ttl: 30_000, scope: () => 'tenant' };
    const stitches = [
      stitch({ name: 'pay', method: 'POST', url, idempotency: idempotency() }),
      stitch({ name: 'payShared', method: 'POST', url, idempotency: keys }),
      liteStitch({ name: 'payLite', method: 'POST', url, idempotency: liteIdempotency() }),
      stitch({ name: 'order', url, cache: tenant }),
    ] as const;
    for (const pay of stitches) {
      expectTypeOf(pay).parameter(0).toEqualTypeOf<InputFor<typeof url>>();
      pay({ params: { id: 42 } });
      // @ts-expect-error the input is required: it has a path param
      pay();
      // @ts-expect-error a misspelt param
      pay({ params: { idd: 42 } });
    }
  });

  it('takes an input for getData and setData as a call does: required when the stitch needs one', () => {
    const engine = createEngine();
    const listAll = stitch<User[]>({ name: 'listAll', url: 'https://api.example.com/users' });
    expectTypeOf(engine.getData(getUser, { params: { id: 7 } })).toEqualTypeOf<User | undefined>();
    engine.setData(getUser, { params: { id: 7 } }, { id: 7, name: 'Ada' });
    engine.getData(listAll, undefined);
    engine.setData(listAll, undefined, []);
    // @ts-expect-error getUser needs its path param: no read has this key
    engine.getData(getUser, undefined);
    // @ts-expect-error getUser needs its path param: no read has this key
    engine.setData(getUser, undefined, { id: 7, name: 'Ada' });
  });

  it("takes the platform's fetch, or any function of a URL string and an init, as the engine's fetch", () => {
    createEngine({ fetch: globalThis.fetch });
    createEngine({ fetch: async (url: string) => new Response(url) });
    createEngine({
      fetch: (url: string, init?: RequestInit) => fetch(url, { ...init, credentials: 'include' }),
    });
    // @ts-expect-error it must answer a Response
    createEngine({ fetch: async (url: string) => url });
  });

  it('takes idempotency options typed as either form', () => {
    type Order = { body: { orderId: string } };
    const byOrder = (input: Order) => input.body.orderId;
    const flag = Math.random() > 0.5;
    expectTypeOf(idempotency(flag ? { keyOf: byOrder } : true)).toEqualTypeOf<IdempotencyValue<Order>>();
    const options: Exclude<IdempotencyOptions<Order>, false> = { keyOf: byOrder };
    expectTypeOf(idempotency(options)).toEqualTypeOf<IdempotencyValue<Order>>();
  });

  it('types the input from an input schema', () => {
    const Search = z.object({ query: z.object({ q: z.string().min(1), limit: z.number().optional() }) });
    const search = stitch({
      name: 'search',
      url: 'https://api.example.com/search',
      input: Search,
      output: User,
    });
    search({ query: { q: 'ada' } });
    // @ts-expect-error q must be a string
    search({ query: { q: 7 } });
    expectTypeOf(search).parameter(0).toEqualTypeOf<z.input<typeof Search>>();
  });

  it('takes a schema that coerces, once its input side is sendable (a field typed unknown is not)', () => {
    const ById = z.object({
      params: z.object({ id: z.union([z.string(), z.number()]).pipe(z.coerce.number()) }),
    });
    const getUser = stitch({ name: 'getUser', url: 'https://api.example.com/users/{id}', input: ById });
    getUser({ params: { id: '7' } });
    getUser({ params: { id: 7 } });
    const Loose = z.object({ params: z.object({ id: z.coerce.number() }) });
    // @ts-expect-error: z.coerce accepts unknown, which is not a param value
    stitch({ name: 'loose', url: 'https://api.example.com/users/{id}', input: Loose });
  });
});

describe('StitchEvent, guards and reports', () => {
  it('narrows an event by type', () => {
    const handle = (event: StitchEvent) => {
      if (event.type === 'cancel') {
        expectTypeOf(event.phase).toEqualTypeOf<
          'queued' | 'before-dispatch' | 'in-flight' | 'body' | 'backoff'
        >();
        expectTypeOf(event.dispatched).toEqualTypeOf<boolean>();
        expectTypeOf(event.reason).toEqualTypeOf<string>();
      }
      if (event.type === 'done') {
        expectTypeOf(event.outcome).toEqualTypeOf<'success' | 'error' | 'cancelled'>();
      }
      if (event.type === 'timeout') {
        expectTypeOf(event.phase).toEqualTypeOf<'each' | 'total'>();
      }
      expectTypeOf(event.at).toEqualTypeOf<number>();
      expectTypeOf(event.run).toEqualTypeOf<string>();
    };
    expectTypeOf(handle).toBeFunction();
  });

  it('narrows a StitchError by kind', () => {
    const check = (error: StitchError) => {
      if (error.kind === 'timeout') expectTypeOf(error.phase).toEqualTypeOf<'each' | 'total'>();
      if (error.kind === 'aborted') expectTypeOf(error.name).toEqualTypeOf<'AbortError'>();
      if (error.kind === 'http') expectTypeOf(error.status).toEqualTypeOf<number>();
      if (error.kind === 'circuit-open') expectTypeOf(error.retryAfter).toEqualTypeOf<number>();
      if (error.kind === 'config') expectTypeOf(error.field).toEqualTypeOf<string>();
      if (error.kind === 'network') expectTypeOf(error.phase).toEqualTypeOf<TimeoutPhase | undefined>();
      if (error.name === 'TimeoutError') expectTypeOf(error.phase).toEqualTypeOf<'each' | 'total'>();
      if (error.name === 'AbortError') expectTypeOf(error.kind).toEqualTypeOf<'aborted'>();
      if (error.name === 'StitchError') expectTypeOf(error.kind).not.toEqualTypeOf<StitchError['kind']>();
      expectTypeOf(error.cause).toEqualTypeOf<unknown>();
    };
    expectTypeOf(check).toBeFunction();
  });

  it('builds a StitchError only with what its kind promises (an http one has a status)', () => {
    expectTypeOf(
      new StitchError({ kind: 'http', status: 503, message: 'down' }),
    ).toEqualTypeOf<StitchError>();
    // @ts-expect-error: an http error without its status
    new StitchError({ kind: 'http', message: 'down' });
    // @ts-expect-error: a timeout without its phase
    new StitchError({ kind: 'timeout', message: 'slow' });
    // @ts-expect-error: a config error without its field
    new StitchError({ kind: 'config', message: 'wrong' });
    // @ts-expect-error: circuit-open without retryAfter
    new StitchError({ kind: 'circuit-open', message: 'open' });
  });

  it('narrows unknown with isAbortError, so the cause can be read', () => {
    const check = (error: unknown) => {
      if (isAbortError(error)) {
        expectTypeOf(error.cause).toEqualTypeOf<unknown>();
        expectTypeOf(error.name).toEqualTypeOf<'AbortError'>();
        expectTypeOf(error.message).toEqualTypeOf<string>();
        if (isStitchError(error)) expectTypeOf(error.kind).toEqualTypeOf<'aborted'>();
      }
    };
    expectTypeOf(check).toBeFunction();
  });

  it('narrows unknown to StitchError with isStitchError', () => {
    const check = (error: unknown) => {
      if (isStitchError(error)) {
        expectTypeOf(error).toEqualTypeOf<StitchError>();
        expectTypeOf(error.kind).toExtend<string>();
        expectTypeOf(error.dispatched).toEqualTypeOf<boolean>();
      }
    };
    expectTypeOf(check).toBeFunction();
  });

  it('is covariant in its data: a typed stitch and run fit where unknown ones are expected', () => {
    const getUser = stitch({ name: 'covariant', url: 'https://api.example.com/u', output: User });
    expectTypeOf(getUser()).toExtend<StitchRun<unknown>>();
    expectTypeOf(getUser).toExtend<Stitch<unknown>>();
  });

  it('says cancelled as a boolean in a report', () => {
    expectTypeOf<RunReport['cancelled']>().toEqualTypeOf<boolean>();
    expectTypeOf<RunReport['outcome']>().toEqualTypeOf<'success' | 'error' | 'cancelled'>();
  });

  it('says whether a cancel let go of anything', () => {
    expectTypeOf<StitchRun<unknown>['cancel']>().returns.toEqualTypeOf<boolean>();
  });
});
