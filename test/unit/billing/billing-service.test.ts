/**
 * The billing service on a real (SQLite, in-memory) store behind the quota ledger's wrapper, with a
 * gateway stub standing in for Stripe: the sweep applies due changes on its own, and every plan change
 * it makes drops the quota ledger's cached card (the path CLI plan changes take).
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { BillingGateway } from '../../../src/billing/billing-gateway.js';
import type { SubscriptionSnapshot } from '../../../src/billing/billing-lifecycle.js';
import { BillingService } from '../../../src/billing/billing-service.js';
import { testPlan as plan } from './test-plans.js';
import { forgetOnAccountChange } from '../../../src/stores/forget-on-account-change.js';
import type { QuotaLedger } from '../../../src/stores/quota-ledger.js';
import { createSqliteStore } from '../../../src/stores/sqlite/create-sqlite-store.js';
import type { Store } from '../../../src/stores/store.js';
import { ManualClock } from '../../contracts/store-contract.js';

const DAY = 86_400_000;

describe('billing service', () => {
  let clock: ManualClock;
  let raw: Store;
  let store: Store;
  let forgotten: string[];
  const subscriptions = new Map<string, SubscriptionSnapshot>();
  let service: BillingService;

  beforeEach(async () => {
    clock = new ManualClock(Date.parse('2026-11-21T10:00:00.000Z'));
    raw = createSqliteStore({ path: ':memory:', clock });
    await raw.migrate();
    forgotten = [];
    const ledger = { forgetAccount: async (id: string) => void forgotten.push(id) } as unknown as QuotaLedger;
    store = forgetOnAccountChange(raw, ledger, () => undefined);
    const gateway: BillingGateway = {
      createCheckoutSession: async () => ({ id: 'cs_1', url: 'https://checkout.example/cs_1' }),
      createPortalSession: async () => ({ url: 'https://portal.example/1' }),
      retrieveSubscription: async (id) => subscriptions.get(id)!,
      verifyWebhook: () => {
        throw new Error('not used');
      },
    };
    service = new BillingService({
      store,
      gateway,
      clock,
      plans: [plan('free', 0), plan('pro', 20, 'price_pro')],
      config: { provider: 'stripe', pastDueGraceDays: 7, stripe: { apiUrl: 'https://api.stripe.com' } },
      fallbackPlan: 'free',
      appUrl: 'https://app.example',
      log: { warn: () => undefined },
    });
  });
  afterEach(() => raw.close());

  it('the sweep moves a past-due account to Free when the grace ends, announcing each plan change to the quota ledger', async () => {
    const account = await store.createAccount({ email: 'a@example.com', plan: 'free' }, 'cli');
    const other = await store.createAccount({ email: 'b@example.com', plan: 'free' }, 'cli');
    subscriptions.set('sub_1', { id: 'sub_1', customerId: 'cus_1', status: 'active', priceIds: ['price_pro'], accountId: account.id, cancelAtPeriodEnd: false, currentPeriodEnd: '2026-12-21T10:00:00.000Z' });
    expect(await service.handleEvent({ id: 'evt_1', type: 'customer.subscription.created', object: { id: 'sub_1' } })).toBe('applied');
    expect(forgotten).toEqual([account.id]);
    subscriptions.set('sub_1', { ...subscriptions.get('sub_1')!, status: 'past_due' });
    expect(await service.handleEvent({ id: 'evt_2', type: 'invoice.payment_failed', object: { id: 'in_1', subscription: 'sub_1' } })).toBe('applied');
    expect(forgotten).toEqual([account.id]);

    clock.advance(7 * DAY - 1);
    expect(await service.sweep()).toBe(0);
    clock.advance(1);
    expect(await service.sweep()).toBe(1);
    expect((await store.getAccount(account.id))?.plan).toBe('free');
    expect((await store.getAccount(other.id))?.plan).toBe('free');
    expect(forgotten).toEqual([account.id, account.id]);
    const [change] = (await store.listAuditEvents({ accountId: account.id })).filter((event) => event.action === 'account.set_plan');
    expect(change).toMatchObject({ actor: 'system', details: { from: 'pro', to: 'free', stripeEventId: 'evt_2', reason: 'scheduled' } });
    // Nothing more is due: the next sweep finds nothing.
    expect(await service.sweep()).toBe(0);
  });

  it('ignores event types it does not handle and events without a subscription, storing nothing', async () => {
    expect(await service.handleEvent({ id: 'evt_x', type: 'customer.created', object: { id: 'cus_1' } })).toBe('ignored');
    expect(await service.handleEvent({ id: 'evt_y', type: 'invoice.paid', object: { id: 'in_1' } })).toBe('ignored');
    expect(await store.hasBillingEvent('evt_x')).toBe(false);
  });
});
