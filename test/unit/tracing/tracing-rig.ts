/** A Tracing whose spans end up in memory at once (no batching, no network), for unit tests. */
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { Tracing } from '../../../src/tracing/tracing.js';

export function memoryTracing(): { tracing: Tracing; spans: () => ReadableSpan[] } {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  return { tracing: new Tracing(provider.getTracer('test'), new W3CTraceContextPropagator(), () => provider.shutdown()), spans: () => exporter.getFinishedSpans() };
}
