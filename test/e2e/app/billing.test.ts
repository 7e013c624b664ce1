/**
 * Billing through Stripe over real HTTP: the official `stripe` SDK inside the router talks to an
 * in-process fake Stripe API (billing.stripe.apiUrl), webhook events are signed with the SDK's own
 * test-header helper, and the official openai SDK checks what the next /v1 request sees. Covers checkout
 * for the right account, upgrade by webhook, replayed / reordered / forged / stale / unknown events,
 * cancellation at period end, payment failure → banner → grace → Free, downgrades at period end, two
 * accounts that never cross, and billing off.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FAKE_STRIPE_KEY, FAKE_WEBHOOK_SECRET, startStripeFake, type StripeFake, type SubscriptionState } from '../../fakes/stripe-fake.js';
import { BILLING_ENV, billingCustomer, billingPatch, deliverEvent, listedModels, MAX_PRICE, PRO_PRICE } from '../billing-harness.js';
import { manualClock, startFakes, type Fakes } from '../router-harness.js';
import { AppClient, startAppRouter, type AppRouter } from '../app-harness.js';

const PASSWORD = 'correct horse battery staple';
const DAY = 86_400_000;
const UA = { 'user-agent': 'router-tests/1.0' };

describe('billing with Stripe', () => {
  let fakes: Fakes;
  let stripe: StripeFake;
  let router: AppRouter;
  const clock = manualClock('2026-11-21T10:00:00.000Z');
  let events = 0;
  let subscriptions = 0;

  beforeAll(async () => {
    [fakes, stripe] = await Promise.all([startFakes(), startStripeFake()]);
    router = await startAppRouter({ clock, app: { sessionIdleMinutes: 60 * 24 * 30, sessionAbsoluteHours: 24 * 30 }, env: BILLING_ENV, patch: billingPatch(stripe.url, fakes.urls) });
  });
  afterAll(async () => {
    await router?.close();
    await Promise.all([fakes?.close(), stripe?.close()]);
  });

  const store = () => router.server.runtime.store;
  const nowSeconds = () => Math.floor(clock.now() / 1000);

  const customer = (email: string) => billingCustomer(router, email);

  /** What Stripe "knows" about a new subscription of the account. */
  function subscribe(accountId: string | null, overrides: Partial<SubscriptionState> = {}): SubscriptionState {
    const n = ++subscriptions;
    const state: SubscriptionState = {
      id: `sub_test_${n}`,
      customer: `cus_test_${n}`,
      status: 'active',
      price: PRO_PRICE,
      accountId,
      periodStart: nowSeconds(),
      periodEnd: nowSeconds() + 30 * 86_400,
      ...overrides,
    };
    stripe.setSubscription(state);
    return state;
  }

  async function deliver(type: string, object: Record<string, unknown>, options: { id?: string; ageSeconds?: number; secret?: string; signature?: string | null } = {}) {
    const id = options.id ?? `evt_test_${++events}`;
    const { ageSeconds = 0, ...rest } = options;
    return { id, ...(await deliverEvent(router.url, stripe, { ...rest, id, type, object, timestampSeconds: nowSeconds() - ageSeconds })) };
  }

  const checkoutCompleted = (accountId: string, sub: SubscriptionState) =>
    ({ id: `cs_done_${sub.id}`, object: 'checkout.session', mode: 'subscription', client_reference_id: accountId, customer: sub.customer, subscription: sub.id });
  const subscriptionObject = (sub: SubscriptionState) => stripe.subscriptionObject(sub.id);
  const planOf = async (accountId: string) => (await store().getAccount(accountId))!.plan;
  const models = listedModels;

  it('creates a subscription-mode Checkout Session for the signed-in account and redirects to it (303)', async () => {
    const { browser, accountId } = await customer('checkout@example.com');
    const before = stripe.calls.length;
    const first = await browser.get('/app/billing/checkout?plan=pro');
    expect(first.status).toBe(303);
    expect(first.location).toMatch(new RegExp(`^${stripe.url}/pay/cs_test_\\d+$`));
    const call = stripe.calls[before]!;
    expect(call).toMatchObject({ method: 'POST', path: '/v1/checkout/sessions', authorization: `Bearer ${FAKE_STRIPE_KEY}` });
    expect(call.params).toMatchObject({
      mode: 'subscription',
      'line_items[0][price]': PRO_PRICE,
      'line_items[0][quantity]': '1',
      client_reference_id: accountId,
      customer_email: 'checkout@example.com',
      'subscription_data[metadata][account_id]': accountId,
      'subscription_data[metadata][plan]': 'pro',
      success_url: `${router.appUrl}/billing?checkout=success`,
      cancel_url: `${router.appUrl}/billing?checkout=cancelled`,
    });
    // The path /pricing advertises does the same; every attempt has its own idempotency key.
    const second = await browser.get('/app/checkout?plan=max');
    expect(second.status).toBe(303);
    const again = stripe.calls.at(-1)!;
    expect(again.params['line_items[0][price]']).toBe(MAX_PRICE);
    expect(call.idempotencyKey).toMatch(new RegExp(`^checkout-${accountId}-[0-9a-f-]{36}$`));
    expect(again.idempotencyKey).not.toBe(call.idempotencyKey);

    // Coming back from Stripe grants nothing: only a verified webhook does.
    const back = await browser.get('/app/billing?checkout=success');
    expect(back.html).toContain('Your plan changes as soon as Stripe confirms the payment');
    expect(back.html).toContain('Your plan: Free');
    expect(await planOf(accountId)).toBe('free');
  });

  it('refuses plans that are not for sale and unknown plans, and sends signed-out visitors to sign in, without calling Stripe', async () => {
    const { browser } = await customer('refusals@example.com');
    const before = stripe.calls.length;
    const free = await browser.get('/app/checkout?plan=free');
    expect(free.status).toBe(400);
    expect(free.html).toContain('This plan cannot be bought online.');
    expect((await browser.get('/app/checkout?plan=enterprise')).status).toBe(400);
    const anonymous = await new AppClient(router.url).get('/app/checkout?plan=pro');
    expect(anonymous.status).toBe(302);
    expect(anonymous.location).toBe('/app/signin?next=%2Fapp%2Fcheckout%3Fplan%3Dpro');
    expect(stripe.calls.length).toBe(before);
  });

  it('a verified checkout.session.completed upgrades the plan: the next /v1 request sees Pro limits and router/fusion', async () => {
    const { browser, accountId, sdk, key } = await customer('upgrade@example.com');
    expect(await models(sdk)).toEqual(['router/frontier']);
    const refused = await sdk.chat.completions.create({ model: 'router/fusion', messages: [{ role: 'user', content: 'hi' }] }).catch((error: unknown) => error);
    expect(refused).toMatchObject({ status: 403, code: 'plan_upgrade_required' });

    const sub = subscribe(accountId);
    const delivered = await deliver('checkout.session.completed', checkoutCompleted(accountId, sub));
    expect(delivered).toMatchObject({ status: 200, body: { received: true, outcome: 'applied' } });

    expect(await models(sdk)).toEqual(['router/frontier', 'router/fusion']);
    const fusion = await sdk.chat.completions.create({ model: 'router/fusion', messages: [{ role: 'user', content: 'hi' }] }).withResponse();
    expect(fusion.data.model).toBe('router/fusion');
    expect(fusion.response.headers.get('x-quota-limit')).toBe('50000');
    expect(fusion.response.headers.get('x-ratelimit-limit')).toBe('300');
    expect(key).toMatch(/^sk_router_/);

    const page = await browser.get('/app/billing');
    expect(page.html).toContain('Your plan: Pro');
    expect(page.html).toContain('Manage billing');
    const audit = await store().listAuditEvents({ accountId });
    expect(audit.find((event) => event.action === 'account.set_plan')).toMatchObject({ actor: 'stripe', details: { from: 'free', to: 'pro', stripeEventId: delivered.id } });

    // Manage billing opens a Customer Portal session for this account's customer.
    const portal = await browser.get('/app/billing/portal', { 'sec-fetch-site': 'same-origin' });
    expect(portal.status).toBe(303);
    expect(portal.location).toMatch(new RegExp(`^${stripe.url}/portal/bps_test_\\d+$`));
    expect(stripe.calls.at(-1)).toMatchObject({ path: '/v1/billing_portal/sessions', params: { customer: sub.customer, return_url: `${router.appUrl}/billing` } });
    expect((await browser.get('/app/billing/portal', { 'sec-fetch-site': 'cross-site' })).status).toBe(403);
    // A paying account changes plans in the portal, never through a second subscription.
    const second = await browser.get('/app/checkout?plan=max');
    expect(second.status).toBe(409);
  });

  it('a replayed event is a no-op; forged, stale, unsigned, unknown-price and unknown-account events are 400 with nothing changed', async () => {
    const { accountId } = await customer('replay@example.com');
    const sub = subscribe(accountId);
    const applied = await deliver('customer.subscription.created', subscriptionObject(sub));
    expect(applied.body.outcome).toBe('applied');
    const auditCount = (await store().listAuditEvents({ accountId })).length;
    const record = await store().getBillingRecord(accountId);

    const replay = await deliver('customer.subscription.created', subscriptionObject(sub), { id: applied.id });
    expect(replay).toMatchObject({ status: 200, body: { outcome: 'duplicate' } });

    // Stripe now says Max: none of these may apply it.
    stripe.setSubscription({ ...sub, price: MAX_PRICE });
    const forged = await deliver('customer.subscription.updated', subscriptionObject(sub), { secret: 'whsec_not_the_real_one' });
    const stale = await deliver('customer.subscription.updated', subscriptionObject(sub), { ageSeconds: 301 });
    const unsigned = await deliver('customer.subscription.updated', subscriptionObject(sub), { signature: null });
    const tampered = await deliver('customer.subscription.updated', subscriptionObject(sub), { signature: 't=1,v1=00' });
    for (const refusal of [forged, stale, unsigned, tampered]) expect(refusal.status).toBe(400);
    expect(stale.body.error?.message).toMatch(/tolerance/i);

    stripe.setSubscription({ ...sub, price: 'price_nobody_sells' });
    const unknownPrice = await deliver('customer.subscription.updated', subscriptionObject(sub));
    expect(unknownPrice.status).toBe(400);
    const stranger = subscribe('acct_000000000000000000000000');
    const unknownAccount = await deliver('customer.subscription.created', subscriptionObject(stranger));
    expect(unknownAccount.status).toBe(400);
    const anonymous = subscribe(null);
    expect((await deliver('customer.subscription.created', subscriptionObject(anonymous))).status).toBe(400);

    expect(await planOf(accountId)).toBe('pro');
    expect(await store().getBillingRecord(accountId)).toEqual(record);
    expect((await store().listAuditEvents({ accountId })).length).toBe(auditCount);
    // Refused events are not stored: once fixed, Stripe's next delivery applies.
    expect(await store().hasBillingEvent(unknownPrice.id)).toBe(false);
    const lines = (router.server.runtime.logger as unknown as { lines: string[] }).lines.filter((line) => line.includes('billing webhook refused'));
    expect(lines.length).toBeGreaterThanOrEqual(7);
    for (const line of lines) {
      expect(line).not.toContain('"object"');
      expect(line).not.toContain(FAKE_WEBHOOK_SECRET);
    }
    stripe.setSubscription({ ...sub, price: PRO_PRICE });
  });

  it('events in any order converge on what Stripe says now', async () => {
    const { accountId } = await customer('reorder@example.com');
    const sub = subscribe(accountId);
    const incomplete = { ...subscriptionObject(sub), status: 'incomplete' };
    const pastDue = { ...subscriptionObject(sub), status: 'past_due' };
    // Delivered newest first, with stale payloads: each one re-reads the subscription (active, Pro).
    expect((await deliver('invoice.paid', { id: 'in_1', object: 'invoice', parent: { subscription_details: { subscription: sub.id } } })).body.outcome).toBe('applied');
    expect((await deliver('customer.subscription.updated', pastDue)).body.outcome).toBe('applied');
    expect((await deliver('customer.subscription.created', incomplete)).body.outcome).toBe('applied');
    expect((await deliver('checkout.session.completed', checkoutCompleted(accountId, sub))).body.outcome).toBe('applied');
    expect(await planOf(accountId)).toBe('pro');
    expect(await store().getBillingRecord(accountId)).toMatchObject({ status: 'active', paidPlan: 'pro', pastDueSince: null, nextChangeAt: null });
  });

  it('a cancellation takes effect at the period end, with the date shown', async () => {
    const { browser, accountId, sdk } = await customer('cancel@example.com');
    const sub = subscribe(accountId, { periodEnd: nowSeconds() + 10 * 86_400 });
    await deliver('checkout.session.completed', checkoutCompleted(accountId, sub));
    stripe.setSubscription({ ...sub, cancelAtPeriodEnd: true });
    await deliver('customer.subscription.updated', subscriptionObject(sub));
    expect(await planOf(accountId)).toBe('pro');
    const endLabel = `${new Date(sub.periodEnd * 1000).toISOString().slice(0, 16).replace('T', ' ')} UTC`;
    expect((await browser.get('/app/billing')).html).toContain(`Pro until ${endLabel}, then Free.`);

    clock.advance(10 * DAY + 1000);
    // The billing read applies the due change (the sweep does the same every minute).
    expect((await browser.get('/app/billing')).html).toContain('Your plan: Free');
    expect(await models(sdk)).toEqual(['router/frontier']);
    const [latest] = (await store().listAuditEvents({ accountId })).filter((event) => event.action === 'account.set_plan');
    expect(latest).toMatchObject({ actor: 'system', details: { from: 'pro', to: 'free', reason: 'scheduled' } });
    expect((latest!.details as { stripeEventId?: string }).stripeEventId).toMatch(/^evt_test_/);

    // Stripe ends the subscription at the period end: nothing more changes.
    stripe.setSubscription({ ...sub, cancelAtPeriodEnd: true, status: 'canceled' });
    await deliver('customer.subscription.deleted', subscriptionObject(sub));
    expect(await planOf(accountId)).toBe('free');
  });

  it('a failed payment shows a banner, keeps the paid plan for the grace, then moves to Free; a later payment restores it', async () => {
    const { browser, accountId, sdk } = await customer('pastdue@example.com');
    const sub = subscribe(accountId);
    await deliver('checkout.session.completed', checkoutCompleted(accountId, sub));
    stripe.setSubscription({ ...sub, status: 'past_due' });
    await deliver('invoice.payment_failed', { id: 'in_failed', object: 'invoice', subscription: sub.id });
    expect(await planOf(accountId)).toBe('pro');
    const keys = await browser.get('/app/keys');
    expect(keys.html).toContain('Your last payment failed.');
    expect(keys.html).toContain('to keep Pro');

    clock.advance(6 * DAY);
    expect((await browser.get('/app/keys')).html).toContain('to keep Pro');
    expect(await models(sdk)).toEqual(['router/frontier', 'router/fusion']);
    clock.advance(DAY + 1000);
    const after = await browser.get('/app/billing');
    expect(after.html).toContain('Your plan: Free');
    expect(after.html).toContain('the grace period has ended');
    expect(await models(sdk)).toEqual(['router/frontier']);

    stripe.setSubscription({ ...sub, status: 'active' });
    await deliver('invoice.paid', { id: 'in_paid', object: 'invoice', subscription: sub.id });
    expect(await planOf(accountId)).toBe('pro');
    expect((await browser.get('/app/keys')).html).not.toContain('payment failed');
  });

  it('a downgrade keeps the higher plan until the paid period ends', async () => {
    const { browser, accountId } = await customer('downgrade@example.com');
    const sub = subscribe(accountId, { price: MAX_PRICE, periodEnd: nowSeconds() + 5 * 86_400 });
    await deliver('checkout.session.completed', checkoutCompleted(accountId, sub));
    expect(await planOf(accountId)).toBe('max');
    stripe.setSubscription({ ...sub, price: PRO_PRICE });
    await deliver('customer.subscription.updated', subscriptionObject(sub));
    expect(await planOf(accountId)).toBe('max');
    expect((await browser.get('/app/billing')).html).toContain('Max until');
    clock.advance(5 * DAY + 1000);
    await browser.get('/app/billing');
    expect(await planOf(accountId)).toBe('pro');
  });

  it('two accounts never cross: events, portal sessions and mismatched checkouts', async () => {
    const a = await customer('cross-a@example.com');
    const b = await customer('cross-b@example.com');
    const subA = subscribe(a.accountId, { price: MAX_PRICE });
    const subB = subscribe(b.accountId);
    // A checkout that names A but whose subscription belongs to B is refused.
    const mismatched = await deliver('checkout.session.completed', checkoutCompleted(a.accountId, subB));
    expect(mismatched.status).toBe(400);
    expect(await planOf(a.accountId)).toBe('free');
    expect(await planOf(b.accountId)).toBe('free');

    await deliver('checkout.session.completed', checkoutCompleted(a.accountId, subA));
    expect(await planOf(a.accountId)).toBe('max');
    expect(await planOf(b.accountId)).toBe('free');
    expect(await store().getBillingRecord(b.accountId)).toBeNull();
    expect((await b.browser.get('/app/billing/portal')).status).toBe(404);

    await deliver('customer.subscription.created', subscriptionObject(subB));
    expect(await planOf(b.accountId)).toBe('pro');
    expect(await planOf(a.accountId)).toBe('max');
    await a.browser.get('/app/billing/portal');
    expect(stripe.calls.at(-1)?.params.customer).toBe(subA.customer);
    await b.browser.get('/app/billing/portal');
    expect(stripe.calls.at(-1)?.params.customer).toBe(subB.customer);
  });

  it('/pricing lists the checkout path of every plan sold online (JSON and HTML)', async () => {
    const pricing = (await (await fetch(`${router.url}/pricing`, { headers: UA })).json()) as { onlineCheckout: boolean; plans: Array<{ id: string; checkoutUrl: string | null; purchasableOnline: boolean }> };
    expect(pricing.onlineCheckout).toBe(true);
    expect(pricing.plans.map((plan) => [plan.id, plan.checkoutUrl, plan.purchasableOnline])).toEqual([
      ['free', null, false],
      ['pro', `${router.appUrl}/checkout?plan=pro`, true],
      ['max', `${router.appUrl}/checkout?plan=max`, true],
    ]);
    const html = await (await fetch(`${router.url}/pricing`, { headers: { ...UA, accept: 'text/html' } })).text();
    expect(html).toContain(`href="${router.appUrl}/checkout?plan=pro"`);
    expect(html).toContain('Pay by card, cancel any time');
  });
});

describe('billing off (the default)', () => {
  let router: AppRouter;

  beforeAll(async () => {
    router = await startAppRouter();
  });
  afterAll(async () => {
    await router?.close();
  });

  it('says plan changes are arranged through support and offers no checkout anywhere', async () => {
    const browser = new AppClient(router.url);
    await browser.signUp('off@example.com', PASSWORD);
    const page = await browser.get('/app/billing');
    expect(page.html).toContain('Plan changes are arranged with our team');
    expect(page.html).not.toContain('operator');
    expect(page.html).not.toContain('Manage billing');
    expect(page.html).not.toContain('/checkout?plan=');
    const checkout = await browser.get('/app/checkout?plan=pro');
    expect(checkout.status).toBe(200);
    expect(checkout.html).toContain('Online checkout for Pro is not available here');
    // A plan card's call to action when plans are not sold online leads to this page, naming the plan.
    expect((await browser.get('/app/billing?plan=max')).html).toContain('Online checkout for Max is not available here');
    expect((await browser.get('/app/billing/portal')).status).toBe(404);
    const webhook = await fetch(`${router.url}/app/billing/webhook`, { method: 'POST', headers: { ...UA, 'content-type': 'application/json' }, body: '{}' });
    expect(webhook.status).toBe(404);

    const pricing = (await (await fetch(`${router.url}/pricing`, { headers: UA })).json()) as { onlineCheckout: boolean; plans: Array<{ checkoutUrl: string | null; purchasableOnline: boolean }> };
    expect(pricing.onlineCheckout).toBe(false);
    expect(pricing.plans.every((plan) => plan.checkoutUrl === null && !plan.purchasableOnline)).toBe(true);
    const html = await (await fetch(`${router.url}/pricing`, { headers: { ...UA, accept: 'text/html' } })).text();
    expect(html).not.toContain('/checkout?plan=');
    expect(html).toContain('Upgrades are arranged with our team');
    expect(html).toContain('href="' + router.url + '/app/billing?plan=pro"');
  });
});
