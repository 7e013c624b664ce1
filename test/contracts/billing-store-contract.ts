/**
 * What every Store must do for billing (stores/billing-store.ts), run against SQLite and PostgreSQL:
 * a change and its Stripe event id in one transaction (a replay changes nothing), optimistic versions
 * (a stale write changes nothing, its event id included), the plan and its audit events, the sweep's index.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { BillingChange, BillingFacts } from '../../src/stores/billing-store.js';
import { NotFoundInStoreError, type Store } from '../../src/stores/store.js';
import { ManualClock, type MakeStore } from './store-contract.js';

const START = Date.UTC(2026, 10, 15, 12, 0, 0);

const FACTS: BillingFacts = {
  customerId: 'cus_1',
  subscriptionId: 'sub_1',
  status: 'active',
  paidPlan: 'pro',
  currentPeriodEnd: '2026-12-15T12:00:00.000Z',
  cancelAtPeriodEnd: false,
  pastDueSince: null,
  keptPlan: null,
  keptUntil: null,
  nextChangeAt: null,
};

export function runBillingStoreContract(name: string, makeStore: MakeStore): void {
  describe(`${name} billing store contract`, () => {
    let store: Store;
    let clock: ManualClock;

    beforeEach(async () => {
      clock = new ManualClock(START);
      store = await makeStore(clock);
    });
    afterEach(async () => {
      await store.close();
    });

    const change = (accountId: string, overrides: Partial<BillingChange> = {}): BillingChange => ({
      accountId,
      event: { id: 'evt_1', type: 'checkout.session.completed' },
      expectedVersion: 0,
      facts: FACTS,
      plan: 'pro',
      actor: 'stripe',
      details: { stripeEventId: 'evt_1' },
      ...overrides,
    });

    it('applies a change with its event id: facts, plan and audit events in one step', async () => {
      const account = await store.createAccount({ email: 'a@example.com', plan: 'free' }, 'cli');
      expect(await store.getBillingRecord(account.id)).toBeNull();
      const result = await store.saveBillingChange(change(account.id));
      expect(result).toMatchObject({ outcome: 'applied', planChanged: true, account: { id: account.id, plan: 'pro' } });
      expect(await store.getBillingRecord(account.id)).toEqual({
        ...FACTS,
        accountId: account.id,
        lastEventId: 'evt_1',
        version: 1,
        updatedAt: '2026-11-15T12:00:00.000Z',
      });
      expect((await store.getAccount(account.id))?.plan).toBe('pro');
      expect(await store.hasBillingEvent('evt_1')).toBe(true);
      const events = await store.listAuditEvents({ accountId: account.id, limit: 2 });
      expect(events.map((event) => [event.action, event.actor])).toEqual([
        ['billing.update', 'stripe'],
        ['account.set_plan', 'stripe'],
      ]);
      expect(events[1]?.details).toEqual({ from: 'free', to: 'pro', stripeEventId: 'evt_1' });
    });

    it('a replayed event id changes nothing', async () => {
      const account = await store.createAccount({ email: 'a@example.com', plan: 'free' }, 'cli');
      await store.saveBillingChange(change(account.id));
      const auditBefore = (await store.listAuditEvents({ accountId: account.id })).length;
      const replay = await store.saveBillingChange(change(account.id, { expectedVersion: 1, plan: 'max', facts: { ...FACTS, paidPlan: 'max' } }));
      expect(replay).toEqual({ outcome: 'duplicate' });
      expect((await store.getBillingRecord(account.id))?.paidPlan).toBe('pro');
      expect((await store.getAccount(account.id))?.plan).toBe('pro');
      expect((await store.listAuditEvents({ accountId: account.id })).length).toBe(auditBefore);
    });

    it('a write from a stale read changes nothing, its event id included', async () => {
      const account = await store.createAccount({ email: 'a@example.com', plan: 'free' }, 'cli');
      await store.saveBillingChange(change(account.id));
      const stale = await store.saveBillingChange(change(account.id, { event: { id: 'evt_2', type: 'invoice.paid' }, expectedVersion: 0, plan: 'free' }));
      expect(stale).toEqual({ outcome: 'conflict' });
      expect(await store.hasBillingEvent('evt_2')).toBe(false);
      expect((await store.getAccount(account.id))?.plan).toBe('pro');
      expect((await store.getBillingRecord(account.id))?.version).toBe(1);
    });

    it('a scheduled change (no event) keeps the last event id and records no plan change when the plan stays', async () => {
      const account = await store.createAccount({ email: 'a@example.com', plan: 'free' }, 'cli');
      await store.saveBillingChange(change(account.id));
      clock.advance(60_000);
      const facts = { ...FACTS, cancelAtPeriodEnd: true, nextChangeAt: '2026-12-15T12:00:00.000Z' };
      const result = await store.saveBillingChange(change(account.id, { event: null, expectedVersion: 1, facts, actor: 'system' }));
      expect(result).toMatchObject({ outcome: 'applied', planChanged: false });
      expect(await store.getBillingRecord(account.id)).toMatchObject({ lastEventId: 'evt_1', version: 2, cancelAtPeriodEnd: true, updatedAt: '2026-11-15T12:01:00.000Z' });
      const [latest] = await store.listAuditEvents({ accountId: account.id, limit: 1 });
      expect(latest).toMatchObject({ action: 'billing.update', actor: 'system' });
    });

    it('lists the records whose next change is due, oldest first, within the limit', async () => {
      const ids: string[] = [];
      for (const [index, at] of ['2026-11-20T00:00:00.000Z', '2026-11-16T00:00:00.000Z', null, '2026-11-18T00:00:00.000Z'].entries()) {
        const account = await store.createAccount({ email: `${index}@example.com`, plan: 'pro' }, 'cli');
        ids.push(account.id);
        await store.saveBillingChange(change(account.id, { event: { id: `evt_due_${index}`, type: 'customer.subscription.updated' }, facts: { ...FACTS, nextChangeAt: at } }));
      }
      const due = await store.listDueBillingRecords('2026-11-19T00:00:00.000Z', 10);
      expect(due.map((record) => record.accountId)).toEqual([ids[1], ids[3]]);
      expect((await store.listDueBillingRecords('2026-12-01T00:00:00.000Z', 2)).map((record) => record.accountId)).toEqual([ids[1], ids[3]]);
    });

    it('keeps accounts apart and refuses an unknown account', async () => {
      const first = await store.createAccount({ email: 'a@example.com', plan: 'free' }, 'cli');
      const second = await store.createAccount({ email: 'b@example.com', plan: 'free' }, 'cli');
      await store.saveBillingChange(change(first.id));
      expect(await store.getBillingRecord(second.id)).toBeNull();
      expect((await store.getAccount(second.id))?.plan).toBe('free');
      await expect(store.saveBillingChange(change('acct_missing', { event: { id: 'evt_9', type: 'invoice.paid' } }))).rejects.toBeInstanceOf(NotFoundInStoreError);
      expect(await store.hasBillingEvent('evt_9')).toBe(false);
    });
  });
}
