/**
 * Properties of what the router reads from clients and writes to spans: any `traceparent` header
 * (anything a client may send) never throws and continues a trace exactly when it is well formed (W3C Trace Context); any
 * attribute value, however long, is exported bounded.
 */
import fc from 'fast-check';
import { ExportResultCode } from '@opentelemetry/core';
import type { ReadableSpan, SpanExporter } from '@opentelemetry/sdk-trace-base';
import { describe, expect, it } from 'vitest';
import { openTracing } from '../../../src/tracing/open-tracing.js';
import { MAX_ATTRIBUTE_LENGTH } from '../../../src/tracing/span-attributes.js';
import { memoryTracing } from './tracing-rig.js';

const hex = (length: number) => fc.string({ unit: fc.constantFrom(...'0123456789abcdef'), minLength: length, maxLength: length });
/**
 * W3C Trace Context: version 00 has exactly four fields; a later version (not ff) is read by its first
 * four, whatever follows them; ids are lower-case hex and not all zeros.
 */
function wellFormed(header: string): { traceId: string; spanId: string } | null {
  const match = /^(?:00-([0-9a-f]{32})-([0-9a-f]{16})-[0-9a-f]{2}|(?!ff|00)[0-9a-f]{2}-([0-9a-f]{32})-([0-9a-f]{16})-[0-9a-f]{2}(?:-.*)?)$/.exec(header.trim());
  if (!match) return null;
  const traceId = match[1] ?? match[3]!;
  const spanId = match[2] ?? match[4]!;
  return /^0+$/.test(traceId) || /^0+$/.test(spanId) ? null : { traceId, spanId };
}

/** Valid headers, and near misses: one character changed, cut, lengthened, upper-cased, or other versions. */
const header = fc.oneof(
  fc.string(),
  fc.string({ unit: fc.constantFrom(...'0123456789abcdefABCDEF-xz \t'), maxLength: 70 }),
  fc.tuple(hex(32), hex(16), hex(2)).map(([trace, span, flags]) => `00-${trace}-${span}-${flags}`),
  fc
    .tuple(hex(32), hex(16), hex(2), fc.nat(54), fc.string({ maxLength: 3 }), fc.constantFrom('replace', 'cut', 'insert', 'upper', 'version'))
    .map(([trace, span, flags, at, text, how]) => {
      const valid = `00-${trace}-${span}-${flags}`;
      if (how === 'replace') return valid.slice(0, at) + text + valid.slice(at + 1);
      if (how === 'cut') return valid.slice(0, at);
      if (how === 'insert') return valid.slice(0, at) + text + valid.slice(at);
      if (how === 'upper') return valid.toUpperCase();
      return `${['ff', '01', 'cc'][at % 3]}${valid.slice(2)}${text === '' ? '' : `-${text}`}`;
    }),
);

describe('a client’s traceparent', () => {
  it('never throws, and continues the client’s trace exactly when well formed (lower-case hex, ids not all zero, version 00 or a later one)', () => {
    const { tracing } = memoryTracing();
    fc.assert(
      fc.property(header, fc.option(fc.string(), { nil: undefined }), (traceparent, tracestate) => {
        const request = tracing.startRequest({ traceparent, ...(tracestate === undefined ? {} : { tracestate }) }, 'POST /v1/chat/completions', {});
        const client = wellFormed(traceparent);
        // Continued: the client's trace id (a sampled parent is also the span's parent; an unsampled one
        // makes a non-recording span that carries the client's context on).
        expect(request.traceId === client?.traceId).toBe(client !== null);
        expect(request.traceId).toMatch(/^[0-9a-f]{32}$/);
        const parent = (request.server.span as unknown as ReadableSpan).parentSpanContext;
        if (parent) expect(parent.spanId).toBe(client!.spanId);
        request.server.span.end();
      }),
      { numRuns: 2000 },
    );
  });
});

describe('attribute values', () => {
  it('are exported at most MAX_ATTRIBUTE_LENGTH characters long, strings and arrays of strings alike', async () => {
    const exported: ReadableSpan[] = [];
    const exporter: SpanExporter = {
      export: (spans, done) => {
        exported.push(...spans);
        done({ code: ExportResultCode.SUCCESS });
      },
      shutdown: async () => undefined,
    };
    const tracing = openTracing(
      { enabled: true, endpoint: 'http://127.0.0.1:9/v1/traces', serviceName: 'test', sampler: 'always_on', sampleRatio: 1, maxQueueSize: 100_000, exportIntervalMs: 60_000, exportTimeoutMs: 1000 },
      { logger: { warn: () => undefined }, serviceVersion: '0', exporter },
    )!;
    const values: Array<string | string[]> = [];
    fc.assert(
      fc.property(fc.oneof(fc.string({ maxLength: 2000 }), fc.array(fc.string({ maxLength: 600 }), { maxLength: 5 })), (value) => {
        const request = tracing.startRequest({}, 'POST /v1/chat/completions', { 'router.request_id': value });
        request.server.span.setAttribute('router.error.code', value);
        request.server.span.end();
        values.push(value);
      }),
      { numRuns: 300 },
    );
    await tracing.shutdown();
    expect(exported).toHaveLength(values.length);
    for (const span of exported) {
      for (const value of Object.values(span.attributes)) {
        for (const item of Array.isArray(value) ? value : [value]) expect(String(item).length).toBeLessThanOrEqual(MAX_ATTRIBUTE_LENGTH);
      }
    }
  });
});
