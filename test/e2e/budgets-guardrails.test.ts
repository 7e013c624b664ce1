/**
 * Budgets and guardrails through the public interface (the official OpenAI SDK's wire format over HTTP),
 * on SQLite and on PostgreSQL + Redis, two router instances on one database: a budget is held before the
 * call and refused with 402 budget_exceeded once spent, never overshot by more than one request's estimate
 * under concurrent load across instances; guardrails narrow the candidates (a denied provider is never
 * called) or refuse with 403 guardrail_denied before any provider is reached and before anything is counted.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { usdToNano } from '../../src/usage/nano-usd.js';
import { startRouterOn, usageBackends, type UsageBackend } from './usage-backends.js';
import { PROVIDER_KEYS, frontierOrder, json, pointProvidersAt, postChat, startFakes, type Fakes, type TestRouter } from './router-harness.js';

/** An output cap on every request, so the estimate bounds the real cost. */
const BODY = { max_tokens: 20 };
const NO_RULES = { allowedModels: null, deniedModels: [], allowedProviders: null, deniedProviders: [], requireZdr: false };

describe.each(usageBackends('budgets'))('budgets and guardrails on %s', { timeout: 90_000 }, (_name, makeBackend) => {
  let backend: UsageBackend;
  let fakes: Fakes;
  let routers: [TestRouter, TestRouter];
  const first = () => routers[0];
  const store = () => first().server.runtime.store;

  beforeAll(async () => {
    backend = makeBackend();
    fakes = await startFakes();
    const patch = {
      server: (doc: any) => void (doc.keyCacheTtlMs = 100),
      providers: pointProvidersAt(fakes.urls),
      routes: frontierOrder(['openai', 'anthropic']),
    };
    routers = [await startRouterOn(backend, patch), await startRouterOn(backend, patch)];
  }, 60_000);
  afterEach(() => fakes.reset());
  afterAll(async () => {
    for (const router of routers ?? []) await router.close();
    await fakes?.close();
    await backend?.cleanUp();
  });

  const flushed = async () => {
    for (const router of routers) await router.server.runtime.usage.ledger!.flush();
  };
  /** Settings reach every instance after the cache TTL (100 ms here), as they would in production. */
  const settle = () => new Promise((resolve) => setTimeout(resolve, 150));
  const byokAccount = () => first().createAccount('pro', { providerKeys: { openai: PROVIDER_KEYS.openai, anthropic: PROVIDER_KEYS.anthropic } });
  const estimateFor = (accountId: string) => {
    const { runtime } = first().server;
    const body = { model: 'router/frontier', messages: [{ role: 'user', content: 'hi' }], ...BODY };
    return runtime.spend.estimate({ accountId, plan: runtime.plans.get('pro'), route: runtime.routes.get('router/frontier')!, body });
  };

  it('refuses a key over its budget with 402 budget_exceeded naming it, before any provider, and counts BYOK spend', async () => {
    const { accountId, key, keyId } = await byokAccount();
    // 10 prompt + 20 completion tokens of gpt-4.1 cost 180,000 nano-USD: the budget fits two requests.
    await store().setBudget({ accountId, scope: 'key', scopeId: keyId, limitNanoUsd: 300_000, period: 'day', includeByok: true }, 'test');
    await settle();
    const statuses: number[] = [];
    for (let i = 0; i < 3; i++) {
      statuses.push((await postChat(first().baseURL, key, BODY)).status);
      await flushed();
    }
    expect(statuses).toEqual([200, 200, 402]);
    const upstreamCalls = fakes.openai.requests.length;
    const refused = await postChat(routers[1].baseURL, key, BODY);
    expect(refused.status).toBe(402);
    expect(fakes.openai.requests).toHaveLength(upstreamCalls);
    const body: any = await json(refused);
    expect(body.error).toMatchObject({
      type: 'insufficient_quota',
      code: 'budget_exceeded',
      accountUrl: 'http://localhost:8787/app/guardrails',
      budget: { scope: 'key', id: keyId, period: 'day', limitUsd: '0.0003', spentUsd: '0.00036' },
      resetsAt: expect.stringMatching(/T00:00:00\.000Z$/),
    });
    expect(body.error.message).toContain(`key ${keyId}`);
    expect(body.error.message).toContain('/app/guardrails');
    expect(refused.headers.get('x-should-retry')).toBe('false');
    expect(await store().readBudgetSpend(accountId, 'key', keyId, 'day', new Date().toISOString())).toBe(360_000);
  });

  it('lets 40 concurrent requests on two instances overshoot a workspace budget by less than one estimate', async () => {
    const { accountId, key } = await byokAccount();
    const workspace = await store().getDefaultWorkspace(accountId);
    const limit = 1_000_000;
    await store().setBudget({ accountId, scope: 'workspace', scopeId: workspace.id, limitNanoUsd: limit, period: 'month', includeByok: true }, 'test');
    await settle();
    fakes.openai.setReply({ latencyMs: 80 });
    const statuses = await Promise.all(Array.from({ length: 40 }, (_, i) => postChat(routers[i % 2]!.baseURL, key, BODY).then((response) => response.status)));
    expect(statuses.filter((status) => status !== 200 && status !== 402)).toEqual([]);
    const served = statuses.filter((status) => status === 200).length;
    expect(served).toBeGreaterThan(0);
    expect(statuses.filter((status) => status === 402).length).toBeGreaterThan(0);
    await flushed();
    const spent = await store().readBudgetSpend(accountId, 'workspace', workspace.id, 'month', new Date().toISOString());
    // Every served request is metered at its real cost, every hold released.
    expect(spent).toBe(served * 180_000);
    expect(spent).toBeLessThan(limit + (await estimateFor(accountId)));
  });

  it('keeps BYOK requests out of a budget that leaves them out', async () => {
    const { accountId, key, keyId } = await byokAccount();
    await store().setBudget({ accountId, scope: 'key', scopeId: keyId, limitNanoUsd: 1, period: 'total', includeByok: false }, 'test');
    await settle();
    for (let i = 0; i < 2; i++) expect((await postChat(first().baseURL, key, BODY)).status).toBe(200);
  });

  it('narrows the candidates to the providers a guardrail allows: a denied provider is never called', async () => {
    const { accountId, key, keyId } = await byokAccount();
    await store().setGuardrail({ accountId, scope: 'key', scopeId: keyId, ...NO_RULES, deniedProviders: ['openai'] }, 'test');
    await settle();
    const response = await postChat(first().baseURL, key, BODY);
    expect(response.status).toBe(200);
    expect(response.headers.get('x-router-upstream')).toBe('anthropic');
    expect(fakes.openai.requests).toHaveLength(0);
  });

  it('refuses with 403 guardrail_denied naming the guardrail when the workspace, member or key leaves no candidate, uncounted', async () => {
    const { accountId, key } = await byokAccount();
    const workspace = await store().getDefaultWorkspace(accountId);
    await store().renameWorkspace(accountId, workspace.id, 'Research', 'test');
    await store().setGuardrail({ accountId, scope: 'workspace', scopeId: workspace.id, ...NO_RULES, allowedModels: ['openai/gpt-5*'] }, 'test');
    await settle();
    const refused = await postChat(routers[1].baseURL, key, BODY);
    expect(refused.status).toBe(403);
    const body: any = await json(refused);
    expect(body.error).toMatchObject({
      type: 'permission_error',
      code: 'guardrail_denied',
      param: 'model',
      accountUrl: 'http://localhost:8787/app/guardrails',
      guardrail: { scope: 'workspace', id: workspace.id, name: 'workspace "Research"', rule: 'allowed_models' },
    });
    expect(body.error.message).toContain('/app/guardrails');
    expect(fakes.openai.requests).toHaveLength(0);
    expect(fakes.anthropic.requests).toHaveLength(0);
    // Refused before the monthly count.
    expect(refused.headers.get('x-quota-used')).toBe('0');

    // ZDR: no provider of the route declares zero retention, so nothing may serve it.
    await store().setGuardrail({ accountId, scope: 'workspace', scopeId: workspace.id, ...NO_RULES, requireZdr: true }, 'test');
    await settle();
    const zdr: any = await json(await postChat(first().baseURL, key, BODY));
    expect(zdr.error).toMatchObject({ code: 'guardrail_denied', guardrail: { rule: 'require_zdr' } });
    expect(fakes.openai.requests).toHaveLength(0);
  });
});
