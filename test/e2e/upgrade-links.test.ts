/**
 * An error's upgradeUrl offers a plan above the account's that gives what ran out: the next plan with
 * more requests for an exhausted quota or more in flight at once, the cheapest plan that includes a refused route profile, and
 * nothing at all on the top plan (never a link to the plan the account is already on).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROVIDER_KEYS, frontierOrder, json, pointProvidersAt, postV1, startFakes, startTestRouter, type Fakes, type TestRouter } from './router-harness.js';

const HI = { model: 'router/frontier', messages: [{ role: 'user', content: 'hi' }] };

describe('upgradeUrl', () => {
  let fakes: Fakes;
  let router: TestRouter;

  beforeAll(async () => {
    fakes = await startFakes();
    router = await startTestRouter({
      patch: {
        providers: pointProvidersAt(fakes.urls),
        routes: frontierOrder(['openai']),
        plans: (doc) => {
          for (const [id, monthly] of [['free', 1], ['pro', 2], ['max', 3]] as const) doc.plans.find((plan: { id: string }) => plan.id === id).monthlyRequests = monthly;
          // Only the top plan has fusion here: a Free account asking for it is offered Max, not Pro.
          doc.plans.find((plan: { id: string }) => plan.id === 'pro').routeProfiles = ['router/frontier'];
          doc.plans.find((plan: { id: string }) => plan.id === 'pro').maxConcurrentRequests = 1;
        },
      },
    });
  });
  afterAll(async () => {
    await router.close();
    await fakes.close();
  });

  const exhausted = async (plan: string) => {
    const { key } = await router.createAccount(plan, { providerKeys: { ...PROVIDER_KEYS } });
    let refused = await postV1(router, key, '/chat/completions', HI);
    for (let i = 0; i < 3 && refused.status === 200; i++) refused = await postV1(router, key, '/chat/completions', HI);
    expect(refused.status).toBe(429);
    return (await json(refused)).error;
  };

  it.each([
    ['free', 'pro'],
    ['pro', 'max'],
  ])('a %s account at its monthly quota is offered %s', async (plan, next) => {
    const error = await exhausted(plan);
    expect(error).toMatchObject({ code: 'monthly_quota_exceeded', upgradeUrl: `http://localhost:8787/app/checkout?plan=${next}` });
  });

  it('a Max account at its monthly quota gets no upgradeUrl, and keeps its billing and support links', async () => {
    const error = await exhausted('max');
    expect(error.code).toBe('monthly_quota_exceeded');
    expect('upgradeUrl' in error).toBe(false);
    expect(error).toMatchObject({ billingUrl: 'http://localhost:8787/app/billing', supportUrl: 'http://localhost:8787/app/support' });
  });

  it('a Pro account at its requests in flight is offered Max', async () => {
    const { key } = await router.createAccount('pro', { providerKeys: { ...PROVIDER_KEYS } });
    fakes.openai.setReply({ latencyMs: 300 });
    const [first, second] = await Promise.all([postV1(router, key, '/chat/completions', HI), postV1(router, key, '/chat/completions', HI)]);
    fakes.openai.reset();
    const refused = first.status === 429 ? first : second;
    expect([first.status, second.status].sort()).toEqual([200, 429]);
    expect((await json(refused)).error).toMatchObject({ code: 'concurrency_limit_exceeded', upgradeUrl: 'http://localhost:8787/app/checkout?plan=max' });
  });

  it('a route profile outside the plan offers the cheapest plan that includes it', async () => {
    const { key } = await router.createAccount('free', { providerKeys: { ...PROVIDER_KEYS } });
    const refused = await postV1(router, key, '/chat/completions', { ...HI, model: 'router/fusion' });
    expect(refused.status).toBe(403);
    expect((await json(refused)).error).toMatchObject({ code: 'plan_upgrade_required', upgradeUrl: 'http://localhost:8787/app/checkout?plan=max' });
  });
});
