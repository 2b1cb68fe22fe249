/**
 * SPEC §3, `useStitchMutation`: one idempotency key per user intent. After an ambiguous failure
 * (the user cancelled after the write left), re-issuing the same intent reuses the key, so the
 * vendor sees a duplicate, not a second charge; `reset()` or a success starts a new intent.
 */
import { act, render, renderHook, screen } from '@testing-library/react';
import { Suspense, startTransition, useLayoutEffect, useState } from 'react';
import { describe, expect, it, vi } from 'vitest';
import { type Stitch, type StitchInput, stitch } from '../../src/index';
import { useStitchMutation, useSuspenseStitch } from '../../src/react/index';
import { uniqueKey } from '../helpers/keys';
import { type Charge, type ChargeInput, chargeStitch, paymentLedger } from '../helpers/payments';
import type { Vendor } from '../helpers/vendor';
import { actAtOnce, flushMicrotasks, setup } from './harness';

const order: ChargeInput = { body: { orderId: 'order-42', amount: 1_999 } };
const another: ChargeInput = { body: { orderId: 'order-43', amount: 500 } };

async function paymentVendor() {
  const payments = paymentLedger();
  const harness = await setup({ respond: payments.respond });
  return { ...harness, charges: payments.charges, slow: payments.slow };
}

/**
 * A mutation of a charge stitch on the payment vendor, whose first write (of `order`) the vendor
 * has charged but holds the answer to: the write is in flight until the test releases it.
 */
async function firstChargeHeld() {
  const harness = await paymentVendor();
  const charge = chargeStitch(harness.vendor);
  const { result } = renderHook(() => useStitchMutation(charge), { wrapper: harness.wrapper });
  harness.slow.add(1);
  act(() => result.current.mutate(order));
  return { ...harness, result };
}

/** The Idempotency-Key each request carried, in arrival order. */
const keysSent = (vendor: Vendor) => vendor.ledger.map((entry) => entry.headers['idempotency-key']);

describe('one idempotency key per intent', () => {
  it('a write cancelled after it left is re-issued with the same key: the vendor charges once', async () => {
    const { vendor, settle, charges, result } = await firstChargeHeld();
    expect(result.current.status).toBe('pending');
    const first = await vendor.arrival(1);
    const key = first.headers['idempotency-key'];
    expect(key).toBe(result.current.idempotencyKey);

    const reason = new Error('the user closed the dialog');
    await actAtOnce(() => result.current.cancel(reason));
    expect(result.current).toMatchObject({
      status: 'error',
      data: undefined,
      error: { kind: 'aborted', name: 'AbortError', dispatched: true, ambiguous: true, idempotencyKey: key },
    });
    expect(result.current.error?.cause).toBe(reason);
    expect(await vendor.hangUp(1)).toMatchObject({ hungUp: true });
    expect(charges.size).toBe(1);

    // The user tries again: the same intent, the same key; the vendor replays the charge.
    await settle(() => result.current.mutate(order));
    expect(result.current).toMatchObject({
      status: 'success',
      error: null,
      data: { id: 'ch_1', ...order.body },
    });
    expect(keysSent(vendor)).toEqual([key, key]);
    expect(charges.size).toBe(1);

    // A success ends the intent: the next write is a new one, with a new key.
    expect(result.current.idempotencyKey).not.toBe(key);
    await settle(() => result.current.mutate(another));
    expect(result.current).toMatchObject({ status: 'success', data: { id: 'ch_2', ...another.body } });
    const third = keysSent(vendor)[2];
    expect(third).toEqual(expect.any(String));
    expect(third).not.toBe(key);
    expect(charges.size).toBe(2);
  });

  it('keeps the record of a key it renewed after success for a minute, not a day', async () => {
    const { vendor, settle, engine, clock, wrapper } = await paymentVendor();
    const charge = chargeStitch(vendor);
    const { result } = renderHook(() => useStitchMutation(charge), { wrapper });
    const key = result.current.idempotencyKey;
    await settle(() => result.current.mutate(order));
    expect(result.current.idempotencyKey).not.toBe(key);
    // Whoever sends the old key (nobody can from the hook) is answered from the record, briefly.
    const again = () => charge(order, { engine, idempotencyKey: key }).report();
    expect((await again()).source).toBe('recorded');
    await act(() => clock.advance(59_999));
    expect((await again()).source).toBe('recorded');
    await act(() => clock.advance(1));
    // The record has gone: an autosave every few seconds no longer holds a day of answers.
    expect((await again()).source).toBe('live');
    expect(vendor.requests()).toBe(2);
  });

  it('reset() starts a new intent: the next write sends a new key', async () => {
    const { vendor, settle, charges, result } = await firstChargeHeld();
    const key = (await vendor.arrival(1)).headers['idempotency-key'];
    await actAtOnce(() => result.current.cancel(new Error('cancelled')));
    expect(result.current.status).toBe('error');

    act(() => result.current.reset());
    expect(result.current).toMatchObject({ status: 'idle', data: undefined, error: null });
    expect(result.current.idempotencyKey).not.toBe(key);

    await settle(() => result.current.mutate(order));
    expect(result.current).toMatchObject({ status: 'success', data: { id: 'ch_2' } });
    const keys = keysSent(vendor);
    expect(keys).toHaveLength(2);
    expect(keys[1]).toEqual(expect.any(String));
    expect(keys[1]).not.toBe(key);
    expect(charges.size).toBe(2);
  });

  it('reset() then mutate() in one handler sends the new intent’s key, not the old one', async () => {
    const { vendor, settle, result } = await firstChargeHeld();
    const key = (await vendor.arrival(1)).headers['idempotency-key'];
    await actAtOnce(() => result.current.cancel(new Error('cancelled')));

    await settle(() => {
      result.current.reset();
      result.current.mutate(another);
    });
    const keys = keysSent(vendor);
    expect(keys).toHaveLength(2);
    expect(keys[1]).not.toBe(key);
  });

  it('two mutateAsync in a row (one handler) are two intents: both are sent, each with its own key', async () => {
    const { vendor, wrapper, charges } = await paymentVendor();
    const charge = chargeStitch(vendor);
    const { result } = renderHook(() => useStitchMutation(charge), { wrapper });
    let second: Charge | undefined;
    await act(async () => {
      await result.current.mutateAsync(order);
      second = await result.current.mutateAsync(another);
    });
    expect(vendor.requests()).toBe(2);
    expect(new Set(keysSent(vendor)).size).toBe(2);
    expect(charges.size).toBe(2);
    expect(second).toMatchObject({ id: 'ch_2', orderId: 'order-43' });
    expect(result.current).toMatchObject({ status: 'success', data: second });
  });

  it('a mutate() while the last write’s async onSuccess still runs is a new intent, sent with a new key', async () => {
    const { vendor, wrapper, charges } = await paymentVendor();
    const charge = chargeStitch(vendor);
    let succeeded!: () => void;
    const onSuccessRan = new Promise<void>((resolve) => (succeeded = resolve));
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const onSuccess = vi.fn(() => {
      succeeded();
      return held;
    });
    const { result } = renderHook(() => useStitchMutation(charge, { onSuccess }), { wrapper });
    const key = result.current.idempotencyKey;
    let first!: Promise<Charge>;
    let second!: Promise<Charge>;
    act(() => {
      first = result.current.mutateAsync(order);
    });
    await act(() => onSuccessRan);
    // The first write succeeded; its onSuccess (awaiting a refetch, say) has not returned yet.
    act(() => {
      second = result.current.mutateAsync(another);
    });
    await act(async () => {
      release();
      await Promise.all([first, second]);
    });
    expect(await second).toMatchObject({ id: 'ch_2', orderId: 'order-43' });
    expect(vendor.requests()).toBe(2);
    const keys = keysSent(vendor);
    expect(keys[0]).toBe(key);
    expect(keys[1]).toEqual(expect.any(String));
    expect(keys[1]).not.toBe(key);
    expect(charges.size).toBe(2);
    expect(result.current).toMatchObject({ status: 'success', data: { id: 'ch_2' } });
  });

  it('a key the stitch derives itself (keyOf) is the one sent, across intents', async () => {
    const { vendor, wrapper, settle, charges } = await paymentVendor();
    const charge = chargeStitch(vendor, { keyOf: (input) => `order:${input.body.orderId}` });
    const { result } = renderHook(() => useStitchMutation(charge), { wrapper });
    for (let round = 0; round < 2; round++) {
      await settle(() => result.current.mutate(order));
      expect(result.current).toMatchObject({ status: 'success', data: { id: 'ch_1' } });
    }
    // The second intent's key already succeeded: its idempotency record answers, nothing is sent.
    expect(keysSent(vendor)).toEqual(['order:order-42']);
    expect(charges.size).toBe(1);
  });

  it('a write whose stitch asks for no key sends none, and is not retried', async () => {
    const { vendor, wrapper, settle } = await setup({
      respond: () => ({ status: 503, body: { error: 'busy' } }),
    });
    const charge = stitch<Charge, ChargeInput>({
      name: uniqueKey('charge'),
      method: 'POST',
      url: vendor.url('/charges'),
    });
    const { result } = renderHook(() => useStitchMutation(charge), { wrapper });
    await settle(() => result.current.mutate(order));
    expect((await vendor.arrival(1)).headers['idempotency-key']).toBeUndefined();
    expect(result.current).toMatchObject({
      status: 'error',
      error: { kind: 'http', status: 503, attempts: 1 },
    });
    expect(vendor.requests()).toBe(1);
    expect(vendor.ledger[0]?.headers['idempotency-key']).toBeUndefined();
  });
});

describe('callbacks given to mutate()', () => {
  it('are refused as config naming mutate, nothing sent: TanStack Query takes them there, this hook would ignore them', async () => {
    const { vendor, wrapper, charges } = await paymentVendor();
    const charge = chargeStitch(vendor);
    const { result } = renderHook(() => useStitchMutation(charge), { wrapper });
    const onSuccess = vi.fn();
    const given = [order, { onSuccess }] as unknown as [ChargeInput];
    await act(async () => {
      await expect(result.current.mutateAsync(...given)).rejects.toMatchObject({
        kind: 'config',
        field: 'mutate',
      });
    });
    act(() => result.current.mutate(...given));
    await act(flushMicrotasks);
    expect(result.current).toMatchObject({ status: 'error', error: { kind: 'config', field: 'mutate' } });
    expect(result.current.error?.message).toContain('useStitchMutation(stitch, {');
    expect(onSuccess).not.toHaveBeenCalled();
    expect(vendor.requests()).toBe(0);
    expect(charges.size).toBe(0);
  });
});

describe('the write in flight', () => {
  it('a second mutate supersedes the first: only the latest outcome is shown', async () => {
    const { vendor, settle, result } = await firstChargeHeld();
    await vendor.arrival(1);
    await settle(() => result.current.mutate(order));
    expect(await vendor.hangUp(1)).toMatchObject({ hungUp: true });
    expect(result.current).toMatchObject({ status: 'success', data: { id: 'ch_1' }, error: null });
    expect(keysSent(vendor)[0]).toBe(keysSent(vendor)[1]);
  });

  it('mutateAsync resolves with the data and rejects with the StitchError', async () => {
    const { vendor, wrapper, slow } = await paymentVendor();
    const charge = chargeStitch(vendor);
    const { result } = renderHook(() => useStitchMutation(charge), { wrapper });
    let data: Promise<Charge> | undefined;
    await act(async () => {
      data = result.current.mutateAsync(order);
      await data;
    });
    await expect(data).resolves.toMatchObject({ id: 'ch_1' });

    slow.add(2);
    let failed: Promise<Charge> | undefined;
    act(() => {
      failed = result.current.mutateAsync(another);
      failed.catch(() => {});
    });
    await vendor.arrival(2);
    const reason = new Error('stop');
    await actAtOnce(() => result.current.cancel(reason));
    await expect(failed).rejects.toMatchObject({ kind: 'aborted', cause: reason });
    expect(result.current.status).toBe('error');
  });
});

/** What the list editor below is given: its stitches, and where it says what ran and what is shown. */
interface EditorProps {
  getList: Stitch<{ list: string }, { query: { list: string } }>;
  rename: Stitch<unknown, StitchInput>;
  ran: string[];
  /** The rename of the list on screen, as a click on it runs it. */
  shown: { rename?: () => void; open?: (list: string) => void };
}

/** A list with a rename whose `onMutate` says which list it was rendered for. */
function ListEditor({ list, getList, rename, ran, shown }: EditorProps & { list: string }) {
  const { mutate } = useStitchMutation(rename, { onMutate: () => ran.push(`onMutate ${list}`) });
  const { data } = useSuspenseStitch(getList, { query: { list } });
  useLayoutEffect(() => {
    shown.rename = () => mutate({ body: { title: 'new' } });
  });
  return <p>{data.list}</p>;
}

/** The editor of list A, which `shown.open` moves to another list. */
function ListApp(props: EditorProps) {
  const [list, setList] = useState('A');
  props.shown.open = setList;
  return (
    <Suspense fallback={<p>loading</p>}>
      <ListEditor list={list} {...props} />
    </Suspense>
  );
}

it('runs the callbacks of the render on screen, not of one a pending transition has not committed', async () => {
  const { vendor, wrapper, answer } = await setup();
  const props: EditorProps = {
    getList: stitch({ name: uniqueKey('list'), url: vendor.url('/list') }),
    rename: stitch({ name: uniqueKey('rename'), method: 'POST', url: vendor.url('/rename') }),
    ran: [],
    shown: {},
  };
  render(<ListApp {...props} />, { wrapper });
  await vendor.arrival(1);
  await answer(1, { body: { list: 'A' } });
  // List B is opened in a transition; its data is held, so React keeps list A on screen.
  await actAtOnce(() => startTransition(() => props.shown.open?.('B')));
  await vendor.arrival(2);
  expect(screen.getByText('A')).toBeTruthy();
  // The user renames list A, which is what they see.
  await actAtOnce(() => props.shown.rename?.());
  expect(props.ran).toEqual(['onMutate A']);
});

it('refuses wrong options as it is given them: a config error naming the field, before any write', async () => {
  const { vendor, wrapper } = await paymentVendor();
  const charge = chargeStitch(vendor);
  const orders = stitch({ name: uniqueKey('orders'), url: vendor.url('/orders') });
  const silenced = vi.spyOn(console, 'error').mockImplementation(() => {});
  try {
    // A stitch alone where a list of them belongs.
    expect(() =>
      renderHook(() => useStitchMutation(charge, { invalidates: orders as never }), { wrapper }),
    ).toThrow(expect.objectContaining({ kind: 'config', field: 'invalidates' }));
    expect(() =>
      renderHook(() => useStitchMutation(charge, { onError: 'rollback' as never }), { wrapper }),
    ).toThrow(expect.objectContaining({ kind: 'config', field: 'onError' }));
  } finally {
    silenced.mockRestore();
  }
  expect(vendor.requests()).toBe(0);
});
