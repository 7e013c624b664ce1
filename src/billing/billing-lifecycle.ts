/**
 * The plan lifecycle as pure rules: from a subscription as Stripe reports it now (never from an event's
 * own copy, so events in any order converge) and what the router stored before, the facts to store;
 * from the facts, the plan an account has at a given instant and when that changes next.
 *
 * - active/trialing: the subscription's plan at once (an upgrade applies to the next API request);
 *   a downgrade keeps the higher plan until the end of the period it was paid for.
 * - cancel at period end: the plan until the period ends, then the fallback plan (Free).
 * - past_due: the paid plan for the grace, then the fallback plan until a payment succeeds.
 * - canceled, unpaid, incomplete_expired, paused: the fallback plan. incomplete: nothing granted yet.
 */
import type { PlanConfig } from '../config/types.js';
import type { BillingFacts, BillingRecord } from '../stores/billing-store.js';

/** A subscription as retrieved from the billing provider, reduced to what the lifecycle reads. */
export interface SubscriptionSnapshot {
  id: string;
  customerId: string | null;
  status: string;
  priceIds: readonly string[];
  /** The account id the router put in the subscription's metadata at checkout. */
  accountId: string | null;
  cancelAtPeriodEnd: boolean;
  currentPeriodEnd: string | null;
}

export interface LifecycleRules {
  plans: readonly PlanConfig[];
  /** Where an ended or unpaid subscription leaves the account (the sign-up plan, Free). */
  fallbackPlan: string;
  graceMs: number;
}

/** The subscription's price is for no plan in plans.yaml: the event is refused, nothing changes. */
export class UnknownPriceError extends Error {
  constructor(readonly priceIds: readonly string[]) {
    super(`no plan has the Stripe price ${priceIds.join(', ') || '(none)'}`);
    this.name = 'UnknownPriceError';
  }
}

const LIVE = new Set(['active', 'trialing']);
const ENDED = new Set(['canceled', 'unpaid', 'incomplete_expired', 'paused']);

/** The subscription pays for a plan now (live, or past due within its grace). */
export const isPaying = (status: string | null): boolean => status !== null && (LIVE.has(status) || status === 'past_due');

export function planOfPrice(rules: LifecycleRules, priceIds: readonly string[]): PlanConfig {
  const plan = rules.plans.find((candidate) => candidate.stripePriceId !== undefined && priceIds.includes(candidate.stripePriceId));
  if (!plan) throw new UnknownPriceError(priceIds);
  return plan;
}

function rank(rules: LifecycleRules, planId: string | null): number {
  const plan = rules.plans.find((candidate) => candidate.id === planId);
  return plan ? plan.priceUsdMonthly : -1;
}

const later = (iso: string | null, nowMs: number): boolean => iso !== null && Date.parse(iso) > nowMs;

/**
 * The facts to store after reading `subscription`, or `ignore` for a subscription that is not the one
 * the account pays with (an old, ended subscription must not end the new one).
 */
export function factsFromSubscription(
  rules: LifecycleRules,
  subscription: SubscriptionSnapshot,
  before: BillingRecord | null,
  currentPlan: string,
  nowMs: number,
): BillingFacts | 'ignore' {
  const paidPlan = planOfPrice(rules, subscription.priceIds).id;
  const otherSubscription = before?.subscriptionId != null && before.subscriptionId !== subscription.id;
  if (otherSubscription && isPaying(before.status) && !isPaying(subscription.status)) return 'ignore';
  const same = before !== null && !otherSubscription;
  const pastDueSince = subscription.status === 'past_due' ? (same && before.pastDueSince) || new Date(nowMs).toISOString() : null;

  // A downgrade: the higher plan the account has through billing stays until its paid period ends.
  let keptPlan: string | null = null;
  let keptUntil: string | null = null;
  const grantedByBilling = same && (before.paidPlan === currentPlan || before.keptPlan === currentPlan);
  if (isPaying(subscription.status) && grantedByBilling && rank(rules, currentPlan) > rank(rules, paidPlan)) {
    const until = (before.keptPlan === currentPlan ? before.keptUntil : null) ?? before.currentPeriodEnd ?? subscription.currentPeriodEnd;
    if (later(until, nowMs)) [keptPlan, keptUntil] = [currentPlan, until];
  }
  const facts: BillingFacts = {
    customerId: subscription.customerId ?? (same ? before.customerId : null),
    subscriptionId: subscription.id,
    status: subscription.status,
    paidPlan,
    currentPeriodEnd: subscription.currentPeriodEnd,
    cancelAtPeriodEnd: subscription.cancelAtPeriodEnd,
    pastDueSince,
    keptPlan: null,
    keptUntil: null,
    nextChangeAt: null,
  };
  // A higher plan is kept only while the subscription still grants its own plan (not once it ended or ran out of grace).
  const kept = planAt(rules, facts, currentPlan, nowMs) === paidPlan ? { keptPlan, keptUntil } : {};
  const withKept = { ...facts, ...kept };
  return { ...withKept, nextChangeAt: nextChangeAt(rules, withKept, nowMs) };
}

/** The plan the facts give the account at `nowMs`; `currentPlan` when billing decides nothing (no subscription yet). */
export function planAt(rules: LifecycleRules, facts: BillingFacts, currentPlan: string, nowMs: number): string {
  const { status, paidPlan } = facts;
  if (status === null || paidPlan === null || status === 'incomplete') return currentPlan;
  if (ENDED.has(status) || !isPaying(status)) return rules.fallbackPlan;
  const reached = (iso: string | null) => iso !== null && Date.parse(iso) <= nowMs;
  if (facts.cancelAtPeriodEnd && reached(facts.currentPeriodEnd)) return rules.fallbackPlan;
  if (status === 'past_due' && facts.pastDueSince !== null && Date.parse(facts.pastDueSince) + rules.graceMs <= nowMs) return rules.fallbackPlan;
  if (facts.keptPlan !== null && later(facts.keptUntil, nowMs)) return facts.keptPlan;
  return paidPlan;
}

/** When the plan next changes without any event (end of a kept period, a cancellation, the grace); null: never. */
export function nextChangeAt(rules: LifecycleRules, facts: BillingFacts, nowMs: number): string | null {
  if (!isPaying(facts.status)) return null;
  const candidates = [
    facts.keptPlan !== null ? facts.keptUntil : null,
    facts.cancelAtPeriodEnd ? facts.currentPeriodEnd : null,
    facts.status === 'past_due' && facts.pastDueSince !== null ? new Date(Date.parse(facts.pastDueSince) + rules.graceMs).toISOString() : null,
  ].filter((iso): iso is string => later(iso, nowMs));
  return candidates.sort()[0] ?? null;
}
