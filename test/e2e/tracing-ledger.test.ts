/**
 * A traced request's trace id is kept with its usage record, so its receipt (GET /v1/generation) and a
 * support bundle (the CLI's and the customer's) lead to the trace: the client's trace id when it sent a sampled `traceparent`, none when
 * the trace was not recorded (the client's unsampled flag). On SQLite, and PostgreSQL when configured.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLedgerViews } from '../../src/runtime/ledger-views.js';
import { startOtlpReceiver, type OtlpReceiver } from '../support/otlp-receiver.js';
import { startRouterOn, usageBackends, type UsageBackend } from './usage-backends.js';
import { PROVIDER_KEYS, TEST_SECRET, frontierOrder, pointProvidersAt, runCli, startFakes, waitFor, type Fakes, type TestRouter } from './router-harness.js';

const traceparentOf = (traceId: string, sampled: boolean) => `00-${traceId}-${randomBytes(8).toString('hex')}-${sampled ? '01' : '00'}`;

describe.each(usageBackends('trace_ledger'))('trace ids in the ledger and support bundles on %s', { timeout: 60_000 }, (_name, makeBackend) => {
  let backend: UsageBackend;
  let fakes: Fakes;
  let receiver: OtlpReceiver;
  let router: TestRouter;
  let account: { accountId: string; key: string };
  const outDir = mkdtempSync(join(tmpdir(), 'router-trace-bundle-'));

  beforeAll(async () => {
    backend = makeBackend();
    fakes = await startFakes();
    receiver = await startOtlpReceiver();
    backend.env.OTEL_EXPORTER_OTLP_ENDPOINT = receiver.url;
    backend.env.OTEL_BSP_SCHEDULE_DELAY = '50';
    router = await startRouterOn(backend, { providers: pointProvidersAt(fakes.urls), routes: frontierOrder(['openai', 'anthropic']) });
    account = await router.createAccount('pro', { providerKeys: { openai: PROVIDER_KEYS.openai, anthropic: PROVIDER_KEYS.anthropic } });
  }, 60_000);
  afterAll(async () => {
    await router?.close();
    await fakes?.close();
    await receiver?.close();
    await backend?.cleanUp();
    rmSync(outDir, { recursive: true, force: true });
  });

  async function chat(traceparent: string): Promise<string> {
    const written = router.server.runtime.usage.ledger?.status().written ?? 0;
    const response = await fetch(`${router.baseURL}/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${account.key}`, 'content-type': 'application/json', 'user-agent': 'router-tests/1.0', traceparent },
      body: JSON.stringify({ model: 'router/frontier', messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(response.status).toBe(200);
    await response.text();
    await waitFor(() => (router.server.runtime.usage.ledger?.status().written ?? 0) > written, 5000);
    return response.headers.get('x-request-id')!;
  }

  const receiptOf = async (requestId: string) => {
    const response = await fetch(`${router.baseURL}/generation?id=${encodeURIComponent(requestId)}`, { headers: { authorization: `Bearer ${account.key}`, 'user-agent': 'router-tests/1.0' } });
    expect(response.status).toBe(200);
    return ((await response.json()) as { data: { trace_id: string | null } }).data;
  };

  it('a sampled request: its trace id on its record, its receipt, the CLI bundle and the customer bundle', async () => {
    const traceId = randomBytes(16).toString('hex');
    const requestId = await chat(traceparentOf(traceId, true));
    expect((await receiptOf(requestId)).trace_id).toBe(traceId);

    const out = join(outDir, `cli-${backend.name}.json`);
    const env = { ROUTER_CONFIG: router.configDir, ROUTER_SECRET_KEY: TEST_SECRET, ...backend.env };
    const result = await runCli(env, 'support-bundle', '--account', account.accountId, '--request-id', requestId, '--out', out, '--json');
    expect(result.code, result.stderr).toBe(0);
    const cli = JSON.parse(readFileSync(out, 'utf8'));
    expect(cli.request.traceId).toBe(traceId);
    expect(cli.request.records[0].traceId).toBe(traceId);

    const customer = (await createLedgerViews(router.server.runtime).supportBundle(account.accountId, requestId))!;
    expect(customer.request.traceId).toBe(traceId);
    expect(customer.request.records.map((record) => record.traceId)).toEqual([traceId]);
  });

  it('a request whose trace was not recorded (the client did not sample it) keeps no trace id', async () => {
    const requestId = await chat(traceparentOf(randomBytes(16).toString('hex'), false));
    const customer = (await createLedgerViews(router.server.runtime).supportBundle(account.accountId, requestId))!;
    expect(customer.request.records).toHaveLength(1);
    expect(customer.request.records[0]!.traceId).toBeUndefined();
    expect(customer.request.traceId).toBeUndefined();
    expect((await receiptOf(requestId)).trace_id).toBeNull();
  });
});
