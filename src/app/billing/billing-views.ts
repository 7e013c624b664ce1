/** What the billing page and the past-due banner say about an account's subscription. */
import type { BillingService } from '../../billing/billing-service.js';
import type { PlanConfig } from '../../config/types.js';
import type { BillingRecord } from '../../stores/billing-store.js';
import type { Account } from '../../stores/store.js';
import { utcLabel } from '../key-views.js';

// A Map, not an object literal: the status is whatever Stripe sent, and a name like 'constructor' must not find Object's function.
const STATUS_LABELS: ReadonlyMap<string, string> = new Map([
  ['active', 'Active'],
  ['trialing', 'Trial'],
  ['past_due', 'Payment failed'],
  ['incomplete', 'Waiting for the first payment'],
  ['incomplete_expired', 'First payment not made'],
  ['unpaid', 'Unpaid'],
  ['canceled', 'Ended'],
  ['paused', 'Paused'],
]);

export interface SubscriptionView {
  statusLabel: string;
  /** "Pro until 2026-12-21 10:00 UTC, then Free." when a change is scheduled. */
  change: string | null;
  renewsLabel: string | null;
}

function nameOf(plans: ReadonlyMap<string, PlanConfig>, id: string): string {
  return plans.get(id)?.name ?? id;
}

export function subscriptionView(service: BillingService, plans: ReadonlyMap<string, PlanConfig>, record: BillingRecord, account: Account): SubscriptionView {
  const next = service.nextPlan(record, account.plan);
  const change = record.nextChangeAt && next && next !== account.plan ? `${nameOf(plans, account.plan)} until ${utcLabel(record.nextChangeAt)}, then ${nameOf(plans, next)}.` : null;
  const renews = (record.status === 'active' || record.status === 'trialing') && !record.cancelAtPeriodEnd ? record.currentPeriodEnd : null;
  return { statusLabel: STATUS_LABELS.get(record.status ?? '') ?? record.status ?? 'None', change, renewsLabel: renews ? utcLabel(renews) : null };
}

/** The banner every signed-in page shows while a payment has failed; null otherwise. */
export function pastDueBanner(service: BillingService, plans: ReadonlyMap<string, PlanConfig>, record: BillingRecord | null, account: Account): string | null {
  if (record?.status !== 'past_due') return null;
  const fallback = nameOf(plans, service.rules.fallbackPlan);
  if (account.plan === service.rules.fallbackPlan) {
    return `Your last payment failed and the grace period has ended: the account is on ${fallback} until a payment succeeds. Update your card with Manage billing.`;
  }
  const until = record.nextChangeAt ? ` before ${utcLabel(record.nextChangeAt)}` : '';
  return `Your last payment failed. Update your card with Manage billing${until} to keep ${nameOf(plans, account.plan)}; after that the account moves to ${fallback}.`;
}
