// The one file that knows OpenTelemetry. It builds a tracer provider of its own (nothing is registered
// globally: no global tracer provider, propagator or context manager), exports spans over OTLP/HTTP in
// protobuf or JSON, and gives the service the narrow `Tracer` of src/service.ts: a server span per request
// that continues the caller's W3C trace context, and child spans (verification, storage) found through an
// AsyncLocalStorage of its own. Built only when config/tracing.ts found the OTEL_* variables.
import { AsyncLocalStorage } from 'node:async_hooks';
import {
  type Context,
  defaultTextMapGetter,
  ROOT_CONTEXT,
  type Span,
  SpanKind,
  SpanStatusCode,
  trace,
} from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter as JsonExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as ProtobufExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { AlwaysOnSampler, BatchSpanProcessor, ParentBasedSampler, TracerProvider } from '@opentelemetry/sdk-trace';
import type { OtlpProtocol, TracingSettings } from '../service-config.js';
import type { SpanAttributes, Tracer } from '../service.js';

export interface Tracing {
  readonly tracer: Tracer;
  /** Sends the spans still buffered and stops the exporter (at shutdown). */
  shutdown(): Promise<void>;
}

const INSTRUMENTATION = 'passkey-server';
/** One exporter class per OTLP/HTTP protocol (config/tracing.ts refuses any other). */
const EXPORTERS = { 'http/json': JsonExporter, 'http/protobuf': ProtobufExporter } satisfies Record<
  OtlpProtocol,
  unknown
>;

export function startTracing(settings: TracingSettings): Tracing {
  const exporter = new EXPORTERS[settings.protocol]({ url: settings.url, headers: { ...settings.headers } });
  const provider = new TracerProvider({
    resource: resourceFromAttributes({ 'service.name': settings.serviceName }),
    sampler: new ParentBasedSampler({ root: new AlwaysOnSampler() }),
    spanProcessors: [new BatchSpanProcessor({ exporter, scheduledDelayMillis: 1000 })],
  });
  const otel = provider.getTracer(INSTRUMENTATION);
  const propagator = new W3CTraceContextPropagator();
  const current = new AsyncLocalStorage<Context>();

  const tracer: Tracer = {
    request(name, carrier, fn) {
      const headers: Record<string, string> = {};
      if (carrier.traceparent !== undefined) headers.traceparent = carrier.traceparent;
      if (carrier.tracestate !== undefined) headers.tracestate = carrier.tracestate;
      const parent = propagator.extract(ROOT_CONTEXT, headers, defaultTextMapGetter);
      const span = otel.startSpan(name, { kind: SpanKind.SERVER }, parent);
      const context = trace.setSpan(parent, span);
      return endWhenSettled(
        span,
        current.run(context, () => fn({ set: (attributes) => span.setAttributes(attributes) })),
      );
    },

    child(name, attributes, fn) {
      const parent = current.getStore();
      // Outside a request (start, background work): no span, as when tracing is off.
      if (parent === undefined) return fn();
      const span = otel.startSpan(name, { kind: SpanKind.INTERNAL, attributes }, parent);
      let result: ReturnType<typeof fn>;
      try {
        result = current.run(trace.setSpan(parent, span), fn);
      } catch (error) {
        fail(span, error);
        span.end();
        throw error;
      }
      if (result instanceof Promise) return endWhenSettled(span, result) as typeof result;
      span.end();
      return result;
    },
  };
  return { tracer, shutdown: () => provider.shutdown() };
}

/** Ends `span` once `promise` settles, recording a rejection (both the request's span and a child's). */
function endWhenSettled<T>(span: Span, promise: Promise<T>): Promise<T> {
  return promise.then(
    (value) => {
      span.end();
      return value;
    },
    (error: unknown) => {
      fail(span, error);
      span.end();
      throw error;
    },
  );
}

/** An exception is recorded by its name (an error code of the catalogue, or the class): never its message. */
function fail(span: Span, error: unknown): void {
  const code = (error as { code?: unknown } | null)?.code;
  const name = typeof code === 'string' ? code : error instanceof Error ? error.name : 'Error';
  span.setAttributes({ 'error.type': name } satisfies SpanAttributes);
  span.setStatus({ code: SpanStatusCode.ERROR });
}

/**
 * Each method of `store` inside a child span `<label>.<method>` (attribute `passkey.store`): what a request
 * waits for in storage. The wrapped functions are made once per method.
 */
export function tracedStore<T extends object>(store: T, label: string, tracer: Tracer): T {
  const wrapped = new Map<PropertyKey, unknown>();
  return new Proxy(store, {
    get(target, property) {
      const value: unknown = Reflect.get(target, property, target);
      if (typeof value !== 'function' || typeof property !== 'string') return value;
      let wrapper = wrapped.get(property);
      if (wrapper === undefined) {
        const name = `${label}.${property}`;
        const attributes = { 'passkey.store': label };
        wrapper = (...args: unknown[]) => tracer.child(name, attributes, () => value.apply(target, args));
        wrapped.set(property, wrapper);
      }
      return wrapper;
    },
  });
}
