import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { factsFromSubscription, nextChangeAt, planAt, UnknownPriceError, type LifecycleRules, type SubscriptionSnapshot } from '../../../src/billing/billing-lifecycle.js';
import { testPlan as plan } from './test-plans.js';
import type { BillingFacts, BillingRecord } from '../../../src/stores/billing-store.js';

const DAY = 86_400_000;
const RULES: LifecycleRules = { plans: [plan('free', 0), plan('pro', 20, 'price_pro'), plan('max', 200, 'price_max')], fallbackPlan: 'free', graceMs: 7 * DAY };
const NOW = Date.parse('2026-11-21T10:00:00.000Z');
const iso = (ms: number) => new Date(ms).toISOString();

const snapshot = (overrides: Partial<SubscriptionSnapshot> = {}): SubscriptionSnapshot => ({
  id: 'sub_1',
  customerId: 'cus_1',
  status: 'active',
  priceIds: ['price_pro'],
  accountId: 'acct_1',
  cancelAtPeriodEnd: false,
  currentPeriodEnd: iso(NOW + 10 * DAY),
  ...overrides,
});

const record = (facts: BillingFacts): BillingRecord => ({ ...facts, accountId: 'acct_1', lastEventId: 'evt_0', version: 1, updatedAt: iso(NOW) });

function apply(sub: SubscriptionSnapshot, before: BillingRecord | null, currentPlan: string, at = NOW) {
  const facts = factsFromSubscription(RULES, sub, before, currentPlan, at);
  if (facts === 'ignore') throw new Error('ignored');
  return { facts, plan: planAt(RULES, facts, currentPlan, at) };
}

describe('billing lifecycle', () => {
  it('an active subscription grants its plan at once; incomplete grants nothing', () => {
    expect(apply(snapshot(), null, 'free').plan).toBe('pro');
    expect(apply(snapshot({ status: 'incomplete' }), null, 'free').plan).toBe('free');
    expect(() => apply(snapshot({ priceIds: ['price_other'] }), null, 'free')).toThrow(UnknownPriceError);
  });

  it('a cancellation at period end keeps the plan until then, and says when it changes', () => {
    const { facts, plan: now } = apply(snapshot({ cancelAtPeriodEnd: true }), null, 'pro');
    expect(now).toBe('pro');
    expect(facts.nextChangeAt).toBe(iso(NOW + 10 * DAY));
    expect(planAt(RULES, facts, 'pro', NOW + 10 * DAY)).toBe('free');
    expect(apply(snapshot({ status: 'canceled' }), null, 'pro').plan).toBe('free');
  });

  it('past due keeps the plan for the grace from when it was first seen, then the fallback', () => {
    const first = apply(snapshot({ status: 'past_due' }), null, 'pro');
    expect(first.plan).toBe('pro');
    expect(first.facts.pastDueSince).toBe(iso(NOW));
    const later = apply(snapshot({ status: 'past_due' }), record(first.facts), 'pro', NOW + 3 * DAY);
    expect(later.facts.pastDueSince).toBe(iso(NOW));
    expect(planAt(RULES, later.facts, 'pro', NOW + 7 * DAY - 1)).toBe('pro');
    expect(planAt(RULES, later.facts, 'pro', NOW + 7 * DAY)).toBe('free');
    expect(apply(snapshot(), record(later.facts), 'free', NOW + 8 * DAY)).toMatchObject({ plan: 'pro', facts: { pastDueSince: null } });
  });

  it('a downgrade keeps the higher plan until the paid period ends; an upgrade applies at once', () => {
    const onMax = apply(snapshot({ priceIds: ['price_max'] }), null, 'free');
    const down = apply(snapshot({ priceIds: ['price_pro'] }), record(onMax.facts), 'max');
    expect(down).toMatchObject({ plan: 'max', facts: { keptPlan: 'max', keptUntil: iso(NOW + 10 * DAY), nextChangeAt: iso(NOW + 10 * DAY) } });
    expect(planAt(RULES, down.facts, 'max', NOW + 10 * DAY)).toBe('pro');
    const up = apply(snapshot({ priceIds: ['price_max'] }), record(down.facts), 'max');
    expect(up).toMatchObject({ plan: 'max', facts: { keptPlan: null, nextChangeAt: null } });
  });

  it('an ended old subscription does not end the one the account pays with', () => {
    const current = apply(snapshot({ id: 'sub_new' }), null, 'free');
    expect(factsFromSubscription(RULES, snapshot({ id: 'sub_old', status: 'canceled' }), record(current.facts), 'pro', NOW)).toBe('ignore');
  });

  const snapshots = fc.record({
    status: fc.constantFrom('active', 'trialing', 'past_due', 'canceled', 'unpaid', 'incomplete', 'incomplete_expired', 'paused'),
    price: fc.constantFrom('price_pro', 'price_max'),
    cancel: fc.boolean(),
    periodEndDays: fc.integer({ min: -40, max: 40 }),
  });

  it('whatever Stripe says, the plan is a configured one, the next change is in the future, and reading it again changes nothing', () => {
    fc.assert(
      fc.property(fc.array(snapshots, { minLength: 1, maxLength: 6 }), fc.constantFrom('free', 'pro', 'max'), fc.integer({ min: 0, max: 30 }), (sequence, startPlan, stepDays) => {
        let before: BillingRecord | null = null;
        let currentPlan: string = startPlan;
        let at = NOW;
        for (const s of sequence) {
          at += stepDays * DAY;
          const sub = snapshot({ status: s.status, priceIds: [s.price], cancelAtPeriodEnd: s.cancel, currentPeriodEnd: iso(at + s.periodEndDays * DAY) });
          const { facts, plan } = apply(sub, before, currentPlan, at);
          expect(['free', 'pro', 'max']).toContain(plan);
          if (facts.nextChangeAt !== null) expect(Date.parse(facts.nextChangeAt)).toBeGreaterThan(at);
          expect(facts.nextChangeAt).toBe(nextChangeAt(RULES, facts, at));
          // The same subscription read again (a replay, or another event about it) converges: same facts, same plan.
          const again = apply(sub, record(facts), plan, at);
          expect(again).toEqual({ facts, plan });
          before = record(facts);
          currentPlan = plan;
        }
      }),
    );
  });
});
