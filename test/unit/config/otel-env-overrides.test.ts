import { describe, expect, it } from 'vitest';
import { applyEnvOverrides } from '../../../src/config/apply-env-overrides.js';

const tracingOf = (env: Record<string, string>, yaml: Record<string, unknown> = {}) => {
  const server: Record<string, unknown> = { tracing: { ...yaml } };
  applyEnvOverrides(server, env);
  return server.tracing;
};

describe('the standard OTEL_* variables set tracing', () => {
  it('OTEL_EXPORTER_OTLP_ENDPOINT alone turns tracing on, sending to its /v1/traces', () => {
    expect(tracingOf({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318/' })).toEqual({ enabled: true, endpoint: 'http://collector:4318/v1/traces' });
  });

  it('the traces endpoint is taken as is and wins over the base one', () => {
    expect(tracingOf({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://a:4318', OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://b:4318/custom' })).toMatchObject({ endpoint: 'http://b:4318/custom' });
  });

  it('sampler, ratio, service name and the batch settings', () => {
    expect(
      tracingOf({ OTEL_TRACES_SAMPLER: 'TraceIdRatio', OTEL_TRACES_SAMPLER_ARG: '0.25', OTEL_SERVICE_NAME: 'edge-router', OTEL_BSP_SCHEDULE_DELAY: '200', OTEL_BSP_MAX_QUEUE_SIZE: '100', OTEL_BSP_EXPORT_TIMEOUT: '3000' }),
    ).toEqual({ sampler: 'traceidratio', sampleRatio: 0.25, serviceName: 'edge-router', exportIntervalMs: 200, maxQueueSize: 100, exportTimeoutMs: 3000 });
  });

  it('OTEL_SDK_DISABLED=true turns it off whatever else says on; any other value changes nothing', () => {
    expect(tracingOf({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://a:4318', OTEL_SDK_DISABLED: 'true' })).toMatchObject({ enabled: false });
    expect(tracingOf({ OTEL_SDK_DISABLED: 'false' }, { enabled: true })).toEqual({ enabled: true });
  });

  it('a ratio that is not a number is left for the schema to report', () => {
    expect(tracingOf({ OTEL_TRACES_SAMPLER_ARG: 'half' })).toEqual({ sampleRatio: 'half' });
  });
});
