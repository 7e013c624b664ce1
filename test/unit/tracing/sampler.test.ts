/** samplerOf: the standard OTEL_TRACES_SAMPLER names, with and without a client's parent. */
import { ROOT_CONTEXT, SpanKind, TraceFlags, trace, type Context } from '@opentelemetry/api';
import { SamplingDecision } from '@opentelemetry/sdk-trace-base';
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { TracingConfig } from '../../../src/config/types.js';
import { samplerOf } from '../../../src/tracing/open-tracing.js';

const newTraceId = () => randomBytes(16).toString('hex');
const withParent = (sampled: boolean): Context =>
  trace.setSpanContext(ROOT_CONTEXT, { traceId: newTraceId(), spanId: randomBytes(8).toString('hex'), traceFlags: sampled ? TraceFlags.SAMPLED : TraceFlags.NONE, isRemote: true });

function decide(sampler: TracingConfig['sampler'], context: Context, sampleRatio = 1, traceId = newTraceId()): boolean {
  const result = samplerOf({ sampler, sampleRatio }).shouldSample(context, traceId, 'POST /v1/chat/completions', SpanKind.SERVER, {}, []);
  return result.decision === SamplingDecision.RECORD_AND_SAMPLED;
}

describe('samplerOf', () => {
  it('always_on and always_off ignore the client', () => {
    for (const context of [ROOT_CONTEXT, withParent(true), withParent(false)]) {
      expect(decide('always_on', context)).toBe(true);
      expect(decide('always_off', context)).toBe(false);
    }
  });

  it('parentbased_always_on: new traces sampled, a client trace as the client sampled it', () => {
    expect(decide('parentbased_always_on', ROOT_CONTEXT)).toBe(true);
    expect(decide('parentbased_always_on', withParent(true))).toBe(true);
    expect(decide('parentbased_always_on', withParent(false))).toBe(false);
  });

  it('parentbased_always_off: only what a client sampled', () => {
    expect(decide('parentbased_always_off', ROOT_CONTEXT)).toBe(false);
    expect(decide('parentbased_always_off', withParent(true))).toBe(true);
    expect(decide('parentbased_always_off', withParent(false))).toBe(false);
  });

  it('traceidratio keeps that share of new traces, decided by the trace id (the same id, the same answer)', () => {
    expect(decide('traceidratio', ROOT_CONTEXT, 0)).toBe(false);
    expect(decide('traceidratio', ROOT_CONTEXT, 1)).toBe(true);
    const ids = Array.from({ length: 4000 }, newTraceId);
    const kept = ids.filter((id) => decide('traceidratio', ROOT_CONTEXT, 0.25, id)).length;
    expect(kept / ids.length).toBeGreaterThan(0.2);
    expect(kept / ids.length).toBeLessThan(0.3);
    for (const id of ids.slice(0, 50)) expect(decide('traceidratio', ROOT_CONTEXT, 0.25, id)).toBe(decide('traceidratio', ROOT_CONTEXT, 0.25, id));
  });

  it('parentbased_traceidratio: the ratio for new traces, the client decides its own', () => {
    expect(decide('parentbased_traceidratio', ROOT_CONTEXT, 0)).toBe(false);
    expect(decide('parentbased_traceidratio', withParent(true), 0)).toBe(true);
    expect(decide('parentbased_traceidratio', withParent(false), 1)).toBe(false);
  });
});
