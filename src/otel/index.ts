/**
 * An OpenTelemetry trace sink: one span per run, one client span per attempt, cancellations as
 * span events, and W3C trace context on outgoing requests.
 * @module stitch-fetch/otel
 */
export { createOtelSink, type OtelSink, type OtelSinkOptions } from './sink';
