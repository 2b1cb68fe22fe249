/**
 * Apps compiled with `exactOptionalPropertyTypes` pass options that may be `undefined` (a prop, a
 * setting not given): every optional field of the public option bags takes `undefined` as if it
 * were left out, in the types as at run time (test/engine/undefinedOptions.test.ts).
 */
import { expect, it } from 'vitest';
import { typecheck } from '../helpers/typecheck';

const code = `
import { circuit, createEngine, mutate, prefetch, retry, stitch, throttle, type StitchError } from 'stitch-fetch';
import { stitch as liteStitch, retry as liteRetry } from 'stitch-fetch/lite';
import { StitchProvider, StitchScope, useStitch, useStitchInfinite, useStitchMutation, useSuspenseStitch } from 'stitch-fetch/react';
import { createDevtoolsModel, StitchDevtools, useStitchInspector } from 'stitch-fetch/devtools';
import type { Tracer } from '@opentelemetry/api';
import { createOtelSink } from 'stitch-fetch/otel';
import { createRedisStore } from 'stitch-fetch/redis';

declare const maybe: <T>() => T | undefined;

const engine = createEngine({
  fetch: maybe<typeof fetch>(),
  cacheSize: maybe<number>(),
  storeTimeout: maybe<number>(),
  redact: maybe<string[]>(),
});

const getUser = stitch<{ id: number }, { params: { id: number } }>({
  name: 'user',
  url: 'https://api.example.com/users/{id}',
  method: maybe<'GET'>(),
  baseUrl: maybe<string>(),
  headers: maybe<Record<string, string>>(),
  responseType: maybe<'json'>(),
  maxBodyBytes: maybe<number>(),
  retry: maybe<number>(),
  timeout: maybe<number>(),
  circuit: maybe<boolean>(),
  throttle: maybe<false>(),
  cache: maybe<number>(),
  coalesce: maybe<boolean>(),
  redirect: maybe<'follow'>(),
  hooks: { onError: maybe<(error: StitchError) => void>() },
});

liteStitch({
  name: 'lite',
  url: 'https://api.example.com/lite',
  retry: liteRetry({ attempts: maybe<number>(), backoff: maybe<{ base: number }>() }),
});
stitch({
  name: 'policies',
  url: 'https://api.example.com/p',
  timeout: { each: maybe<number>(), total: maybe<number>() },
  retry: retry({ attempts: maybe<number>(), retryAfter: { max: maybe<number>() } }),
  circuit: circuit({
    failures: maybe<number>(),
    cooldown: maybe<number>(),
    window: { size: maybe<number>(), buckets: maybe<number>(), ratio: maybe<number>(), minimum: maybe<number>() },
  }),
  throttle: throttle({ concurrency: maybe<number>(), rate: maybe<string>() }),
});

const saveUser = stitch<{ id: number }, { body: { name: string } }>({
  name: 'saveUser',
  url: 'https://api.example.com/users',
  method: 'POST',
});

void getUser({ params: { id: 1 } }, { signal: maybe<AbortSignal>(), engine: maybe<typeof engine>(), revalidate: maybe<boolean>() });
void prefetch(getUser, { params: { id: 1 } }, { signal: maybe<AbortSignal>(), engine: maybe<typeof engine>() });
void mutate(saveUser, { body: { name: 'Ada' } }, {
  signal: maybe<AbortSignal>(),
  engine: maybe<typeof engine>(),
  onSuccess: maybe<(data: { id: number }) => void>(),
  onError: maybe<(error: StitchError) => void>(),
});

createDevtoolsModel(engine, { maxLanes: maybe<number>() });
createOtelSink({ tracer: maybe<Tracer>() });
createRedisStore(maybe<never>() as never, { prefix: maybe<string>() });

export function App() {
  useStitchInspector((snapshot) => snapshot, { engine: maybe<typeof engine>(), maxLanes: maybe<number>() });
  const user = useStitch(getUser, { params: { id: 1 } }, {
    signal: maybe<AbortSignal>(),
    keepPrevious: maybe<boolean>(),
    debounce: maybe<number>(),
    enabled: maybe<boolean>(),
    staleTime: maybe<number>(),
    refetchInterval: maybe<number>(),
    refetchOnFocus: maybe<boolean>(),
    refetchOnReconnect: maybe<boolean>(),
    select: maybe<(data: { id: number }) => { id: number }>(),
  });
  const suspended = useSuspenseStitch(getUser, { params: { id: 1 } }, {
    signal: maybe<AbortSignal>(),
    abandonAfter: maybe<number>(),
  });
  const pages = useStitchInfinite(getUser, { params: { id: 1 } }, {
    initialPageParam: 1,
    getNextPageParam: () => undefined,
    pageInput: 'id',
    maxPages: maybe<number>(),
    signal: maybe<AbortSignal>(),
    enabled: maybe<boolean>(),
  });
  const save = useStitchMutation(saveUser, {
    onSuccess: maybe<(data: { id: number }) => void>(),
    onSettled: maybe<() => void>(),
  });
  return (
    <StitchProvider engine={maybe<typeof engine>()} defaults={maybe<{ refetchOnFocus: boolean }>()}>
      <StitchDevtools engine={maybe<typeof engine>()} initialOpen={maybe<boolean>()} maxLanes={maybe<number>()} />
      <StitchScope resetKey={maybe<string>()}>
        {String(user.data?.id) + String(suspended.data.id) + String(pages.data) + save.status}
      </StitchScope>
    </StitchProvider>
  );
}
`;

it('the public option bags take undefined for every optional field under exactOptionalPropertyTypes', () => {
  expect(
    typecheck([{ file: 'snippet', line: 1, lang: 'tsx', code }], { exactOptionalPropertyTypes: true }),
  ).toEqual([]);
}, 180_000);
