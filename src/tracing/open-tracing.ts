/**
 * Builds the process's Tracing from `tracing` in server.yaml: a tracer provider of its own (nothing is
 * registered globally, so tests and cluster workers each have theirs), the configured sampler, spans
 * queued in a bounded batch (a full queue drops spans, never waits) and exported over OTLP/HTTP as JSON.
 * Export failures are logged, at most one line a minute, and never reach a request.
 */
import { hostname } from 'node:os';
import { diag, DiagLogLevel, type DiagLogger } from '@opentelemetry/api';
import { ExportResultCode, W3CTraceContextPropagator, type ExportResult } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  BasicTracerProvider,
  BatchSpanProcessor,
  ParentBasedSampler,
  TraceIdRatioBasedSampler,
  type ReadableSpan,
  type Sampler,
  type SpanExporter,
} from '@opentelemetry/sdk-trace-base';
import { ATTR_SERVICE_NAME, ATTR_SERVICE_VERSION } from '@opentelemetry/semantic-conventions';
import type { TracingConfig } from '../config/types.js';
import { MAX_ATTRIBUTE_LENGTH } from './span-attributes.js';
import { Tracing } from './tracing.js';

export interface TracingLogger {
  warn(message: string): void;
}

export interface OpenTracingOptions {
  logger: TracingLogger;
  serviceVersion: string;
  /** Where spans go; the OTLP/HTTP exporter of `config.endpoint` unless given (tests). */
  exporter?: SpanExporter;
  now?: () => number;
}

const LOG_EVERY_MS = 60_000;

export function openTracing(config: TracingConfig, options: OpenTracingOptions): Tracing | undefined {
  if (!config.enabled) return undefined;
  const now = options.now ?? Date.now;
  // The SDK reports what it drops (a full queue) and its own failures through `diag` (the API's one
  // process-wide logger; the last Tracing opened owns it); only warnings and errors reach the log.
  diag.setLogger(sdkDiagnostics(throttled(options.logger, now)), { logLevel: DiagLogLevel.WARN, suppressOverrideMessage: true });
  const exporter = loggingFailures(
    options.exporter ?? new OTLPTraceExporter({ url: config.endpoint, timeoutMillis: config.exportTimeoutMs }),
    config.endpoint,
    throttled(options.logger, now),
  );
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({
      [ATTR_SERVICE_NAME]: config.serviceName,
      [ATTR_SERVICE_VERSION]: options.serviceVersion,
      // Every cluster worker exports on its own: its pid tells them apart.
      'service.instance.id': `${hostname()}:${process.pid}`,
      'process.pid': process.pid,
    }),
    sampler: samplerOf(config),
    spanLimits: { attributeValueLengthLimit: MAX_ATTRIBUTE_LENGTH, attributeCountLimit: 64, eventCountLimit: 8, linkCountLimit: 0 },
    spanProcessors: [
      new BatchSpanProcessor(exporter, {
        maxQueueSize: config.maxQueueSize,
        maxExportBatchSize: Math.min(512, config.maxQueueSize),
        scheduledDelayMillis: config.exportIntervalMs,
        exportTimeoutMillis: config.exportTimeoutMs,
      }),
    ],
  });
  return new Tracing(provider.getTracer('llm-router', options.serviceVersion), new W3CTraceContextPropagator(), () => provider.shutdown().catch(() => undefined));
}

/** The standard OTEL_TRACES_SAMPLER names. */
export function samplerOf(config: Pick<TracingConfig, 'sampler' | 'sampleRatio'>): Sampler {
  switch (config.sampler) {
    case 'always_on':
      return new AlwaysOnSampler();
    case 'always_off':
      return new AlwaysOffSampler();
    case 'traceidratio':
      return new TraceIdRatioBasedSampler(config.sampleRatio);
    case 'parentbased_always_on':
      return new ParentBasedSampler({ root: new AlwaysOnSampler() });
    case 'parentbased_always_off':
      return new ParentBasedSampler({ root: new AlwaysOffSampler() });
    case 'parentbased_traceidratio':
      return new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(config.sampleRatio) });
  }
}

/** A failed export is one log line naming the collector and the reason's class, never a response body. */
function loggingFailures(exporter: SpanExporter, endpoint: string, warn: (message: string) => void): SpanExporter {
  const where = safeOrigin(endpoint);
  return {
    export(spans: ReadableSpan[], done: (result: ExportResult) => void) {
      exporter.export(spans, (result) => {
        if (result.code !== ExportResultCode.SUCCESS) warn(`trace export to ${where} failed (${result.error?.name ?? 'error'}); ${spans.length} spans dropped`);
        done(result);
      });
    },
    shutdown: () => exporter.shutdown(),
    forceFlush: () => exporter.forceFlush?.() ?? Promise.resolve(),
  };
}

function sdkDiagnostics(warn: (message: string) => void): DiagLogger {
  const ignore = () => undefined;
  // Only the SDK's own fixed wording (queue drops, export errors): at most a line a minute.
  const report = (message: string) => warn(`tracing: ${message.slice(0, 200)}`);
  return { error: report, warn: report, info: ignore, debug: ignore, verbose: ignore };
}

/** The collector's origin: a URL's path or credentials are not for the log. */
function safeOrigin(endpoint: string): string {
  try {
    return new URL(endpoint).origin;
  } catch {
    return 'the collector';
  }
}

/** The first warning at once, then at most one a minute with how many were held back. */
function throttled(logger: TracingLogger, now: () => number): (message: string) => void {
  let last = -Infinity;
  let held = 0;
  return (message) => {
    const at = now();
    if (at - last < LOG_EVERY_MS) {
      held++;
      return;
    }
    last = at;
    logger.warn(held > 0 ? `${message} (and ${held} similar since the last report)` : message);
    held = 0;
  };
}
