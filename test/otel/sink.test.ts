/**
 * `stitch-fetch/otel` against the real node:http vendor and the OpenTelemetry SDK's in-memory
 * exporter: which spans a search with cancellations, a retry and a breaker fast-fail produce, and
 * the `traceparent` each request carried to the vendor.
 */
import { context, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { createEngine, stitch } from '../../src/index';
import { createOtelSink } from '../../src/otel/index';
import { uniqueKey } from '../helpers/keys';
import { installOtel } from '../helpers/otel';
import { rejection, type ScenarioOptions, startScenario, until } from '../helpers/runs';
import type { LedgerEntry } from '../helpers/vendor';

const otel = installOtel();
afterAll(() => otel.uninstall());
beforeEach(() => otel.exporter.reset());

/** A scenario whose engine traces to the SDK and propagates context on each attempt. */
function tracedScenario(options: ScenarioOptions = {}) {
  const sink = createOtelSink({ tracer: otel.tracer });
  return startScenario({ ...options, engine: { trace: sink, headers: sink.headers } });
}

const spans = () => otel.exporter.getFinishedSpans();
const runSpan = (name: string, index = 0) =>
  spans().filter((span) => span.name === name && span.kind === SpanKind.INTERNAL)[index] as ReadableSpan;
const childrenOf = (parent: ReadableSpan) =>
  spans().filter((span) => span.parentSpanContext?.spanId === parent.spanContext().spanId);
const traceparentOf = (span: ReadableSpan) =>
  `00-${span.spanContext().traceId}-${span.spanContext().spanId}-01`;
const eventNamed = (span: ReadableSpan, name: string) => span.events.find((event) => event.name === name);
const sentHeader = (entry: LedgerEntry | undefined) => entry?.headers.traceparent;

describe('createOtelSink', () => {
  it('a search with cancellations: each run a child of the active span, a cancel is an event with its reason and `dispatched`, never an error', async () => {
    const { vendor, engine } = await tracedScenario();
    const name = uniqueKey('search');
    const search = stitch({ name, url: vendor.url('/search') });
    vendor.script('hold');
    const page = otel.tracer.startSpan('GET /search-page');
    const active = trace.setSpan(context.active(), page);
    const type = (q: string, signal: AbortSignal) =>
      context.with(active, () => search({ query: { q } }, { engine, signal }));

    const first = new AbortController();
    const a = type('a', first.signal);
    await vendor.arrival(1);
    first.abort(new Error('superseded'));
    await vendor.hangUp(1);
    await rejection(a);

    const second = new AbortController();
    const ad = type('ad', second.signal);
    second.abort(new Error('superseded'));
    await rejection(ad);

    await type('ada', new AbortController().signal);
    page.end();

    const [cutRun, unsentRun, answeredRun] = [runSpan(name, 0), runSpan(name, 1), runSpan(name, 2)];
    for (const run of [cutRun, unsentRun, answeredRun]) {
      expect(run.parentSpanContext?.spanId).toBe(page.spanContext().spanId);
      expect(run.spanContext().traceId).toBe(page.spanContext().traceId);
    }

    expect(cutRun.status.code).toBe(SpanStatusCode.UNSET);
    expect(cutRun.attributes['stitch.outcome']).toBe('cancelled');
    expect(eventNamed(cutRun, 'stitch.cancel')?.attributes).toMatchObject({
      'stitch.cancel.reason': 'superseded',
      'stitch.cancel.phase': 'in-flight',
      'stitch.cancel.dispatched': true,
    });
    const [cutAttempt] = childrenOf(cutRun) as [ReadableSpan];
    expect(cutAttempt.status.code).toBe(SpanStatusCode.UNSET);
    expect(cutAttempt.attributes['error.type']).toBeUndefined();
    expect(eventNamed(cutAttempt, 'stitch.cancel')?.attributes).toMatchObject({
      'stitch.cancel.dispatched': true,
    });

    expect(eventNamed(unsentRun, 'stitch.cancel')?.attributes).toMatchObject({
      'stitch.cancel.reason': 'superseded',
      'stitch.cancel.dispatched': false,
    });
    expect(unsentRun.status.code).toBe(SpanStatusCode.UNSET);
    expect(childrenOf(unsentRun)).toEqual([]);

    const [answered] = childrenOf(answeredRun) as [ReadableSpan];
    const { port } = new URL(vendor.origin);
    expect(answered.kind).toBe(SpanKind.CLIENT);
    expect(answered.name).toBe('GET');
    expect(answered.attributes).toEqual({
      'http.request.method': 'GET',
      'url.full': vendor.url('/search?q=ada'),
      'server.address': '127.0.0.1',
      'server.port': Number(port),
      'http.response.status_code': 200,
    });
    expect(answeredRun.status.code).toBe(SpanStatusCode.UNSET);

    // The vendor saw two requests, each carrying its own attempt span's context.
    expect(vendor.ledger.map(sentHeader)).toEqual([traceparentOf(cutAttempt), traceparentOf(answered)]);
  });

  it('a retry: one attempt span per request, the resend counted, the failed one an error, the run not', async () => {
    const { vendor, engine, clock } = await tracedScenario();
    vendor.script({ status: 503 });
    const name = uniqueKey('retry');
    const get = stitch({ name, url: vendor.url('/flaky?token=secret'), retry: 2 });
    const run = get(undefined, { engine });
    await until(run, 'retry');
    await clock.next();
    await run;

    const parent = runSpan(name);
    expect(parent.parentSpanContext).toBeUndefined();
    expect(parent.status.code).toBe(SpanStatusCode.UNSET);
    expect(eventNamed(parent, 'stitch.retry')?.attributes).toEqual({
      'stitch.attempt': 1,
      'stitch.retry.delay': expect.any(Number),
    });
    const [failed, resent] = childrenOf(parent) as [ReadableSpan, ReadableSpan];
    expect(failed.attributes).toMatchObject({
      'url.full': `${vendor.origin}/flaky?token=%5Bredacted%5D`,
      'http.response.status_code': 503,
      'error.type': '503',
    });
    expect(failed.attributes['http.request.resend_count']).toBeUndefined();
    expect(failed.status.code).toBe(SpanStatusCode.ERROR);
    expect(resent.attributes).toMatchObject({
      'http.request.resend_count': 1,
      'http.response.status_code': 200,
    });
    expect(resent.status.code).toBe(SpanStatusCode.UNSET);
    expect(vendor.ledger.map(sentHeader)).toEqual([traceparentOf(failed), traceparentOf(resent)]);
  });

  it('a breaker fast-fail: an error span with error.type circuit-open and no attempt, as the vendor saw no request', async () => {
    const { vendor, engine } = await tracedScenario({ respond: () => ({ status: 503 }) });
    const name = uniqueKey('breaker');
    const get = stitch({
      name,
      url: vendor.url('/down'),
      retry: 1,
      circuit: { key: uniqueKey('origin'), failures: 1 },
    });
    await rejection(get(undefined, { engine }));
    expect((await rejection(get(undefined, { engine }))).kind).toBe('circuit-open');

    const opened = runSpan(name, 0);
    expect(eventNamed(opened, 'stitch.circuit')?.attributes).toMatchObject({
      'stitch.circuit.from': 'closed',
      'stitch.circuit.to': 'open',
    });
    expect(opened.attributes['error.type']).toBe('503');
    const fastFailed = runSpan(name, 1);
    expect(fastFailed.status.code).toBe(SpanStatusCode.ERROR);
    expect(fastFailed.attributes).toMatchObject({ 'error.type': 'circuit-open', 'stitch.outcome': 'error' });
    expect(childrenOf(fastFailed)).toEqual([]);
    expect(vendor.requests()).toBe(1);
  });

  it('an invalid 200: error.type is the kind, not the status (a 200 is no error status)', async () => {
    const { vendor, engine } = await tracedScenario({ respond: () => ({ fault: 'malformed-json' }) });
    const name = uniqueKey('invalid');
    const error = await rejection(stitch({ name, url: vendor.url('/bad') })(undefined, { engine }));
    expect(error).toMatchObject({ kind: 'invalid', status: 200 });
    const run = runSpan(name);
    expect(run.attributes['error.type']).toBe('invalid');
    const [attempt] = childrenOf(run);
    expect(attempt?.attributes).toMatchObject({ 'error.type': 'invalid', 'http.response.status_code': 200 });
  });

  it('coalesced callers: the attempt is traced once, under the run that started it, and a joiner that leaves does not end it', async () => {
    const { vendor, engine } = await tracedScenario();
    vendor.script('hold');
    const name = uniqueKey('shared');
    const get = stitch({ name, url: vendor.url('/shared') });
    const leaving = new AbortController();
    const leader = get(undefined, { engine });
    const joiner = get(undefined, { engine, signal: leaving.signal });
    await vendor.arrival(1);
    leaving.abort(new Error('unmounted'));
    await rejection(joiner);
    vendor.release(1, { status: 200, body: { ok: true } });
    await leader;

    const ofRun = (id: string) =>
      spans().find((span) => span.attributes['stitch.run'] === id) as ReadableSpan;
    const attempts = spans().filter((span) => span.kind === SpanKind.CLIENT);
    expect(attempts).toHaveLength(1);
    expect(attempts[0]?.parentSpanContext?.spanId).toBe(ofRun(leader.id).spanContext().spanId);
    expect(attempts[0]?.attributes['http.response.status_code']).toBe(200);
    expect(eventNamed(attempts[0] as ReadableSpan, 'stitch.cancel')).toBeUndefined();
    expect(eventNamed(ofRun(joiner.id), 'stitch.cancel')?.attributes).toMatchObject({
      'stitch.cancel.shared': true,
    });
    expect(ofRun(joiner.id).attributes['stitch.coalesced_with']).toBe(leader.id);
  });

  it('a keyed write answered from its record: no attempt span, as no request left', async () => {
    const { vendor, engine } = await tracedScenario();
    const name = uniqueKey('charge');
    const charge = stitch({ name, method: 'POST', url: vendor.url('/charges'), idempotency: true });
    const owned = { engine, idempotencyKey: 'order-42' };
    await charge({ body: { amount: 5 } }, owned);
    const again = charge({ body: { amount: 5 } }, owned);
    await again;
    expect((await again.report()).source).toBe('recorded');

    const attempts = spans().filter((span) => span.kind === SpanKind.CLIENT);
    expect(attempts).toHaveLength(1);
    expect(sentHeader(vendor.ledger[0])).toBe(traceparentOf(attempts[0] as ReadableSpan));
    expect(vendor.requests()).toBe(1);
  });
});

it('refuses a tracer that is not one, or options that are none, naming the field', () => {
  expect(() => createOtelSink({ tracer: {} as never })).toThrowError(
    expect.objectContaining({ kind: 'config', field: 'tracer' }),
  );
  expect(() => createOtelSink('tracer' as never)).toThrowError(
    expect.objectContaining({ kind: 'config', field: 'options' }),
  );
  expect(() => createOtelSink({ tracr: otel.tracer } as never)).toThrowError(
    expect.objectContaining({ kind: 'config', field: 'tracr' }),
  );
});

describe('one sink for several engines', () => {
  it('keeps their runs apart: each run span ends, with its own attempt under it', async () => {
    const sink = createOtelSink({ tracer: otel.tracer });
    const { vendor } = await startScenario({ respond: () => ({ status: 200, body: {} }) });
    // One engine per server request, say, all tracing to the app's one sink.
    const engines = [0, 1].map(() => createEngine({ trace: sink, headers: sink.headers }));
    const names = [uniqueKey('one'), uniqueKey('two')];
    await Promise.all(
      names.map((name, i) => stitch({ name, url: vendor.url(`/${i}`) })(undefined, { engine: engines[i] })),
    );
    // A run span ends with its run's last event: before its promise settles.
    expect(spans().filter((span) => span.kind === SpanKind.INTERNAL)).toHaveLength(2);
    for (const [i, name] of names.entries()) {
      const attempts = childrenOf(runSpan(name));
      expect(attempts).toHaveLength(1);
      expect(attempts[0]?.attributes['url.full']).toBe(vendor.url(`/${i}`));
    }
  });
});
