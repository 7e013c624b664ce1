/**
 * The managed-access spend cap through the public interface, on SQLite and on PostgreSQL + Redis: an
 * account on operator keys is refused with 402 spend_cap_reached once its metered spend reaches the
 * plan's cap, its own provider keys keep working, and concurrent requests on two router instances
 * overshoot the cap by less than one request's estimate.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { sealSecret } from '../../src/core/secret-box.js';
import { quotaPeriod } from '../../src/core/quota-period.js';
import { usdToNano } from '../../src/usage/nano-usd.js';
import { managedSpend, usageReport } from '../../src/usage/usage-report.js';
import { startRouterOn, usageBackends, type UsageBackend } from './usage-backends.js';
import { PROVIDER_KEYS, TEST_SECRET, frontierOrder, json, pointProvidersAt, postChat, startFakes, waitFor, type Fakes, type TestRouter } from './router-harness.js';

const OPERATOR_KEY = 'sk-operator-managed-0000';
const CAP_USD = 0.001;
/** What every request sends: an output cap, so the estimate bounds the real cost. */
const BODY = { max_tokens: 20 };
/** The pro plan's output cap (plans.yaml maxOutputTokens), above BODY's. */
const PLAN_OUTPUT_CAP = 50;

describe.each(usageBackends('spend'))('the managed-access spend cap on %s', { timeout: 60_000 }, (_name, makeBackend) => {
  let backend: UsageBackend;
  let fakes: Fakes;
  let routers: [TestRouter, TestRouter];
  const first = () => routers[0];

  beforeAll(async () => {
    backend = makeBackend();
    fakes = await startFakes();
    const patch = {
      server: (doc: any) => void (doc.keyCacheTtlMs = 100),
      plans: (doc: any) => void Object.assign(doc.plans.find((plan: { id: string }) => plan.id === 'pro'), { managedSpendCapUsd: CAP_USD, maxOutputTokens: PLAN_OUTPUT_CAP }),
      providers: pointProvidersAt(fakes.urls, (doc) => void (doc.managedAccess = { enabled: true })),
      routes: frontierOrder(['openai']),
    };
    const withOperatorKey = { ...backend, env: { ...backend.env, OPENAI_API_KEY: OPERATOR_KEY } };
    // Two instances on one database: reservations are shared, so the bound holds across them.
    routers = [await startRouterOn(withOperatorKey, patch), await startRouterOn(withOperatorKey, patch)];
  }, 60_000);
  afterEach(() => fakes.reset());
  afterAll(async () => {
    for (const router of routers ?? []) await router.close();
    await fakes?.close();
    await backend?.cleanUp();
  });

  const spendOf = (accountId: string) => first().server.runtime.usage.store.readSpend(accountId, quotaPeriod(Date.now()).key, new Date().toISOString());
  const flushed = async () => {
    for (const router of routers) await router.server.runtime.usage.ledger!.flush();
  };
  const estimateFor = async (accountId: string) => {
    const { runtime } = first().server;
    const body = { model: 'router/frontier', messages: [{ role: 'user', content: 'hi' }], ...BODY };
    return runtime.spend.estimate({ accountId, plan: runtime.plans.get('pro'), route: runtime.routes.get('router/frontier')!, body });
  };

  it('is published as active, with the ledger and spend metering live', async () => {
    const pricing: any = await json(await fetch(`${first().url}/pricing`, { headers: { 'user-agent': 'router-tests/1.0' } }));
    expect(pricing.launchBoundary.managedProviderAccess.active).toBe(true);
    const checks = Object.fromEntries(pricing.launchBoundary.managedProviderAccess.readinessChecks.map((check: { name: string; ok: boolean }) => [check.name, check.ok]));
    expect(checks).toMatchObject({ usage_ledger: true, spend_metering: true });
  });

  it('refuses managed requests with 402 once the cap is reached, free of quota, while BYOK keeps working', async () => {
    const { accountId, key } = await first().createAccount('pro');
    let refused: Response | undefined;
    for (let i = 0; i < 20 && !refused; i++) {
      const response = await postChat(first().baseURL, key, BODY);
      if (response.status === 402) refused = response;
      else expect(response.status).toBe(200);
      await flushed();
    }
    expect(refused).toBeDefined();
    const body: any = await json(refused!);
    expect(body.error).toMatchObject({
      type: 'insufficient_quota',
      code: 'spend_cap_reached',
      accountUrl: 'http://localhost:8787/app/provider-keys',
      billingUrl: expect.any(String),
      capUsd: '0.001',
    });
    // No plan above Pro has a larger managed spend cap here (Max has none): no upgrade would help.
    expect('upgradeUrl' in body.error).toBe(false);
    expect(refused!.headers.get('x-should-retry')).toBe('false');
    const upstreamCalls = fakes.openai.requests.length;
    const again = await postChat(first().baseURL, key, BODY);
    expect(again.status).toBe(402);
    expect(fakes.openai.requests).toHaveLength(upstreamCalls);
    // The refusal costs no monthly quota: the count is what the served requests took.
    expect(Number(again.headers.get('x-quota-used'))).toBe(upstreamCalls);

    await flushed();
    const spend = await spendOf(accountId);
    expect(spend.reservedNanoUsd).toBe(0);
    expect(spend.spentNanoUsd).toBeGreaterThanOrEqual(usdToNano(CAP_USD));
    expect(spend.spentNanoUsd).toBeLessThan(usdToNano(CAP_USD) + (await estimateFor(accountId)));
    const today = new Date().toISOString().slice(0, 10);
    const report = await usageReport(first().server.runtime.usage.store, { accountId, from: today, to: today, by: 'provider', tz: 'UTC' });
    expect(report.totals.meteredNanoUsd).toBe(spend.spentNanoUsd);
    expect(report.totals.failedRequests).toBe(2);
    expect(await managedSpend(first().server.runtime.usage.store, { accountId, plan: first().server.runtime.plans.get('pro'), nowMs: Date.now() })).toMatchObject({
      capUsd: '0.001',
      reservedUsd: '0.00',
    });

    // Its own provider key works past the cap (once the credential cache has seen it), and is not metered.
    await first().server.runtime.store.setProviderKey({ accountId, providerId: 'openai', sealed: sealSecret(PROVIDER_KEYS.openai, TEST_SECRET), last4: '1234' }, 'test');
    await new Promise((resolve) => setTimeout(resolve, 150));
    const byok = await postChat(first().baseURL, key, BODY);
    expect(byok.status).toBe(200);
    expect(fakes.openai.requests.at(-1)!.headers.authorization).toBe(`Bearer ${PROVIDER_KEYS.openai}`);
    await flushed();
    expect((await spendOf(accountId)).spentNanoUsd).toBe(spend.spentNanoUsd);
  });

  it("holds an estimate of the request as sent upstream: a request without an output cap is estimated at the plan's", async () => {
    const { accountId, key } = await first().createAccount('pro');
    const { runtime } = first().server;
    const estimate = (body: Record<string, unknown>) =>
      runtime.spend.estimate({ accountId, plan: runtime.plans.get('pro'), route: runtime.routes.get('router/frontier')!, body });
    const asked = { model: 'router/frontier', messages: [{ role: 'user', content: 'hi' }] };
    fakes.openai.setReply({ latencyMs: 400 });
    const pending = postChat(first().baseURL, key);
    await waitFor(() => fakes.openai.requests.length > 0);
    // In flight: the held estimate is the one for the body with the plan's cap applied, well below the
    // estimate at the provider's default output (what it would be if the gate ran before the cap).
    const held = (await spendOf(accountId)).reservedNanoUsd;
    expect(held).toBe(await estimate({ ...asked, max_completion_tokens: PLAN_OUTPUT_CAP }));
    expect(held).toBeLessThan(await estimate(asked));
    expect((await pending).status).toBe(200);
    await flushed();
    expect((await spendOf(accountId)).reservedNanoUsd).toBe(0);
  });

  it('lets 40 concurrent requests on two instances overshoot the cap by less than one estimate', async () => {
    const { accountId, key } = await first().createAccount('pro');
    fakes.openai.setReply({ latencyMs: 80 });
    const statuses = await Promise.all(Array.from({ length: 40 }, (_, i) => postChat(routers[i % 2]!.baseURL, key, BODY).then((response) => response.status)));
    expect(statuses.filter((status) => status !== 200 && status !== 402)).toEqual([]);
    expect(statuses.filter((status) => status === 402).length).toBeGreaterThan(0);
    await flushed();
    const spend = await spendOf(accountId);
    const estimate = await estimateFor(accountId);
    expect(spend.reservedNanoUsd).toBe(0);
    expect(spend.spentNanoUsd).toBeLessThan(usdToNano(CAP_USD) + estimate);
    // Every served request was metered at its real cost: 10 prompt and 20 completion tokens of gpt-4.1.
    expect(spend.spentNanoUsd).toBe(statuses.filter((status) => status === 200).length * (10 * 2000 + 20 * 8000));
  });
});
