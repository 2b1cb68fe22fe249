/**
 * An OpenTelemetry SDK for one test file: an in-memory exporter, the W3C propagator, and a
 * synchronous context manager (the SDK's base package ships none), so `context.with` makes a
 * parent span active for the calls made inside it.
 */
import { type Context, type ContextManager, context, propagation, ROOT_CONTEXT } from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';

function stackContextManager(): ContextManager {
  let current: Context = ROOT_CONTEXT;
  const manager: ContextManager = {
    active: () => current,
    with(ctx, fn, thisArg, ...args) {
      const previous = current;
      current = ctx;
      try {
        return fn.call(thisArg, ...args);
      } finally {
        current = previous;
      }
    },
    bind: (_ctx, target) => target,
    enable: () => manager,
    disable: () => {
      current = ROOT_CONTEXT;
      return manager;
    },
  };
  return manager;
}

/** Registers the globals; returns the tracer, the exporter and the function that unregisters. */
export function installOtel() {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  context.setGlobalContextManager(stackContextManager());
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  return {
    tracer: provider.getTracer('stitch-test'),
    exporter,
    uninstall() {
      context.disable();
      propagation.disable();
    },
  };
}
