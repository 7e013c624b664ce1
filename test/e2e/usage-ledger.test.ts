/**
 * The usage ledger through the public interface: real HTTP with the official SDK and raw SSE, fake
 * upstreams, on SQLite and on PostgreSQL + Redis. Each request's record is read back and compared with
 * what the client saw; the usage report over the same account must equal the raw records summed.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { LedgerRecord } from '../../src/stores/ledger-store.js';
import { lastUsedByKey, usageReport } from '../../src/usage/usage-report.js';
import { startRouterOn, usageBackends, type UsageBackend } from './usage-backends.js';
import {
  PROVIDER_KEYS,
  frontierOrder,
  pointProvidersAt,
  postV1,
  readSse,
  sdkClient,
  startFakes,
  waitFor,
  type Fakes,
  type TestRouter,
} from './router-harness.js';

const HELLO = { model: 'router/frontier', messages: [{ role: 'user' as const, content: 'Say hello' }] };
/** gpt-4.1 at 2 / 0.5 / 8 USD per million tokens (config/providers.yaml): nano-USD per token. */
const GPT41 = { input: 2000, output: 8000 };

/** A second OpenAI-compatible host (the same fake) that cannot stream usage and has no prices: router/fusion, made a plain route, goes there. */
function addPlainHost(urls: Fakes['urls']) {
  return (doc: any) => {
    doc.circuitBreaker = { failureThreshold: 1000, cooldownMs: 1000 };
    doc.providers.push({ id: 'plainhost', name: 'Plain host', format: 'openai', baseUrl: urls.openai, streamUsage: false });
  };
}

describe.each(usageBackends('ledger'))('the usage ledger on %s', (_name, makeBackend) => {
  let backend: UsageBackend;
  let fakes: Fakes;
  let router: TestRouter;
  let account: { accountId: string; key: string; keyId: string };

  /** The request's records once its batch is written (the ledger flushes every 100 ms here). */
  const recordsOf = async (requestId: string | null): Promise<LedgerRecord[]> => {
    let found: LedgerRecord[] = [];
    const deadline = Date.now() + 5000;
    while (found.length === 0 && Date.now() < deadline) {
      found = await router.server.runtime.usage.store.findRecords({ requestId: requestId ?? '' });
      if (found.length === 0) await new Promise((resolve) => setTimeout(resolve, 50));
    }
    return found;
  };

  beforeAll(async () => {
    backend = makeBackend();
    fakes = await startFakes();
    router = await startRouterOn(backend, {
      providers: pointProvidersAt(fakes.urls, addPlainHost(fakes.urls)),
      routes: (doc) => {
        frontierOrder(['openai', 'anthropic', 'gemini'])(doc);
        // A plain single-call route on that host (fusion's own records: fusion-synthesis.test.ts).
        const plain = doc.routes.find((route: { id: string }) => route.id === 'router/fusion');
        plain.tiers = [[{ provider: 'plainhost', model: 'gpt-4.1' }]];
        delete plain.fusion;
      },
    });
    account = await router.createAccount('pro', { providerKeys: { ...PROVIDER_KEYS, plainhost: PROVIDER_KEYS.openai } });
  });
  afterEach(() => fakes.reset());
  afterAll(async () => {
    await router?.close();
    await fakes?.close();
    await backend?.cleanUp();
  });

  it('records a chat completion with the tokens the client saw and their cost at the model price', async () => {
    const { data, response } = await sdkClient(router, account.key).chat.completions.create(HELLO).withResponse();
    const [record] = await recordsOf(response.headers.get('x-request-id'));
    const usage = data.usage!;
    expect(record).toMatchObject({
      call: 'main',
      accountId: account.accountId,
      keyId: account.keyId,
      routeId: 'router/frontier',
      endpoint: '/v1/chat/completions',
      providerId: 'openai',
      upstreamModel: 'gpt-4.1',
      credentialSource: 'byok',
      status: 200,
      errorCode: null,
      retryCount: 0,
      usage: { prompt: usage.prompt_tokens, completion: usage.completion_tokens, reasoning: 0, cached: 0 },
      costNanoUsd: usage.prompt_tokens * GPT41.input + usage.completion_tokens * GPT41.output,
      meteredNanoUsd: 0,
      clientClosed: false,
    });
    expect(record!.firstByteMs).not.toBeNull();
    expect(record!.totalMs).toBeGreaterThanOrEqual(record!.firstByteMs!);
  });

  it('asks the upstream for stream usage without showing it to a client that did not ask', async () => {
    const response = await postV1(router, account.key, '/chat/completions', { ...HELLO, stream: true });
    const events = await readSse(response);
    expect(events.some((event) => event.data !== '[DONE]' && 'usage' in JSON.parse(event.data))).toBe(false);
    expect(fakes.openai.requests.at(-1)!.body).toMatchObject({ stream_options: { include_usage: true } });
    const [record] = await recordsOf(response.headers.get('x-request-id'));
    expect(record).toMatchObject({ providerId: 'openai', usage: { prompt: 10, completion: 20 }, costNanoUsd: 10 * GPT41.input + 20 * GPT41.output });
  });

  it('marks tokens unknown when the upstream reports none, and a model without a price as unpriced', async () => {
    const stream = await postV1(router, account.key, '/chat/completions', { ...HELLO, model: 'router/fusion', stream: true });
    await readSse(stream);
    expect(await recordsOf(stream.headers.get('x-request-id'))).toMatchObject([{ providerId: 'plainhost', usage: null, costNanoUsd: null }]);
    const json = await postV1(router, account.key, '/chat/completions', { ...HELLO, model: 'router/fusion' });
    expect(json.status).toBe(200);
    expect(await recordsOf(json.headers.get('x-request-id'))).toMatchObject([{ providerId: 'plainhost', usage: { prompt: 10, completion: 20 }, costNanoUsd: null }]);
  });

  it('records Responses requests, JSON and streamed', async () => {
    const { data, response } = await sdkClient(router, account.key).responses.create({ model: 'router/frontier', input: 'Say hello' }).withResponse();
    expect(await recordsOf(response.headers.get('x-request-id'))).toMatchObject([
      { endpoint: '/v1/responses', usage: { prompt: data.usage!.input_tokens, completion: data.usage!.output_tokens } },
    ]);
    const stream = await postV1(router, account.key, '/responses', { model: 'router/frontier', input: 'Say hello', stream: true });
    const completed = (await readSse(stream)).find((event) => event.event === 'response.completed');
    const usage = JSON.parse(completed!.data).response.usage;
    expect(await recordsOf(stream.headers.get('x-request-id'))).toMatchObject([{ endpoint: '/v1/responses', usage: { prompt: usage.input_tokens, completion: usage.output_tokens } }]);
  });

  it('records every attempt of a request that failed over, and a request no upstream served', async () => {
    fakes.openai.failNext({ kind: 'status', status: 503 });
    const served = await postV1(router, account.key, '/chat/completions', HELLO);
    expect(served.status).toBe(200);
    const [failover] = await recordsOf(served.headers.get('x-request-id'));
    expect(failover).toMatchObject({ providerId: 'anthropic', retryCount: 1 });
    expect(failover!.attempts.map((attempt) => [attempt.provider, attempt.status])).toEqual([
      ['openai', 503],
      ['anthropic', 200],
    ]);

    for (const fake of [fakes.openai, fakes.anthropic, fakes.gemini]) fake.failNext({ kind: 'status', status: 500 });
    const failed = await postV1(router, account.key, '/chat/completions', HELLO);
    expect(failed.status).toBe(502);
    expect(await recordsOf(failed.headers.get('x-request-id'))).toMatchObject([
      { providerId: null, status: 502, errorCode: 'all_upstreams_failed', usage: { prompt: 0, completion: 0 }, costNanoUsd: 0, retryCount: 2 },
    ]);
  });

  it('reports usage that equals the raw records summed, by day and by every dimension, and each key’s last use', async () => {
    await sdkClient(router, account.key).chat.completions.create(HELLO);
    await waitFor(() => (router.server.runtime.usage.ledger?.status().queued ?? 1) === 0, 5000);
    const raw = await router.server.runtime.usage.store.listRequests({ accountId: account.accountId, limit: 500 });
    const today = new Date().toISOString().slice(0, 10);
    const report = await usageReport(router.server.runtime.usage.store, { accountId: account.accountId, from: today, to: today, by: 'day', tz: 'UTC' });
    const sum = (pick: (record: LedgerRecord) => number) => raw.reduce((total, record) => total + pick(record), 0);
    expect(report.totals).toMatchObject({
      requests: raw.length,
      failedRequests: raw.filter((record) => record.errorCode !== null).length,
      promptTokens: sum((record) => record.usage?.prompt ?? 0),
      completionTokens: sum((record) => record.usage?.completion ?? 0),
      costNanoUsd: sum((record) => record.costNanoUsd ?? 0),
      unknownUsageCalls: raw.filter((record) => record.providerId !== null && record.usage === null).length,
      unpricedCalls: raw.filter((record) => record.providerId !== null && record.usage !== null && record.costNanoUsd === null).length,
    });
    expect(report.rows).toHaveLength(1);
    expect(report.rows[0]).toMatchObject({ group: today, requests: raw.length });
    for (const by of ['key', 'route', 'provider', 'model'] as const) {
      const grouped = await usageReport(router.server.runtime.usage.store, { accountId: account.accountId, from: today, to: today, by, tz: 'UTC' });
      expect(grouped.totals).toEqual(report.totals);
    }
    const byProvider = await usageReport(router.server.runtime.usage.store, { accountId: account.accountId, from: today, to: today, by: 'provider', tz: 'UTC' });
    expect(byProvider.rows.map((row) => row.group).sort()).toEqual(['anthropic', 'openai', 'plainhost', null].sort());
    const [lastUse] = await lastUsedByKey(router.server.runtime.usage.store, account.accountId);
    expect(lastUse).toEqual({ keyId: account.keyId, lastAt: raw[0]!.startedAt });
  });

  it('says in /readyz how the ledger is doing', async () => {
    const ready: any = await (await fetch(`${router.url}/readyz`)).json();
    expect(ready.ledger).toMatchObject({ state: 'ok', dropped: 0, written: expect.any(Number), lastError: null });
    expect(ready.ledger.written).toBeGreaterThan(0);
  });
});
