/**
 * Zero-completion insurance through the public interface (docs/usage.md#zero-completion-insurance): an
 * answer with zero completion tokens and no finish reason, or one that ends in an error mid-stream,
 * costs the caller nothing. Its quota unit comes back (the next request's X-Quota-Used and /v1/key say
 * so), its usage shows cost 0, its ledger record and receipt are marked `insured`, and the managed spend
 * (the spend cap's meter) does not move; on chat completions, Responses and Messages, on the
 * OpenAI-compatible, Anthropic and Gemini fakes, on SQLite and on PostgreSQL + Redis. A control answer
 * on the same router is charged, so each assertion can fail.
 */
import OpenAI from 'openai';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { quotaPeriod } from '../../src/core/quota-period.js';
import { ledgerRecordsOf, readSse, sdkClient, startFakes, UPSTREAM_MODEL, pointProvidersAt, type Fakes, type ProviderId, type TestRouter } from './router-harness.js';
import { startRouterOn, usageBackends, type UsageBackend } from './usage-backends.js';

const PROVIDERS: readonly ProviderId[] = ['openai', 'anthropic', 'gemini'];
const PRICE = { input: 2, output: 8 };
const ASK = [{ role: 'user' as const, content: 'Say hello' }];
/** Events after which each fake's stream fails in-band: past the commit point, before the end. */
const CUT_AFTER: Record<ProviderId, number> = { openai: 3, anthropic: 5, gemini: 2 };
/** The native Responses stream of the OpenAI fake commits later (its opening events carry no output). */
const RESPONSES_CUT_AFTER: Record<ProviderId, number> = { openai: 6, anthropic: 5, gemini: 2 };
const routeOf = (provider: ProviderId) => `test/${provider}`;

describe.each(usageBackends('insurance'))('zero-completion insurance on %s', { timeout: 60_000 }, (_name, makeBackend) => {
  let backend: UsageBackend;
  let fakes: Fakes;
  let router: TestRouter;
  let account: { accountId: string; key: string; keyId: string };
  let client: OpenAI;

  beforeAll(async () => {
    backend = makeBackend();
    fakes = await startFakes();
    const env = { ...backend.env, OPENAI_API_KEY: 'sk-operator-openai', ANTHROPIC_API_KEY: 'sk-ant-operator', GEMINI_API_KEY: 'AIza-operator' };
    router = await startRouterOn({ ...backend, env }, {
      plans: (doc: any) => {
        const pro = doc.plans.find((plan: { id: string }) => plan.id === 'pro');
        Object.assign(pro, { managedSpendCapUsd: 10, routeProfiles: [...pro.routeProfiles, ...PROVIDERS.map(routeOf)] });
      },
      providers: pointProvidersAt(fakes.urls, (doc: any) => {
        doc.managedAccess = { enabled: true };
        for (const provider of PROVIDERS) {
          const entry = doc.providers.find((p: { id: string }) => p.id === provider);
          entry.prices = { ...entry.prices, [UPSTREAM_MODEL[provider]]: PRICE };
        }
      }),
      routes: (doc: any) => {
        for (const provider of PROVIDERS) {
          doc.routes.push({ id: routeOf(provider), family: 'test', description: `${provider} only`, quotaWeight: 1, retryBudget: 0, tiers: [[{ provider, model: UPSTREAM_MODEL[provider] }]] });
        }
      },
    });
    account = await router.createAccount('pro');
    client = sdkClient(router, account.key);
  }, 60_000);
  afterEach(() => fakes.reset());
  afterAll(async () => {
    await router?.close();
    await fakes?.close();
    await backend?.cleanUp();
  });

  const headers = () => ({ authorization: `Bearer ${account.key}`, 'content-type': 'application/json', 'user-agent': 'router-tests/1.0' });
  /** What the caller has been charged so far: its quota (a request that counts nothing reads it), /v1/key's usage, the spend cap's meter. */
  const charged = async () => {
    await router.server.runtime.usage.ledger!.flush();
    const models = await fetch(`${router.baseURL}/models`, { headers: headers() });
    const key = (await client.get('/key')) as { data: { usage: number; usage_monthly: number; monthly_requests?: unknown } };
    const spend = await router.server.runtime.usage.store.readSpend(account.accountId, quotaPeriod(Date.now()).key, new Date().toISOString());
    return { quotaUsed: Number(models.headers.get('x-quota-used')), usage: key.data.usage, usageMonthly: key.data.usage_monthly, spent: spend.spentNanoUsd };
  };
  const receiptOf = async (requestId: string) => ((await client.get('/generation', { query: { id: requestId } })) as { data: Record<string, unknown> }).data;
  const expectInsured = async (requestId: string | null, before: Awaited<ReturnType<typeof charged>>) => {
    expect(await charged()).toEqual(before);
    const [record] = await ledgerRecordsOf(router, requestId);
    expect(record).toMatchObject({ insured: true, costNanoUsd: 0, meteredNanoUsd: 0 });
    expect(await receiptOf(requestId!)).toMatchObject({ insured: true, total_cost: 0 });
  };

  it('a control answer is charged: quota, /v1/key usage, the spend meter, and a receipt not insured', async () => {
    const before = await charged();
    const { data, response } = await client.chat.completions.create({ model: routeOf('openai'), messages: ASK }).withResponse();
    expect((data.usage as unknown as { cost: number }).cost).toBeGreaterThan(0);
    const after = await charged();
    expect(after.quotaUsed).toBe(before.quotaUsed + 1);
    expect(after.usage).toBeGreaterThan(before.usage);
    expect(after.spent).toBeGreaterThan(before.spent);
    expect(await receiptOf(response.headers.get('x-request-id')!)).toMatchObject({ insured: false });
  });

  it('chat, JSON: an empty answer with no finish reason costs nothing (official SDK)', async () => {
    fakes.openai.setReply({ emptyCompletion: true });
    const before = await charged();
    const { data, response } = await client.chat.completions.create({ model: routeOf('openai'), messages: ASK }).withResponse();
    expect(data.choices[0]?.finish_reason ?? null).toBeNull();
    expect(data.usage?.completion_tokens).toBe(0);
    expect(data.usage).toMatchObject({ cost: 0, cost_details: { input: 0, output: 0 } });
    // The answer's own limit headers already show the unit given back.
    expect(Number(response.headers.get('x-quota-used'))).toBe(before.quotaUsed);
    await expectInsured(response.headers.get('x-request-id'), before);
  });

  it('chat, streamed: an empty answer with no finish reason shows cost 0 in its usage chunk (official SDK)', async () => {
    fakes.openai.setReply({ emptyCompletion: true });
    const before = await charged();
    const { data: stream, response } = await client.chat.completions.create({ model: routeOf('openai'), messages: ASK, stream: true, stream_options: { include_usage: true } }).withResponse();
    const chunks = [];
    for await (const chunk of stream) chunks.push(chunk);
    expect(chunks.flatMap((chunk) => chunk.choices).some((choice) => choice.finish_reason)).toBe(false);
    expect(chunks.at(-1)?.usage).toMatchObject({ completion_tokens: 0, cost: 0 });
    await expectInsured(response.headers.get('x-request-id'), before);
  });

  it.each(['anthropic', 'gemini'] as const)('chat, streamed from %s: an empty answer costs nothing', async (provider) => {
    fakes[provider].setReply({ text: '', usage: { inputTokens: 10, outputTokens: 0 } });
    const before = await charged();
    const { data: stream, response } = await client.chat.completions.create({ model: routeOf(provider), messages: ASK, stream: true, stream_options: { include_usage: true } }).withResponse();
    const chunks = [];
    for await (const chunk of stream) chunks.push(chunk);
    expect(chunks.at(-1)?.usage).toMatchObject({ completion_tokens: 0, cost: 0 });
    await expectInsured(response.headers.get('x-request-id'), before);
  });

  it('an empty answer is never stored in the response cache: the next identical request asks the upstream again', async () => {
    fakes.openai.setReply({ emptyCompletion: true });
    const cached = new OpenAI({ apiKey: account.key, baseURL: router.baseURL, maxRetries: 0, defaultHeaders: { 'X-Router-Cache': 'true' } });
    const body = { model: routeOf('openai'), messages: [{ role: 'user' as const, content: 'An empty answer, twice' }] };
    const first = await cached.chat.completions.create(body).withResponse();
    expect(first.response.headers.get('x-router-cache-status')).toBe('MISS');
    fakes.openai.setReply({});
    const second = await cached.chat.completions.create(body).withResponse();
    expect(second.response.headers.get('x-router-cache-status')).toBe('MISS');
    expect(second.data.choices[0]?.message.content).toBeTruthy();
    // A real answer is stored as usual, so the MISS above is the insurance's doing.
    expect((await cached.chat.completions.create(body).withResponse()).response.headers.get('x-router-cache-status')).toBe('HIT');
  });

  it('Responses and Messages: an empty answer costs nothing', async () => {
    fakes.openai.setReply({ emptyCompletion: true });
    fakes.anthropic.setReply({ text: '', usage: { inputTokens: 10, outputTokens: 0 } });
    let before = await charged();
    const { data: answer, response } = await client.responses.create({ model: routeOf('openai'), input: 'Say hello' }).withResponse();
    expect(answer.usage).toMatchObject({ output_tokens: 0, cost: 0 });
    await expectInsured(response.headers.get('x-request-id'), before);
    before = await charged();
    const message = await fetch(`${router.baseURL}/messages`, { method: 'POST', headers: headers(), body: JSON.stringify({ model: routeOf('anthropic'), max_tokens: 100, messages: ASK }) });
    expect(message.status).toBe(200);
    expect(((await message.json()) as { usage: unknown }).usage).toMatchObject({ output_tokens: 0, cost: 0 });
    await expectInsured(message.headers.get('x-request-id'), before);
  });

  describe.each(PROVIDERS)('an error finish mid-stream from %s', (provider) => {
    it('chat (official SDK): the stream fails in-band, and costs nothing', async () => {
      fakes[provider].failNext({ kind: 'mid-stream-error', afterEvents: CUT_AFTER[provider] });
      const before = await charged();
      const { data: stream, response } = await client.chat.completions.create({ model: routeOf(provider), messages: ASK, stream: true }).withResponse();
      const read = async () => {
        for await (const _chunk of stream) void _chunk;
      };
      await expect(read()).rejects.toThrow();
      await expectInsured(response.headers.get('x-request-id'), before);
    });

    it('Responses: ends with response.failed, and costs nothing', async () => {
      fakes[provider].failNext({ kind: 'mid-stream-error', afterEvents: RESPONSES_CUT_AFTER[provider] });
      const before = await charged();
      const response = await fetch(`${router.baseURL}/responses`, { method: 'POST', headers: headers(), body: JSON.stringify({ model: routeOf(provider), input: 'Say hello', stream: true }) });
      expect(response.status).toBe(200);
      expect((await readSse(response)).at(-1)?.event).toBe('response.failed');
      await expectInsured(response.headers.get('x-request-id'), before);
    });

    it('Messages: ends with an error event, and costs nothing', async () => {
      fakes[provider].failNext({ kind: 'mid-stream-error', afterEvents: CUT_AFTER[provider] });
      const before = await charged();
      const response = await fetch(`${router.baseURL}/messages`, { method: 'POST', headers: headers(), body: JSON.stringify({ model: routeOf(provider), max_tokens: 100, messages: ASK, stream: true }) });
      expect(response.status).toBe(200);
      expect((await readSse(response)).at(-1)?.event).toBe('error');
      await expectInsured(response.headers.get('x-request-id'), before);
    });
  });
});
