/**
 * Stitch's runs as OpenTelemetry spans: one INTERNAL span per run (a caller's logical call), one
 * CLIENT child span per attempt that left the process, with the HTTP client semantic conventions.
 *
 *   run r1 "searchUsers" ───────────────────────────────────── cancel event (reason, dispatched)
 *     └─ attempt "GET" (resend_count 0) ── 503, error.type "503"
 *     └─ attempt "GET" (resend_count 1) ── 200
 *
 * A caller's cancel is an event, never an error status: law 1. Attempts belong to an execution,
 * which callers can share (coalescing); its events reach the sink through one of its runs, so
 * attempts are keyed by the execution's leader (a joiner's `coalesce` event names it).
 */
import {
  type Attributes,
  type Context,
  context,
  propagation,
  type Span,
  SpanKind,
  SpanStatusCode,
  type Tracer,
  trace,
} from '@opentelemetry/api';
import {
  type ErrorSummary,
  type HeadersHook,
  type OutgoingRequest,
  StitchError,
  type StitchEvent,
  type TraceSink,
} from '../index';

/** Options of {@link createOtelSink}. */
export interface OtelSinkOptions {
  /** The tracer spans are made with. @default trace.getTracer('stitch-fetch') */
  tracer?: Tracer | undefined;
}

/** A trace sink that also propagates trace context; pass it as `trace` and `headers` of `createEngine`. */
export interface OtelSink extends TraceSink {
  /**
   * For `createEngine({ headers })`: starts the attempt's span and injects its context into the
   * request with the registered propagator (a W3C `traceparent` with `W3CTraceContextPropagator`).
   */
  readonly headers: HeadersHook;
}

interface RunSpan {
  readonly span: Span;
  readonly context: Context;
  /** The run that started the execution this run is served by (itself, unless it joined one). */
  execution: string;
}

interface AttemptSpan {
  readonly attempt: number;
  readonly span: Span;
}

/**
 * `error.type`: the status code for an HTTP failure (a 429 too), the failure's kind otherwise
 * (an `invalid` 200 is not an error status).
 */
const errorType = (error: ErrorSummary) =>
  (error.kind === 'http' || error.kind === 'rate-limited') && error.status !== undefined
    ? String(error.status)
    : error.kind;

/** `server.address` and `server.port` of a URL, the port defaulted by scheme. */
function server(url: string): Attributes {
  try {
    const { hostname, port, protocol } = new URL(url);
    const fallback = protocol === 'https:' ? 443 : protocol === 'http:' ? 80 : undefined;
    return { 'server.address': hostname, 'server.port': port === '' ? fallback : Number(port) };
  } catch {
    return {};
  }
}

/**
 * Creates the sink. Spans start when the run starts, so a run's span is a child of the context
 * active where the call was made (a server's request span, say).
 */
export function createOtelSink(options: OtelSinkOptions = {}): OtelSink {
  const refuse = (field: string, problem: string) => {
    throw new StitchError({ kind: 'config', field, message: `\`${field}\` ${problem}` });
  };
  if (typeof options !== 'object' || options === null) refuse('options', 'must be { tracer }');
  for (const key of Object.keys(options)) if (key !== 'tracer') refuse(key, 'is not an option (tracer)');
  if (options.tracer !== undefined && typeof options.tracer?.startSpan !== 'function')
    refuse('tracer', 'must be an OpenTelemetry Tracer');
  const tracer = options.tracer ?? trace.getTracer('stitch-fetch');
  const runs = new Map<string, RunSpan>();
  const attempts = new Map<string, AttemptSpan>();

  /** The span context of whichever live run an execution is served by, for its attempts' parent. */
  const parentOf = (execution: string): Context => {
    const own = runs.get(execution);
    if (own) return own.context;
    for (const run of runs.values()) if (run.execution === execution) return run.context;
    return context.active();
  };

  const startAttempt = (execution: string, request: Omit<OutgoingRequest, 'run' | 'stitch' | 'preview'>) => {
    const open = attempts.get(execution);
    if (open?.attempt === request.attempt) return open;
    const attributes: Attributes = {
      'http.request.method': request.method,
      'url.full': request.url,
      ...server(request.url),
    };
    if (request.attempt > 1) attributes['http.request.resend_count'] = request.attempt - 1;
    const span = tracer.startSpan(request.method, { kind: SpanKind.CLIENT, attributes }, parentOf(execution));
    const started = { attempt: request.attempt, span };
    attempts.set(execution, started);
    return started;
  };

  /** Ends the execution's open attempt, if any; `error` marks it failed. */
  const endAttempt = (execution: string, error?: string, message?: string) => {
    const open = attempts.get(execution);
    if (!open) return;
    attempts.delete(execution);
    if (error !== undefined) {
      open.span.setAttribute('error.type', error);
      open.span.setStatus({ code: SpanStatusCode.ERROR, ...(message === undefined ? {} : { message }) });
    }
    open.span.end();
  };

  const handle = (event: StitchEvent) => {
    if (event.type === 'start') {
      const parent = context.active();
      const span = tracer.startSpan(
        event.stitch,
        {
          kind: SpanKind.INTERNAL,
          attributes: {
            'stitch.name': event.stitch,
            'stitch.run': event.run,
            'http.request.method': event.method,
            'url.full': event.url,
          },
        },
        parent,
      );
      runs.set(event.run, { span, context: trace.setSpan(parent, span), execution: event.run });
      return;
    }
    const run = runs.get(event.run);
    if (!run) return;
    const { span, execution } = run;
    switch (event.type) {
      case 'cache':
        span.setAttribute('stitch.cache', event.hit);
        return;
      case 'coalesce':
        run.execution = event.leader;
        span.setAttribute('stitch.coalesced_with', event.leader);
        return;
      case 'queued':
        span.addEvent('stitch.queued', {
          'stitch.throttle.key': event.key,
          'stitch.queue.position': event.position,
        });
        return;
      case 'circuit':
        span.addEvent('stitch.circuit', {
          'stitch.circuit.key': event.key,
          'stitch.circuit.from': event.from,
          'stitch.circuit.to': event.to,
        });
        return;
      case 'request':
        startAttempt(execution, event);
        return;
      case 'response': {
        const open = attempts.get(execution);
        open?.span.setAttribute('http.response.status_code', event.status);
        if (event.status >= 400) endAttempt(execution, String(event.status));
        return;
      }
      case 'retry':
        endAttempt(execution, errorType(event.error), event.error.message);
        span.addEvent('stitch.retry', { 'stitch.attempt': event.attempt, 'stitch.retry.delay': event.delay });
        return;
      case 'timeout':
        endAttempt(execution, 'timeout', `${event.phase} timeout`);
        span.addEvent('stitch.timeout', {
          'stitch.timeout.phase': event.phase,
          'stitch.dispatched': event.dispatched,
        });
        return;
      case 'cancel': {
        const attributes = {
          'stitch.cancel.reason': event.reason,
          'stitch.cancel.phase': event.phase,
          'stitch.cancel.shared': event.shared,
          'stitch.cancel.dispatched': event.dispatched,
        };
        span.addEvent('stitch.cancel', attributes);
        // Others still hold the request: it goes on, and so does its span.
        if (!event.shared && attempts.has(execution)) {
          attempts.get(execution)?.span.addEvent('stitch.cancel', attributes);
          endAttempt(execution);
        }
        return;
      }
      case 'error':
        endAttempt(execution, errorType(event.error), event.error.message);
        span.setAttribute('error.type', errorType(event.error));
        span.setStatus({ code: SpanStatusCode.ERROR, message: event.error.message });
        return;
      case 'success':
        endAttempt(execution);
        return;
      case 'done':
        span.setAttribute('stitch.outcome', event.outcome);
        span.end();
        runs.delete(event.run);
        return;
      default:
        return;
    }
  };

  const headers: HeadersHook = (request) => {
    // No span for a preview: no attempt is sent for it (a call answered from its record, say).
    if (request.preview) return undefined;
    const { span } = startAttempt(request.run, request);
    const carrier: Record<string, string> = {};
    propagation.inject(trace.setSpan(parentOf(request.run), span), carrier);
    return carrier;
  };

  return { handle, headers };
}
