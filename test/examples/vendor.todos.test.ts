/**
 * The demo vendor's to-do endpoints, for the optimistic to-do page: the list changes only when a
 * write is answered, so an injected failure leaves it as it was. Over real sockets, no latency.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createDemoVendor, type DemoVendor } from '../../examples/vendor';

let vendor: DemoVendor | undefined;

afterEach(async () => {
  await vendor?.close();
  vendor = undefined;
});

async function start() {
  vendor = createDemoVendor({ delay: 0 });
  const origin = await vendor.listen();
  const call = async (method: string, path: string, body?: unknown) => {
    const response = await fetch(origin + path, {
      method,
      ...(body === undefined
        ? {}
        : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
    });
    return { status: response.status, body: await response.json() };
  };
  return { vendor, call };
}

describe('demo vendor to-dos', () => {
  it('adds, renames and deletes, answering each write with what it did', async () => {
    const { call } = await start();
    const { body: initial } = await call('GET', '/api/todos');
    expect(initial).toHaveLength(3);
    expect(await call('POST', '/api/todos', { title: ' Buy eggs ' })).toEqual({
      status: 201,
      body: { id: 4, title: 'Buy eggs' },
    });
    expect(await call('PUT', '/api/todos', { id: 4, title: 'Buy six eggs' })).toMatchObject({
      status: 200,
      body: { id: 4, title: 'Buy six eggs' },
    });
    expect(await call('DELETE', '/api/todos?id=1')).toEqual({ status: 200, body: { id: 1 } });
    const { body: after } = await call('GET', '/api/todos');
    expect(after.map((todo: { id: number }) => todo.id)).toEqual([2, 3, 4]);
    expect(await call('DELETE', '/api/todos?id=1')).toMatchObject({ status: 404 });
    expect(await call('POST', '/api/todos', { title: '' })).toMatchObject({ status: 400 });
    expect(await call('PUT', '/api/todos', { id: 'x', title: 'y' })).toMatchObject({ status: 400 });
  });

  it('a failure injected by the controls changes nothing', async () => {
    const { vendor, call } = await start();
    vendor.controls.failRate = 1;
    expect(await call('POST', '/api/todos', { title: 'never' })).toMatchObject({ status: 503 });
    vendor.controls.failRate = 0;
    expect((await call('GET', '/api/todos')).body).toHaveLength(3);
    expect(vendor.ledger().endpoints.todos).toMatchObject({ requests: 2, failed: 1, completed: 1 });
  });
});
