/**
 * Every field of GET /v1/key against the app's own numbers after real traffic (issue 33): a key made
 * through POST /v1/keys with a monthly limit that leaves out the organization's own provider keys, an
 * expiry and its own per-minute limit, used on the operator's keys (managed access) on two days of the
 * month and then on the organization's own key, on a clock the test moves. usage and byok_usage and
 * their day, week and month windows must be what the app's usage report says for that key and those
 * days; the limit's remainder what its metered spend leaves; the plan's quota what the last answer's
 * X-Quota-* headers said. Traffic through the official openai SDK, /v1/key through raw HTTP.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sealSecret } from '../../src/core/secret-box.js';
import { usageReport } from '../../src/usage/usage-report.js';
import { PROVIDER_KEYS, TEST_SECRET, frontierOrder, manualClock, pointProvidersAt, sdkClient, startFakes, startTestRouter, type Fakes, type TestRouter } from './router-harness.js';

const UA = { 'user-agent': 'router-tests/1.0' };
const BODY = { model: 'router/frontier', messages: [{ role: 'user' as const, content: 'hello' }], max_tokens: 50 };
const KEY_CACHE_TTL_MS = 5000;

describe('GET /v1/key after real traffic', { timeout: 60_000 }, () => {
  let fakes: Fakes;
  let router: TestRouter;
  // A Monday.
  const clock = manualClock('2026-11-02T12:00:00.000Z');

  const getJson = async (key: string, path: string) => {
    const response = await fetch(`${router.url}${path}`, { headers: { ...UA, authorization: `Bearer ${key}` } });
    expect(response.status).toBe(200);
    return ((await response.json()) as { data: Record<string, any> }).data;
  };

  beforeAll(async () => {
    fakes = await startFakes();
    router = await startTestRouter({
      clock,
      env: { OPENAI_API_KEY: 'sk-operator-managed-0000' },
      patch: {
        server: (doc: any) => void (doc.keyCacheTtlMs = KEY_CACHE_TTL_MS),
        plans: (doc: any) => void Object.assign(doc.plans.find((plan: { id: string }) => plan.id === 'pro'), { managedSpendCapUsd: 5 }),
        providers: pointProvidersAt(fakes.urls, (doc) => void (doc.managedAccess = { enabled: true })),
        routes: frontierOrder(['openai']),
      },
    });
  });
  afterAll(async () => {
    await router?.close();
    await fakes?.close();
  });

  it('answers every field as the usage report, the limit and the quota headers have it', async () => {
    const { runtime } = router.server;
    // An organization on the operator's keys: it brought none of its own yet.
    const account = await runtime.store.createAccount({ email: 'widgets@example.com', plan: 'pro' }, 'test');
    const admin = (await runtime.keys.issue(account.id, 'provisioning', 'test', { kind: 'management' })).key;
    const created = await fetch(`${router.url}/api/v1/keys`, {
      method: 'POST',
      headers: { ...UA, authorization: `Bearer ${admin}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'widget-customer', limit: 1, limit_reset: 'monthly', include_byok_in_limit: false, expires_at: '2027-06-01T00:00:00Z', requests_per_minute: 7 }),
    });
    expect(created.status).toBe(201);
    const { key, data: made } = (await created.json()) as { key: string; data: { hash: string } };
    const client = sdkClient(router, key);

    // Managed access on Monday the 2nd and on Wednesday the 25th (different sizes, so the windows differ).
    fakes.openai.setReply({ usage: { inputTokens: 1000, outputTokens: 40 } });
    await client.chat.completions.create(BODY);
    clock.set('2026-11-25T09:00:00.000Z');
    fakes.openai.setReply({ usage: { inputTokens: 300, outputTokens: 25 } });
    await client.chat.completions.create(BODY);
    // Then the organization brings its own OpenAI key; on Thursday the 26th the key runs on it.
    await runtime.store.setProviderKey({ accountId: account.id, providerId: 'openai', sealed: sealSecret(PROVIDER_KEYS.openai, TEST_SECRET), last4: PROVIDER_KEYS.openai.slice(-4) }, 'test');
    clock.set('2026-11-26T10:00:00.000Z');
    fakes.openai.setReply({ usage: { inputTokens: 70, outputTokens: 9 } });
    const { response: last } = await client.chat.completions.create(BODY).withResponse();
    await runtime.usage.ledger!.flush();

    // The app's usage report for this key: its cost and the managed (metered) part, per window.
    const reportOf = async (from: string, to: string) => {
      const report = await usageReport(runtime.usage.store, { accountId: account.id, from, to, by: 'key', tz: 'UTC' });
      const row = report.rows.find((candidate) => candidate.group === made.hash);
      return { managed: row?.meteredNanoUsd ?? 0, byok: (row?.costNanoUsd ?? 0) - (row?.meteredNanoUsd ?? 0) };
    };
    const month = await reportOf('2026-11-01', '2026-11-30');
    const week = await reportOf('2026-11-23', '2026-11-26');
    const day = await reportOf('2026-11-26', '2026-11-26');
    // Three different amounts: a field read from the wrong window or the wrong kind of access cannot pass.
    expect(month.managed).toBeGreaterThan(week.managed);
    expect(week.managed).toBeGreaterThan(0);
    expect(day).toEqual({ managed: 0, byok: month.byok });
    expect(month.byok).toBeGreaterThan(0);

    const data = await getJson(key, '/v1/key');
    const plan = runtime.plans.get('pro')!;
    const usd = (nano: number) => nano / 1e9;
    expect(data).toEqual({
      label: `sk_router_…${key.slice(-4)}`,
      name: 'widget-customer',
      limit: 1,
      limit_remaining: usd(1e9 - month.managed),
      limit_reset: 'monthly',
      include_byok_in_limit: false,
      usage: usd(month.managed),
      usage_daily: 0,
      usage_weekly: usd(week.managed),
      usage_monthly: usd(month.managed),
      byok_usage: usd(month.byok),
      byok_usage_daily: usd(day.byok),
      byok_usage_weekly: usd(week.byok),
      byok_usage_monthly: usd(month.byok),
      is_free_tier: false,
      is_management_key: false,
      is_provisioning_key: false,
      disabled: false,
      expires_at: '2027-06-01T00:00:00.000Z',
      created_at: '2026-11-02T12:00:00.000Z',
      // Never changed since it was made.
      updated_at: null,
      workspace_id: null,
      creator_user_id: null,
      // The key's own per-minute limit is below the plan's: it is the one that applies.
      rate_limit: { requests: 7, interval: '60s' },
      plan: 'pro',
      monthly_requests: {
        limit: Number(last.headers.get('x-quota-limit')),
        used: Number(last.headers.get('x-quota-used')),
        remaining: Number(last.headers.get('x-quota-remaining')),
        resets_at: '2026-12-01T00:00:00.000Z',
      },
      key_monthly_request_limit: null,
      requests_per_minute: 7,
      max_concurrent_requests: plan.maxConcurrentRequests,
    });
    expect(data.monthly_requests).toMatchObject({ limit: plan.monthlyRequests, used: 3 });
    // The management view of the same key says the same.
    expect(await getJson(admin, `/api/v1/keys/${made.hash}`)).toMatchObject({ hash: made.hash, usage: data.usage, byok_usage: data.byok_usage, limit_remaining: data.limit_remaining, requests_per_minute: 7 });
    // And the organization's credits: what managed access spent this month.
    expect(await getJson(key, '/v1/credits')).toMatchObject({ total_usage: usd(month.managed), total_credits: 5, spend_cap_usd: 5, remaining_usd: usd(5e9 - month.managed), period: '2026-11' });
  });

  it('says is_free_tier for a key of a free plan, and the plan’s own per-minute limit when the key has none', async () => {
    const { key } = await router.createAccount('free');
    const plan = router.server.runtime.plans.get('free')!;
    expect(await getJson(key, '/api/v1/key')).toMatchObject({
      is_free_tier: true,
      plan: 'free',
      requests_per_minute: plan.requestsPerMinute,
      rate_limit: { requests: plan.requestsPerMinute, interval: '60s' },
      max_concurrent_requests: plan.maxConcurrentRequests,
      monthly_requests: { limit: plan.monthlyRequests, used: 0, remaining: plan.monthlyRequests },
      usage: 0,
      byok_usage: 0,
      limit: null,
      limit_remaining: null,
    });
  });
});
