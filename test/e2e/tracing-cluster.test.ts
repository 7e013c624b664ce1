/**
 * Cluster mode with tracing on: every worker builds its own tracer and exports on its own (the primary
 * serves no request and exports nothing), each span naming its process in its resource.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOtlpReceiver, type OtlpReceiver } from '../support/otlp-receiver.js';
import { startSpawnedRouter, type SpawnedRouter } from '../security/process-harness.js';

describe('tracing in cluster mode (two workers)', () => {
  let router: SpawnedRouter;
  let collector: OtlpReceiver;
  let key: string;
  beforeAll(async () => {
    collector = await startOtlpReceiver();
    router = await startSpawnedRouter({ readyTimeoutMs: 40_000, env: { ROUTER_WORKERS: '2', OTEL_EXPORTER_OTLP_ENDPOINT: collector.url, OTEL_BSP_SCHEDULE_DELAY: '100' } });
    ({ key } = await router.account('pro'));
  }, 60_000);
  afterAll(async () => {
    await router?.close();
    await collector?.close();
  });

  it('every worker exports its requests, with the client trace continued', async () => {
    const serversByPid = () => new Set(collector.spans().filter((span) => span.kind === 2).map((span) => span.resource['process.pid']));
    // Each request on a new connection: the workers accept from the shared socket, so both get some.
    for (let i = 0; i < 40 && serversByPid().size < 2; i++) {
      const traceId = `${i.toString(16).padStart(2, '0')}${'a'.repeat(30)}`;
      const response = await fetch(`${router.baseURL}/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'user-agent': 'tracing-tests/1.0', connection: 'close', traceparent: `00-${traceId}-${'b'.repeat(16)}-01` },
        body: JSON.stringify({ model: 'router/frontier', messages: [{ role: 'user', content: 'hi' }] }),
      });
      expect(response.status).toBe(200);
      await collector.waitFor((spans) => spans.some((span) => span.traceId === traceId && span.kind === 2), 5000);
    }
    expect(serversByPid().size).toBe(2);
    for (const span of collector.spans().filter((candidate) => candidate.kind === 2)) expect(span.parentSpanId).toBe('b'.repeat(16));
  });
});
