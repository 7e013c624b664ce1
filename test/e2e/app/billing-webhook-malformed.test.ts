/**
 * Stripe-signed deliveries the router cannot apply: a body that is not a well-formed event is 400 JSON
 * (never the 500 page), an event naming a subscription Stripe no longer has is acknowledged with an
 * audit note (so Stripe stops retrying a permanent answer), and only a failure a retry can fix is 503.
 * None of them logs the payload.
 */
import Stripe from 'stripe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FAKE_STRIPE_KEY, FAKE_WEBHOOK_SECRET, startStripeFake, type StripeFake } from '../../fakes/stripe-fake.js';
import { BILLING_ENV, billingPatch, deliverEvent } from '../billing-harness.js';
import { startAppRouter, type AppRouter } from '../app-harness.js';

const CANARY = 'canary-webhook-payload-0123456789';
const signer = new Stripe(FAKE_STRIPE_KEY);

describe('billing webhook: malformed events and subscriptions Stripe no longer has', () => {
  let stripe: StripeFake;
  let router: AppRouter;
  beforeAll(async () => {
    stripe = await startStripeFake();
    router = await startAppRouter({ env: BILLING_ENV, patch: billingPatch(stripe.url) });
  });
  afterAll(async () => {
    await router?.close();
    await stripe?.close();
  });

  const logLines = () => (router.server.runtime.logger as unknown as { lines: string[] }).lines;
  const nowSeconds = () => Math.floor(Date.now() / 1000);

  /** POST a body signed with the endpoint's real secret, whatever its shape. */
  async function deliverRaw(body: string) {
    const signature = signer.webhooks.generateTestHeaderString({ payload: body, secret: FAKE_WEBHOOK_SECRET, timestamp: nowSeconds() });
    const response = await fetch(`${router.url}/app/billing/webhook`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'user-agent': 'Stripe/1.0 (+https://stripe.com/docs/webhooks)', 'stripe-signature': signature },
      body,
    });
    return { status: response.status, type: response.headers.get('content-type'), text: await response.text() };
  }

  it('answers a signed body that is not a well-formed event with 400 JSON, and logs the reason without the payload', async () => {
    const event = (fields: Record<string, unknown>) => JSON.stringify({ id: 'evt_malformed', object: 'event', type: 'customer.subscription.updated', note: CANARY, ...fields });
    const bodies = {
      array: JSON.stringify([{ id: 'evt_in_array', note: CANARY }]),
      noData: event({}),
      nullData: event({ data: null }),
      nullObject: event({ data: { object: null } }),
      arrayObject: event({ data: { object: [CANARY] } }),
      noType: JSON.stringify({ id: 'evt_untyped', data: { object: { id: 'sub_1', note: CANARY } } }),
      string: JSON.stringify(CANARY),
    };
    for (const [name, body] of Object.entries(bodies)) {
      const answer = await deliverRaw(body);
      expect(answer.status, name).toBe(400);
      expect(answer.type, name).toBe('application/json');
      expect(JSON.parse(answer.text).error.message, name).toMatch(/^malformed event: /);
      expect(answer.text, name).not.toContain(CANARY);
    }
    const refused = logLines().filter((line) => line.includes('billing webhook refused: malformed event'));
    expect(refused).toHaveLength(Object.keys(bodies).length);
    expect(logLines().join('\n')).not.toContain(CANARY);
  });

  it('acknowledges an event whose subscription Stripe answers 404 for, with an audit note and nothing stored', async () => {
    const delivered = await deliverEvent(router.url, stripe, {
      id: 'evt_gone_1',
      type: 'customer.subscription.updated',
      object: { id: 'sub_deleted_long_ago', object: 'subscription', metadata: { note: CANARY } },
      timestampSeconds: nowSeconds(),
    });
    expect(delivered).toEqual({ status: 200, body: { received: true, outcome: 'gone' } });
    const store = router.server.runtime.store;
    expect(await store.hasBillingEvent('evt_gone_1')).toBe(false);
    const notes = (await store.listAuditEvents({ limit: 50 })).filter((audit) => audit.action === 'billing.event_unresolved');
    expect(notes).toHaveLength(1);
    expect(notes[0]).toMatchObject({ actor: 'stripe', accountId: null, details: { stripeEventId: 'evt_gone_1', subscriptionId: 'sub_deleted_long_ago' } });
    expect(logLines().join('\n')).not.toContain(CANARY);
  });

  it('still answers 503 when Stripe fails in a way a retry can fix', async () => {
    stripe.failSubscription('sub_flaky', 500);
    try {
      const delivered = await deliverEvent(router.url, stripe, {
        id: 'evt_flaky_1',
        type: 'customer.subscription.updated',
        object: { id: 'sub_flaky', object: 'subscription' },
        timestampSeconds: nowSeconds(),
      });
      expect(delivered.status).toBe(503);
    } finally {
      stripe.failSubscription('sub_flaky', null);
    }
  }, 30_000);
});
