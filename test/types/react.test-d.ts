import { describe, expectTypeOf, it } from 'vitest';
import { z } from 'zod';
import { type StitchError, stitch } from '../../src/index';
import {
  keepPreviousData,
  type StitchProviderProps,
  skipToken,
  useStitch,
  useStitchInfinite,
  useStitchMutation,
  useSuspenseStitch,
} from '../../src/react/index';

const User = z.object({ id: z.number(), name: z.string() });
type User = z.infer<typeof User>;
const getUser = stitch({ name: 'getUser', url: 'https://api.example.com/users/{id}', output: User });

describe('useStitch typing', () => {
  it('returns a union on status: success has data, error has a StitchError', () => {
    const q = useStitch(getUser, { params: { id: 7 } });
    if (q.status === 'success') {
      expectTypeOf(q.data).toEqualTypeOf<User>();
      expectTypeOf(q.error).toEqualTypeOf<null>();
    }
    if (q.status === 'error') {
      expectTypeOf(q.error).toEqualTypeOf<StitchError>();
      expectTypeOf(q.data).toEqualTypeOf<User | undefined>();
      if (q.error.kind === 'http') expectTypeOf(q.error.status).toEqualTypeOf<number>();
    }
    if (q.status === 'idle') expectTypeOf(q.data).toEqualTypeOf<undefined>();
    if (q.status === 'pending') expectTypeOf(q.error).toEqualTypeOf<null>();
    expectTypeOf(q.isFetching).toEqualTypeOf<boolean>();
  });

  it('types data as what select returns, in every status that has data', () => {
    const q = useStitch(getUser, { params: { id: 7 } }, { select: (user) => user.name.length });
    if (q.status === 'success') expectTypeOf(q.data).toEqualTypeOf<number>();
    if (q.status === 'error') expectTypeOf(q.data).toEqualTypeOf<number | undefined>();
    if (q.status === 'pending') expectTypeOf(q.data).toEqualTypeOf<number | undefined>();
    // initialData and placeholderData are the stitch's data, before select.
    useStitch(getUser, null, {
      select: (user) => user.id,
      initialData: () => ({ id: 7, name: 'Ada' }),
      placeholderData: (previous) => previous,
    });
    // @ts-expect-error initialData must be the stitch's data
    useStitch(getUser, null, { initialData: { id: '7' } });
    // Nor can a partial value widen the data, given by a function or through a variable.
    const partial: { id: number } = { id: 7 };
    // @ts-expect-error initialData must be the stitch's data
    useStitch(getUser, null, { initialData: () => ({ id: 1 }) });
    // @ts-expect-error initialData must be the stitch's data
    useStitch(getUser, null, { initialData: partial });
    // @ts-expect-error placeholderData must be the stitch's data
    useStitch(getUser, null, { placeholderData: partial });
  });

  it('types data as defined in every status for a live input with initialData and no select', () => {
    const ada = { id: 7, name: 'Ada' };
    const q = useStitch(getUser, { params: { id: 7 } }, { initialData: ada, staleTime: 1_000 });
    expectTypeOf(q.data).toEqualTypeOf<User>();
    expectTypeOf(q.status).toEqualTypeOf<'pending' | 'success' | 'error'>();
    if (q.status === 'error') expectTypeOf(q.error).toEqualTypeOf<StitchError>();
    expectTypeOf(
      useStitch(getUser, { params: { id: 7 } }, { initialData: () => ada }).data,
    ).toEqualTypeOf<User>();
    // Idle (skipToken, null, enabled: false or a flag), a function that may give nothing, or a
    // select (which may fail): the data may be missing.
    const maybe = (user: User | undefined) => user;
    expectTypeOf(useStitch(getUser, skipToken, { initialData: ada }).data).toEqualTypeOf<User | undefined>();
    const enabled = Math.random() > 0.5;
    expectTypeOf(useStitch(getUser, { params: { id: 7 } }, { initialData: ada, enabled }).data).toEqualTypeOf<
      User | undefined
    >();
    expectTypeOf(
      useStitch(getUser, { params: { id: 7 } }, { initialData: () => maybe(undefined) }).data,
    ).toEqualTypeOf<User | undefined>();
    expectTypeOf(
      useStitch(getUser, { params: { id: 7 } }, { initialData: ada, select: (user) => user.name }).data,
    ).toEqualTypeOf<string | undefined>();
  });

  it('takes refetchInterval: false, as documented, to stop a provider default', () => {
    useStitch(getUser, { params: { id: 7 } }, { refetchInterval: false });
    expectTypeOf<StitchProviderProps['defaults']>().toMatchTypeOf<
      { refetchInterval?: number | false } | undefined
    >();
    // @ts-expect-error true is no interval
    useStitch(getUser, { params: { id: 7 } }, { refetchInterval: true });
  });

  it('keeps the data type with the exported keepPreviousData', () => {
    const q = useStitch(getUser, { params: { id: 7 } }, { placeholderData: keepPreviousData });
    expectTypeOf(q.data).toEqualTypeOf<User | undefined>();
    const named = useStitch(
      getUser,
      { params: { id: 7 } },
      { placeholderData: keepPreviousData, select: (user) => user.name },
    );
    expectTypeOf(named.data).toEqualTypeOf<string | undefined>();
  });

  it('checks the input against the stitch, and takes skipToken or null', () => {
    useStitch(getUser, { params: { id: '7' } });
    useStitch(getUser, skipToken);
    useStitch(getUser, null);
    // @ts-expect-error a misspelt path param
    useStitch(getUser, { params: { idd: 7 } });
  });

  it('takes no input only for a stitch that needs none', () => {
    const listAll = stitch<User[]>({ name: 'listAll', url: 'https://api.example.com/users' });
    useStitch(listAll, undefined);
    useSuspenseStitch(listAll, undefined);
    // @ts-expect-error getUser needs its path param
    useStitch(getUser, undefined);
    // @ts-expect-error so does a suspended read of it
    useSuspenseStitch(getUser, undefined);
    const q = useStitch(getUser, Math.random() > 0.5 ? { params: { id: 7 } } : skipToken);
    expectTypeOf(q.data).toEqualTypeOf<User | undefined>();
  });

  it('types useSuspenseStitch and useStitchMutation from the stitch', () => {
    const { data } = useSuspenseStitch(getUser, { params: { id: 7 } });
    expectTypeOf(data).toEqualTypeOf<User>();
    const rename = stitch({
      name: 'rename',
      method: 'PATCH',
      url: 'https://api.example.com/users/{id}',
      output: User,
    });
    const m = useStitchMutation(rename);
    m.mutate({ params: { id: 7 }, body: { name: 'Ada' } });
    // @ts-expect-error the path param is required
    m.mutate({ body: { name: 'Ada' } });
    // @ts-expect-error so is the input
    m.mutate();
    if (m.status === 'success') expectTypeOf(m.data).toEqualTypeOf<User>();
    if (m.status === 'error') expectTypeOf(m.error).toEqualTypeOf<StitchError>();
  });
});

describe('useStitchInfinite typing', () => {
  type Page = { items: User[]; nextCursor: string | null };
  const listUsers = stitch<Page, { query?: { cursor?: string } }>({
    name: 'listUsers',
    url: 'https://api.example.com/users',
  });

  it('types the param from initialPageParam and the pages from the stitch', () => {
    const q = useStitchInfinite(
      listUsers,
      {},
      {
        initialPageParam: null as string | null,
        getNextPageParam: (last) => last.nextCursor,
        pageInput: (input, cursor) => (cursor ? { query: { ...input.query, cursor } } : input),
      },
    );
    if (q.status === 'success') {
      expectTypeOf(q.data.pages).toEqualTypeOf<readonly Page[]>();
      expectTypeOf(q.data.pageParams).toEqualTypeOf<readonly (string | null)[]>();
    }
    if (q.status === 'error') expectTypeOf(q.error).toEqualTypeOf<StitchError>();
    expectTypeOf(q.hasNext).toEqualTypeOf<boolean>();
    expectTypeOf(q.fetchNext).toEqualTypeOf<() => void>();
  });

  it('checks the page functions against the stitch', () => {
    useStitchInfinite(listUsers, skipToken, {
      initialPageParam: 0,
      // @ts-expect-error a param of another type than initialPageParam's
      getNextPageParam: (last) => last.nextCursor,
      pageInput: 'cursor',
    });
  });
});
