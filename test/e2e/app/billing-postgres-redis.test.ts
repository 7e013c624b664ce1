/**
 * Billing on the multi-instance deployment: PostgreSQL store and the Redis quota gate, whose cached
 * account card must be dropped when a webhook (or the sweep) changes a plan, as a CLI plan change does.
 * Runs when ROUTER_TEST_POSTGRES_URL and ROUTER_TEST_REDIS_URL are set.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStripeFake, type StripeFake } from '../../fakes/stripe-fake.js';
import { startAppRouter, type AppRouter } from '../app-harness.js';
import { BILLING_ENV, billingCustomer, billingPatch, deliverEvent, listedModels, PRO_PRICE } from '../billing-harness.js';
import { manualClock, startFakes, type Fakes } from '../router-harness.js';
import { postgresRedisBackend, postgresSkipReason, type UsageBackend } from '../usage-backends.js';

const DAY = 86_400_000;

describe.skipIf(postgresSkipReason !== undefined)('billing on PostgreSQL with the Redis quota gate', () => {
  let fakes: Fakes;
  let stripe: StripeFake;
  let backend: UsageBackend;
  let router: AppRouter;
  const clock = manualClock('2026-11-21T10:00:00.000Z');

  beforeAll(async () => {
    [fakes, stripe] = await Promise.all([startFakes(), startStripeFake()]);
    backend = postgresRedisBackend('billing');
    const patch = billingPatch(stripe.url, fakes.urls);
    router = await startAppRouter({
      clock,
      app: { sessionIdleMinutes: 60 * 24 * 30, sessionAbsoluteHours: 24 * 30 },
      env: { ...BILLING_ENV, ...backend.env },
      patch: { ...patch, server: (doc) => (backend.server(doc), patch.server!(doc)) },
    });
  }, 60_000);
  afterAll(async () => {
    await router?.close();
    await Promise.all([fakes?.close(), stripe?.close()]);
    await backend?.cleanUp();
  });

  it('an upgrade reaches the next request past the gate’s cached card; replays change nothing; the grace ends on Free', async () => {
    expect(router.server.runtime.store.kind).toBe('postgres');
    expect(router.server.runtime.quota.kind).toBe('redis-gate');
    const { browser, accountId, sdk } = await billingCustomer(router, 'pg-billing@example.com');
    // A model request: the gate now holds the account's card (plan Free, its limit).
    const chat = (model: string) => sdk.chat.completions.create({ model, messages: [{ role: 'user', content: 'hi' }] }).withResponse();
    expect((await chat('router/frontier')).response.headers.get('x-quota-limit')).toBe('1000');

    const now = () => Math.floor(clock.now() / 1000);
    stripe.setSubscription({ id: 'sub_pg', customer: 'cus_pg', status: 'active', price: PRO_PRICE, accountId, periodStart: now(), periodEnd: now() + 30 * 86_400 });
    const object = { id: 'cs_pg', object: 'checkout.session', mode: 'subscription', client_reference_id: accountId, customer: 'cus_pg', subscription: 'sub_pg' };
    const first = await deliverEvent(router.url, stripe, { id: 'evt_pg_1', type: 'checkout.session.completed', object, timestampSeconds: now() });
    expect(first).toMatchObject({ status: 200, body: { outcome: 'applied' } });
    // The very next request, well within the card's lifetime, is admitted on Pro.
    const upgraded = await chat('router/fusion');
    expect(upgraded.response.headers.get('x-quota-limit')).toBe('50000');
    expect(await listedModels(sdk)).toEqual(['router/frontier', 'router/fusion']);
    const replay = await deliverEvent(router.url, stripe, { id: 'evt_pg_1', type: 'checkout.session.completed', object, timestampSeconds: now() });
    expect(replay.body.outcome).toBe('duplicate');

    stripe.setSubscription({ id: 'sub_pg', customer: 'cus_pg', status: 'past_due', price: PRO_PRICE, accountId, periodStart: now(), periodEnd: now() + 30 * 86_400 });
    await deliverEvent(router.url, stripe, { id: 'evt_pg_2', type: 'invoice.payment_failed', object: { id: 'in_pg', object: 'invoice', subscription: 'sub_pg' }, timestampSeconds: now() });
    expect((await browser.get('/app/keys')).html).toContain('Your last payment failed.');
    clock.advance(7 * DAY + 1000);
    expect((await browser.get('/app/billing')).html).toContain('Your plan: Free');
    expect(await listedModels(sdk)).toEqual(['router/frontier']);
    expect((await chat('router/frontier')).response.headers.get('x-quota-limit')).toBe('1000');
  });
});
