/**
 * GET /v1/generation?id=…: every request's receipt, readable as soon as its response has ended (from the
 * ledger's queue, before the batch is written: the flush interval here is a minute), through plain HTTP
 * and the official openai SDK; another account's request id is 404 not_found; it counts no quota.
 */
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadRecorded } from '../fakes/recorded-answer.js';
import { PROVIDER_KEYS, frontierOrder, pointProvidersAt, sdkClient, startFakes, startTestRouter, type Fakes, type TestRouter } from './router-harness.js';

const PRICE = { input: 3, cachedInput: 0.3, cacheWrite: 3.75, cacheWrite1h: 6, output: 15 };
const COST_NANO = 2048 * 3000 + 1800 * 300 + 456 * 3750 + 100 * 6000 + 503 * 15000;
const HELLO = { model: 'router/frontier', messages: [{ role: 'user' as const, content: 'Summarize the contract' }] };

describe('GET /v1/generation: the receipt of a request', { timeout: 60_000 }, () => {
  let fakes: Fakes;
  let router: TestRouter;
  let alice: { key: string; client: OpenAI };
  let bob: { key: string; client: OpenAI };

  const receipt = (key: string, id: string) => fetch(`${router.baseURL}/generation?id=${encodeURIComponent(id)}`, { headers: { 'user-agent': 'router-tests/1.0', authorization: `Bearer ${key}` } });

  beforeAll(async () => {
    fakes = await startFakes();
    router = await startTestRouter({
      patch: {
        providers: pointProvidersAt(fakes.urls, (doc: any) => {
          doc.providers.find((p: { id: string }) => p.id === 'anthropic').prices['claude-sonnet-4-5'] = PRICE;
          doc.providers.find((p: { id: string }) => p.id === 'openai').prices['gpt-4.1'] = { input: 2, output: 8 };
        }),
        routes: (doc: any) => {
          frontierOrder(['openai', 'anthropic'])(doc);
          doc.routes.find((route: { id: string }) => route.id === 'router/frontier').tiers = [[{ provider: 'openai', model: 'gpt-4.1' }], [{ provider: 'anthropic', model: 'claude-sonnet-4-5' }]];
        },
        // Nothing is written for a minute: every receipt below comes from the queue.
        server: (doc: any) => void (doc.ledger = { flushIntervalMs: 60_000 }),
      },
    });
    const providerKeys = { openai: PROVIDER_KEYS.openai, anthropic: PROVIDER_KEYS.anthropic };
    const a = await router.createAccount('pro', { providerKeys });
    const b = await router.createAccount('pro', { providerKeys });
    alice = { key: a.key, client: sdkClient(router, a.key) };
    bob = { key: b.key, client: sdkClient(router, b.key) };
  });
  afterAll(async () => {
    await router.close();
    await fakes.close();
  });

  it('answers within one second after the response ended, with route, provider, model, each attempt, token types, cost, times and finish reason', async () => {
    fakes.openai.failNext({ kind: 'status', status: 503 });
    fakes.anthropic.setReply({ recorded: loadRecorded('anthropic/cache-write-1h') });
    const { data: completion, response } = await alice.client.chat.completions.create(HELLO).withResponse();
    const ended = performance.now();
    const id = response.headers.get('x-request-id')!;
    const answer = await receipt(alice.key, id);
    const elapsed = performance.now() - ended;
    expect(answer.status).toBe(200);
    expect(elapsed).toBeLessThan(1000);
    expect(router.server.runtime.usage.ledger!.status().written).toBe(0);
    const { data } = (await answer.json()) as { data: any };
    expect(data).toMatchObject({
      id,
      route: 'router/frontier',
      api_type: 'completions',
      provider_name: 'anthropic',
      model: 'claude-sonnet-4-5',
      is_byok: true,
      status: 200,
      error_code: null,
      finish_reason: completion.choices[0]!.finish_reason,
      cancelled: false,
      insured: false,
      total_cost: COST_NANO / 1e9,
      tokens_prompt: completion.usage!.prompt_tokens,
      tokens_completion: completion.usage!.completion_tokens,
      native_tokens_cached: 1800,
      native_tokens_cache_write: 556,
      native_tokens_cache_write_1h: 100,
      native_tokens_reasoning: 0,
      retries: 1,
      calls: [],
    });
    // The receipt's cost is the answer's, per token type too.
    const usage = completion.usage as unknown as { cost: number; cost_details: Record<string, number> };
    expect(data.total_cost).toBe(usage.cost);
    expect(data.cost_details).toEqual(usage.cost_details);
    expect(data.provider_responses).toEqual([
      { provider_name: 'openai', model: 'gpt-4.1', status: 503, error_code: expect.any(String), latency: expect.any(Number) },
      { provider_name: 'anthropic', model: 'claude-sonnet-4-5', status: 200, error_code: null, latency: expect.any(Number) },
    ]);
    expect(data.first_byte_latency).toBeGreaterThanOrEqual(0);
    expect(data.latency).toBeGreaterThanOrEqual(data.first_byte_latency);
    expect(Date.parse(data.created_at)).toBeLessThanOrEqual(Date.now());
  });

  it('reads through the official SDK, for a stream too, and the same after the batch is written', async () => {
    const stream = await alice.client.chat.completions.create({ ...HELLO, model: 'router/frontier', stream: true }).withResponse();
    for await (const _chunk of stream.data);
    const id = stream.response.headers.get('x-request-id')!;
    const fromQueue = (await alice.client.get('/generation', { query: { id } })) as { data: Record<string, unknown> };
    expect(fromQueue.data).toMatchObject({ id, provider_name: 'openai', model: 'gpt-4.1', finish_reason: 'stop', status: 200 });
    await router.server.runtime.usage.ledger!.flush();
    const fromStore = (await alice.client.get('/generation', { query: { id } })) as { data: Record<string, unknown> };
    expect(fromStore).toEqual(fromQueue);
  });

  it("is 404 not_found for another account's request id (queued or written) and for an unknown one, and 400 without an id", async () => {
    const response = await postAs(alice.key);
    const id = response.headers.get('x-request-id')!;
    for (const written of [false, true]) {
      if (written) await router.server.runtime.usage.ledger!.flush();
      const other = await receipt(bob.key, id);
      expect(other.status).toBe(404);
      expect(((await other.json()) as any).error.code).toBe('not_found');
      expect((await receipt(alice.key, id)).status).toBe(200);
    }
    await expect(bob.client.get('/generation', { query: { id } })).rejects.toMatchObject({ status: 404 });
    expect((await receipt(alice.key, 'req_never_made')).status).toBe(404);
    const missing = await fetch(`${router.baseURL}/generation`, { headers: { 'user-agent': 'router-tests/1.0', authorization: `Bearer ${alice.key}` } });
    expect(missing.status).toBe(400);
    expect((await fetch(`${router.baseURL}/generation?id=${id}`, { headers: { 'user-agent': 'router-tests/1.0' } })).status).toBe(401);
  });

  it('counts no quota', async () => {
    const response = await postAs(bob.key);
    const id = response.headers.get('x-request-id')!;
    const before = Number(response.headers.get('x-quota-remaining'));
    for (let i = 0; i < 3; i++) expect((await receipt(bob.key, id)).status).toBe(200);
    const after = await postAs(bob.key);
    expect(Number(after.headers.get('x-quota-remaining'))).toBe(before - 1);
  });

  async function postAs(key: string): Promise<Response> {
    const response = await fetch(`${router.baseURL}/chat/completions`, {
      method: 'POST',
      headers: { 'user-agent': 'router-tests/1.0', authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify(HELLO),
    });
    expect(response.status).toBe(200);
    await response.text();
    return response;
  }
});

