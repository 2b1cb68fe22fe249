export { createOtelSink, type OtelSink, type OtelSinkOptions } from './sink';
