import { expectTypeOf, it } from 'vitest';
import { stitch as main } from '../../src/index';
import { idempotency, retry, stitch } from '../../src/lite/index';

it('types the input from the URL template, with policies as values', () => {
  const getUser = stitch({ name: 'getUser', url: 'https://api.example.com/users/{id}', retry: retry(3) });
  expectTypeOf(getUser).parameter(0).toExtend<{ params: { id: string | number } }>();
  // @ts-expect-error the {id} param is required
  getUser({});
});

it("types keyOf's input from idempotency's type argument", () => {
  type Charge = { body: { order: string } };
  const charge = stitch<{ id: string }, Charge>({
    name: 'charge',
    method: 'POST',
    url: 'https://api.example.com/charges',
    idempotency: idempotency<Charge>({ keyOf: (input) => input.body.order }),
  });
  expectTypeOf(charge).parameter(0).toEqualTypeOf<Charge>();
});

it("keeps the URL template's params beside an idempotency value whose keyOf reads no input, on either entry", () => {
  const orderCharge = {
    name: 'charge',
    method: 'POST',
    url: 'https://api.example.com/orders/{id}/charge',
  } as const;
  const fromLite = stitch({ ...orderCharge, idempotency: idempotency({ keyOf: () => 'order-42' }) });
  const fromMain = main({ ...orderCharge, idempotency: idempotency({ keyOf: () => 'order-42' }) });
  for (const charge of [fromLite, fromMain]) {
    expectTypeOf(charge).parameter(0).toExtend<{ params: { id: string | number } }>();
    charge({ params: { id: 42 }, body: {} });
    // @ts-expect-error the {id} param is required
    charge({ body: {} });
  }
  // Its input, read in place, is any input.
  stitch({
    name: 'ping',
    method: 'POST',
    url: 'https://api.example.com/ping',
    idempotency: idempotency({ keyOf: (input) => String(input.headers?.['x-order']) }),
  });
  // Beside a template with params too: its params are there to read, and the stitch's input
  // still comes from the template.
  const charge = stitch({
    name: 'charge-in-place',
    method: 'POST',
    url: 'https://api.example.com/orders/{orderId}/charge',
    idempotency: idempotency({ keyOf: (input) => `charge-${input.params?.orderId}` }),
  });
  charge({ params: { orderId: 7 } });
  // @ts-expect-error the {orderId} param is required
  charge({ params: { id: 7 } });
});

it("types an untyped keyOf's input from the stitch's own type arguments, on either entry", () => {
  type Charge = { body: { order: string } };
  const config = { method: 'POST', url: 'https://api.example.com/charges' } as const;
  main<{ id: string }, Charge>({
    name: 'a',
    ...config,
    idempotency: idempotency({ keyOf: (input) => input.body.order }),
  });
  stitch<{ id: string }, Charge>({
    name: 'b',
    ...config,
    idempotency: idempotency({ keyOf: (input) => input.body.order }),
  });
});

it('refuses an options object where a value belongs', () => {
  // @ts-expect-error stitch-fetch/lite takes retry(…), not options
  stitch({ name: 's', url: 'https://api.example.com/s', retry: { attempts: 3 } });
});
