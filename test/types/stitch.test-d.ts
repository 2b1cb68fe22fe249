import { describe, expectTypeOf, it } from 'vitest';
import { z } from 'zod';
import {
  isStitchError,
  type RunReport,
  type SafeResult,
  type Stitch,
  type StitchError,
  type StitchEvent,
  type StitchRun,
  stitch,
} from '../../src/index';

const User = z.object({ id: z.number(), name: z.string() });
type User = z.infer<typeof User>;

describe('stitch() typing', () => {
  it('infers the data type from a zod output schema', async () => {
    const getUser = stitch({ name: 'getUser', url: 'https://api.example.com/users/{id}', output: User });
    expectTypeOf(getUser).toEqualTypeOf<Stitch<User>>();
    const run = getUser({ params: { id: 7 } });
    expectTypeOf(run).toEqualTypeOf<StitchRun<User>>();
    expectTypeOf(await run).toEqualTypeOf<User>();
  });

  it('narrows safe() on ok', async () => {
    const getUser = stitch({ name: 'getUser', url: 'https://api.example.com/users/{id}', output: User });
    const result = await getUser().safe();
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
});
