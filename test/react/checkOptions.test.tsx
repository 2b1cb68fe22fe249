/**
 * A wrong option of a read hook, or a wrong prop of `StitchProvider`, is a `config` error naming
 * it as the hook is given it: never a TypeError deep inside, a garbage request or a silent default.
 */
import { renderHook } from '@testing-library/react';
import type { ReactNode } from 'react';
import { afterEach, beforeEach, expect, it, vi } from 'vitest';
import { createEngine, type StitchInput, stitch } from '../../src/index';
import {
  StitchProvider,
  StitchScope,
  useStitch,
  useStitchInfinite,
  useStitchMutation,
  useSuspenseStitch,
} from '../../src/react/index';
import { uniqueKey } from '../helpers/keys';
import { setup } from './harness';
import { userStitch } from './users';

beforeEach(() => {
  // React reports each error a render throws; the tests look at the error itself.
  vi.spyOn(console, 'error').mockImplementation(() => {});
});
afterEach(() => {
  vi.restoreAllMocks();
});

const refused = (field: string) => expect.objectContaining({ kind: 'config', field });
const user = { params: { id: 7 } };
const charge = (url: string) =>
  stitch<unknown, { body: object }>({ name: uniqueKey('charge'), method: 'POST', url });

it.each<[string, Record<string, unknown>]>([
  ['signal', { signal: new AbortController() }],
  ['signal', { signal: 'route' }],
  ['staleTime', { staleTime: -1 }],
  ['debounce', { debounce: Number.NaN }],
  ['refetchInterval', { refetchInterval: '5s' }],
  ['enabled', { enabled: 'false' }],
  ['select', { select: 'name' }],
  ['suspense', { suspense: 'yes' }],
  // Its own hook, useSuspenseStitch, so that an app that never suspends does not bundle it.
  ['suspense', { suspense: true }],
  // Options that do not exist (another library's name, a misspelling) would do nothing, silently.
  ['refetchOnWindowFocus', { refetchOnWindowFocus: true }],
  ['keepPreviousData', { keepPreviousData: true }],
  // Read as the hook reads it: an option from the object's prototype, a class's getter, one
  // that is not enumerable, a proxy's, is checked too.
  ['staleTime', Object.create({ staleTime: -1 })],
  [
    'staleTime',
    new (class {
      get staleTime() {
        return -5;
      }
    })(),
  ],
  ['signal', Object.defineProperty({}, 'signal', { value: new AbortController() })],
  // A list is no options object (its indexes were read as options: none of them wrong).
  ['options', [] as unknown as Record<string, unknown>],
  ['debounce', new Proxy({}, { get: (_, key) => (key === 'debounce' ? 'soon' : undefined) })],
])('useStitch refuses a wrong %s, sending nothing', async (field, options) => {
  const { vendor, wrapper } = await setup();
  const getUser = userStitch(vendor);
  expect(() => renderHook(() => useStitch(getUser, user, options), { wrapper })).toThrow(refused(field));
  expect(vendor.requests()).toBe(0);
});

it.each<[string, Record<string, unknown>]>([
  ['maxPages', { maxPages: 0 }],
  ['maxPages', { maxPages: 1.5 }],
  ['pageInput', { pageInput: '' }],
  ['pageInput', { pageInput: 5 }],
  ['getNextPageParam', { getNextPageParam: undefined }],
  ['signal', { signal: {} }],
  ['getNextPage', { getNextPage: () => null }],
])('useStitchInfinite refuses a wrong %s, sending nothing', async (field, wrong) => {
  const { vendor, wrapper } = await setup();
  const list = stitch<{ next: number | null }, StitchInput>({
    name: uniqueKey('list'),
    url: vendor.url('/list'),
  });
  const options = { initialPageParam: 0, getNextPageParam: () => null, pageInput: 'page', ...wrong };
  expect(() => renderHook(() => useStitchInfinite(list, {}, options as never), { wrapper })).toThrow(
    refused(field),
  );
  expect(vendor.requests()).toBe(0);
});

it('useStitchInfinite refuses options without getNextPageParam, sending nothing', async () => {
  const { vendor, wrapper } = await setup();
  const list = stitch<{ next: number | null }, StitchInput>({
    name: uniqueKey('list'),
    url: vendor.url('/list'),
  });
  const options = { initialPageParam: 0, pageInput: 'page' };
  expect(() => renderHook(() => useStitchInfinite(list, {}, options as never), { wrapper })).toThrow(
    refused('getNextPageParam'),
  );
  expect(vendor.requests()).toBe(0);
});

it('useSuspenseStitch refuses a wrong signal, sending nothing', async () => {
  const { vendor, wrapper } = await setup();
  const getUser = userStitch(vendor);
  expect(() =>
    renderHook(() => useSuspenseStitch(getUser, user, { signal: new AbortController() as never }), {
      wrapper,
    }),
  ).toThrow(refused('signal'));
  expect(vendor.requests()).toBe(0);
});

it('useSuspenseStitch and useStitchMutation refuse an option they do not have', async () => {
  const { vendor, wrapper } = await setup();
  const getUser = userStitch(vendor);
  const options = { staleTime: 1_000 } as never;
  expect(() => renderHook(() => useSuspenseStitch(getUser, user, options), { wrapper })).toThrow(
    refused('staleTime'),
  );
  const onSucces = () => {};
  expect(() =>
    renderHook(() => useStitchMutation(charge(vendor.url('/charge')), { onSucces } as never), { wrapper }),
  ).toThrow(
    expect.objectContaining({
      kind: 'config',
      field: 'onSucces',
      message: expect.stringContaining('onSuccess'),
    }),
  );
  expect(vendor.requests()).toBe(0);
});

it.each<[string, Record<string, unknown>]>([
  ['engine', { engine: createEngine }],
  ['engine', { engine: {} }],
  ['focusSource', { focusSource: {} }],
  ['onlineSource', { onlineSource: { subscribe: () => () => {} } }],
  // A poll every `true` ms was a request at every turn of the event loop.
  ['defaults.refetchInterval', { defaults: { refetchInterval: true } }],
  ['defaults.refetchOnFocus', { defaults: { refetchOnFocus: 'yes' } }],
  ['defaults', { defaults: null }],
  ['defaults.refetchOnWindowFocus', { defaults: { refetchOnWindowFocus: true } }],
  // TanStack Query's prop name: the hooks would silently read another engine.
  ['client', { client: createEngine() }],
])('StitchProvider refuses a wrong %s', async (field, props) => {
  const { vendor } = await setup();
  const getUser = userStitch(vendor);
  const wrapper = ({ children }: { children?: ReactNode }) => (
    <StitchProvider {...(props as object)}>{children}</StitchProvider>
  );
  expect(() => renderHook(() => useStitch(getUser, user), { wrapper })).toThrow(refused(field));
  expect(vendor.requests()).toBe(0);
});

it.each([
  ['useStitch', (s: ReturnType<typeof charge>) => useStitch(s, { body: {} })],
  ['useSuspenseStitch', (s: ReturnType<typeof charge>) => useSuspenseStitch(s, { body: {} })],
])('%s refuses a write stitch (a POST is never cached), sending nothing', async (_hook, read) => {
  const { vendor, wrapper } = await setup();
  expect(() => renderHook(() => read(charge(vendor.url('/charge'))), { wrapper })).toThrow(
    expect.objectContaining({
      kind: 'config',
      field: 'method',
      message: expect.stringContaining('useStitchMutation'),
    }),
  );
  expect(vendor.requests()).toBe(0);
});

it.each([
  ['useStitch', (s: never) => useStitch(s, user)],
  ['useSuspenseStitch', (s: never) => useSuspenseStitch(s, user)],
  [
    'useStitchInfinite',
    (s: never) =>
      useStitchInfinite(s, user, {
        initialPageParam: 0,
        getNextPageParam: () => undefined,
        pageInput: 'page',
      }),
  ],
  ['useStitchMutation', (s: never) => useStitchMutation(s)],
])('%s refuses what is not a stitch as a config error naming it, not a TypeError', async (_hook, read) => {
  const { wrapper } = await setup();
  for (const given of [undefined, {}, { name: 'users' }]) {
    expect(() => renderHook(() => read(given as never), { wrapper })).toThrow(refused('stitch'));
  }
});

it('StitchScope takes a ref (React 19 hands it as a prop), and refuses a prop it does not have (a misspelt resetKey would reset nothing)', async () => {
  const { wrapper } = await setup();
  const ref = { current: null };
  const withRef = { resetKey: '/a', ref } as object;
  expect(() =>
    renderHook(() => null, {
      wrapper: ({ children }) => wrapper({ children: <StitchScope {...withRef}>{children}</StitchScope> }),
    }),
  ).not.toThrow();
  const props = { resetkey: '/a' } as object;
  expect(() =>
    renderHook(() => null, {
      wrapper: ({ children }) => wrapper({ children: <StitchScope {...props}>{children}</StitchScope> }),
    }),
  ).toThrow(
    expect.objectContaining({
      kind: 'config',
      field: 'resetkey',
      message: expect.stringContaining('resetKey'),
    }),
  );
});

it('a hook option getter that throws is a config error naming the options, its cause kept', async () => {
  const { vendor, wrapper } = await setup();
  const getUser = userStitch(vendor);
  const thrown = new Error('not loaded yet');
  const options = {
    get staleTime(): never {
      throw thrown;
    },
  };
  expect(() => renderHook(() => useStitch(getUser, user, options), { wrapper })).toThrow(
    expect.objectContaining({ kind: 'config', field: 'options', cause: thrown }),
  );
  expect(vendor.requests()).toBe(0);
});
