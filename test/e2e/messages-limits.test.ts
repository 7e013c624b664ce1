/**
 * The limits through `/v1/messages`, with the same exactness as chat's tests (limits-concurrency,
 * limits-in-flight, the key limits, spend-cap): bursts sent at once with the key in `x-api-key`, as Claude
 * Code sends it. Exactly the monthly quota, the per-minute limit, the in-flight cap and a key's own caps
 * are served; every refusal is in Anthropic's shape, costs nothing upstream, and says whether waiting helps.
 */
import Anthropic from '@anthropic-ai/sdk';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { quotaPeriod } from '../../src/core/quota-period.js';
import { usdToNano } from '../../src/usage/nano-usd.js';
import { PROVIDER_KEYS, frontierOrder, manualClock, planLimits, pointProvidersAt, startFakes, startTestRouter, waitFor, type Fakes, type TestRouter } from './router-harness.js';

const MONTHLY = 7;
const PER_MINUTE = 9;
const IN_FLIGHT = 3;
const CONCURRENT = 24;

interface Outcome {
  status: number;
  /** `429 rate_limit_error/monthly_quota_exceeded` style: Anthropic's error type, then the router's code. */
  kind: string;
  quotaUsed: string | null;
  retryAfter: string | null;
  shouldRetry: string | null;
}

function postMessage(baseURL: string, key: string, body: object = {}): Promise<Response> {
  return fetch(`${baseURL}/messages`, {
    method: 'POST',
    headers: { 'x-api-key': key, 'anthropic-version': '2023-06-01', 'content-type': 'application/json', 'user-agent': 'claude-cli/2.1.332 (external, sdk-cli)' },
    body: JSON.stringify({ model: 'claude-sonnet-5-5', max_tokens: 64, messages: [{ role: 'user', content: 'hi' }], ...body }),
  });
}

async function burstMessages(baseURL: string, key: string, count: number): Promise<Outcome[]> {
  return Promise.all(
    Array.from({ length: count }, async () => {
      const response = await postMessage(baseURL, key);
      const body = (await response.json()) as { type: string; error?: { type: string; code?: string } };
      return {
        status: response.status,
        kind: body.type === 'error' ? `${response.status} ${body.error!.type}/${body.error!.code}` : String(response.status),
        quotaUsed: response.headers.get('x-quota-used'),
        retryAfter: response.headers.get('retry-after'),
        shouldRetry: response.headers.get('x-should-retry'),
      };
    }),
  );
}

function tallyOf(outcomes: readonly Outcome[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const { kind } of outcomes) counts[kind] = (counts[kind] ?? 0) + 1;
  return counts;
}

const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => String(from + i));

describe('limits through /v1/messages (one router, SQLite)', () => {
  let fakes: Fakes;
  let router: TestRouter;
  const clock = manualClock('2026-11-21T10:00:00.000Z');

  beforeAll(async () => {
    fakes = await startFakes();
    router = await startTestRouter({
      clock,
      patch: {
        plans: planLimits({
          free: { monthlyRequests: MONTHLY, requestsPerMinute: 1000, maxConcurrentRequests: 1000 },
          pro: { monthlyRequests: 1_000_000, requestsPerMinute: PER_MINUTE, maxConcurrentRequests: 1000 },
          max: { monthlyRequests: 1_000_000, requestsPerMinute: 1000, maxConcurrentRequests: IN_FLIGHT },
        }),
        providers: pointProvidersAt(fakes.urls),
        routes: frontierOrder(['openai']),
      },
    });
  });
  afterEach(() => fakes.reset());
  afterAll(async () => {
    await router.close();
    await fakes.close();
  });

  const newAccount = (plan: string) => router.createAccount(plan, { providerKeys: { openai: PROVIDER_KEYS.openai } });

  it(`admits exactly ${MONTHLY} of ${CONCURRENT} against a monthly quota of ${MONTHLY}; the rest are told not to retry`, async () => {
    const { key, accountId } = await newAccount('free');
    const outcomes = await burstMessages(router.baseURL, key, CONCURRENT);
    expect(tallyOf(outcomes)).toEqual({ '200': MONTHLY, '429 rate_limit_error/monthly_quota_exceeded': CONCURRENT - MONTHLY });
    expect(outcomes.filter((outcome) => outcome.status === 200).map((outcome) => outcome.quotaUsed).sort((a, b) => Number(a) - Number(b))).toEqual(range(1, MONTHLY));
    expect(outcomes.filter((outcome) => outcome.status === 429).every((outcome) => outcome.shouldRetry === 'false' && outcome.retryAfter === null)).toBe(true);
    expect(fakes.openai.requests).toHaveLength(MONTHLY);
    await router.server.runtime.quota.settle();
    expect(await router.server.runtime.store.readQuota(accountId, '2026-11')).toBe(MONTHLY);
  });

  it(`admits exactly ${PER_MINUTE} of ${CONCURRENT} against ${PER_MINUTE} per minute, charging the monthly quota only for those`, async () => {
    const { key, accountId } = await newAccount('pro');
    const outcomes = await burstMessages(router.baseURL, key, CONCURRENT);
    expect(tallyOf(outcomes)).toEqual({ '200': PER_MINUTE, '429 rate_limit_error/rate_limit_exceeded': CONCURRENT - PER_MINUTE });
    expect(new Set(outcomes.filter((outcome) => outcome.status === 429).map((outcome) => outcome.retryAfter))).toEqual(new Set(['60']));
    expect(fakes.openai.requests).toHaveLength(PER_MINUTE);
    await router.server.runtime.quota.settle();
    expect(await router.server.runtime.store.readQuota(accountId, '2026-11')).toBe(PER_MINUTE);
  });

  it(`serves exactly ${IN_FLIGHT} of ${CONCURRENT} slow messages at once; the rest are refused, refunded, and raised by the SDK as RateLimitError`, async () => {
    fakes.openai.setReply({ latencyMs: 400 });
    const { key } = await newAccount('max');
    const outcomes = await burstMessages(router.baseURL, key, CONCURRENT);
    expect(tallyOf(outcomes)).toEqual({ '200': IN_FLIGHT, '429 rate_limit_error/concurrency_limit_exceeded': CONCURRENT - IN_FLIGHT });
    expect(new Set(outcomes.filter((outcome) => outcome.status === 429).map((outcome) => outcome.retryAfter))).toEqual(new Set(['1']));
    expect(fakes.openai.requests).toHaveLength(IN_FLIGHT);
    const models = await fetch(`${router.baseURL}/models`, { headers: { authorization: `Bearer ${key}`, 'user-agent': 'router-tests/1.0' } });
    expect(models.headers.get('x-quota-used')).toBe(String(IN_FLIGHT));

    const held = Array.from({ length: IN_FLIGHT }, () => postMessage(router.baseURL, key, { stream: true }).then(async (response) => (await response.text(), response.status)));
    await waitFor(() => fakes.openai.requests.length === 2 * IN_FLIGHT);
    const client = new Anthropic({ apiKey: key, baseURL: router.url, maxRetries: 0 });
    const refused = await client.messages.create({ model: 'router/frontier', max_tokens: 64, messages: [{ role: 'user', content: 'hi' }] }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(Anthropic.RateLimitError);
    expect((refused as InstanceType<typeof Anthropic.RateLimitError>).headers?.get('retry-after')).toBe('1');
    expect(await Promise.all(held)).toEqual([200, 200, 200]);
  });

  it("holds a key to its own monthly cap and per-minute limit, apart from the account's", async () => {
    const monthly = await newAccount('pro');
    await router.server.runtime.store.setKeyLimits({ keyId: monthly.keyId, monthlyRequests: 4, requestsPerMinute: null }, 'test');
    // Fewer than the plan's per-minute limit, so only the key's own limits refuse.
    const byMonth = await burstMessages(router.baseURL, monthly.key, PER_MINUTE - 1);
    expect(tallyOf(byMonth)).toEqual({ '200': 4, '429 rate_limit_error/key_quota_exceeded': PER_MINUTE - 5 });
    expect(byMonth.filter((outcome) => outcome.status === 429).every((outcome) => outcome.shouldRetry === 'false')).toBe(true);

    const perMinute = await newAccount('pro');
    await router.server.runtime.store.setKeyLimits({ keyId: perMinute.keyId, monthlyRequests: null, requestsPerMinute: 5 }, 'test');
    const byMinute = await burstMessages(router.baseURL, perMinute.key, PER_MINUTE - 1);
    expect(tallyOf(byMinute)).toEqual({ '200': 5, '429 rate_limit_error/key_rate_limit_exceeded': PER_MINUTE - 6 });
    expect(fakes.openai.requests).toHaveLength(9);
  });
});

describe('the managed-access spend cap through /v1/messages', () => {
  const CAP_USD = 0.001;
  let fakes: Fakes;
  let router: TestRouter;

  beforeAll(async () => {
    fakes = await startFakes();
    router = await startTestRouter({
      env: { OPENAI_API_KEY: 'sk-operator-managed-0000' },
      patch: {
        server: (doc) => void (doc.ledger = { flushIntervalMs: 100 }),
        plans: (doc) => void Object.assign(doc.plans.find((plan: { id: string }) => plan.id === 'pro'), { managedSpendCapUsd: CAP_USD }),
        providers: pointProvidersAt(fakes.urls, (doc) => void (doc.managedAccess = { enabled: true })),
        routes: frontierOrder(['openai']),
      },
    });
  });
  afterAll(async () => {
    await router.close();
    await fakes.close();
  });

  it('refuses with 402 billing_error once the cap is reached, overshooting it by less than one estimate, free of quota', async () => {
    const { accountId, key } = await router.createAccount('pro');
    const { runtime } = router.server;
    const flushed = () => runtime.usage.ledger!.flush();
    let refused: Response | undefined;
    for (let i = 0; i < 40 && !refused; i++) {
      const response = await postMessage(router.baseURL, key, { max_tokens: 20 });
      if (response.status === 402) refused = response;
      else expect(response.status).toBe(200);
      await flushed();
    }
    expect(refused).toBeDefined();
    const body = (await refused!.json()) as { type: string; error: Record<string, unknown> };
    expect(body).toMatchObject({ type: 'error', error: { type: 'billing_error', code: 'spend_cap_reached', capUsd: '0.001' } });
    expect(refused!.headers.get('x-should-retry')).toBe('false');
    const served = fakes.openai.requests.length;
    expect(Number(refused!.headers.get('x-quota-used'))).toBe(served);
    const spend = await runtime.usage.store.readSpend(accountId, quotaPeriod(Date.now()).key, new Date().toISOString());
    expect(spend.reservedNanoUsd).toBe(0);
    expect(spend.spentNanoUsd).toBeGreaterThanOrEqual(usdToNano(CAP_USD));
    const estimate = await runtime.spend.estimate({
      accountId,
      plan: runtime.plans.get('pro'),
      route: runtime.routes.get('router/frontier')!,
      body: { model: 'router/frontier', max_tokens: 20, messages: [{ role: 'user', content: 'hi' }] },
    });
    expect(spend.spentNanoUsd).toBeLessThan(usdToNano(CAP_USD) + estimate);

    const client = new Anthropic({ apiKey: key, baseURL: router.url, maxRetries: 0 });
    const error = await client.messages.create({ model: 'router/frontier', max_tokens: 20, messages: [{ role: 'user', content: 'hi' }] }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(Anthropic.APIError);
    expect((error as InstanceType<typeof Anthropic.APIError>).status).toBe(402);
    expect(fakes.openai.requests).toHaveLength(served);
  });
});
