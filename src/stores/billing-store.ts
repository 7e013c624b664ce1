/**
 * What online billing stores per account (src/billing/): the facts of its Stripe subscription as last
 * read from Stripe, and the ids of the Stripe events already applied. A change and its event id are
 * written in one transaction, together with the account's plan and their audit events.
 */
import type { Account } from './account.js';

/** The account's subscription as the router last read it from Stripe, plus what the router derived. */
export interface BillingFacts {
  customerId: string | null;
  subscriptionId: string | null;
  /** Stripe's subscription status (`active`, `past_due`, `canceled`, …). */
  status: string | null;
  /** The plan the subscription's price is for. */
  paidPlan: string | null;
  currentPeriodEnd: string | null;
  cancelAtPeriodEnd: boolean;
  /** When the router first saw the subscription past due (the grace runs from here). */
  pastDueSince: string | null;
  /** After a downgrade: the higher plan, kept until the end of the period it was paid for. */
  keptPlan: string | null;
  keptUntil: string | null;
  /** When the plan changes next without a Stripe event (the sweep's index); null: nothing scheduled. */
  nextChangeAt: string | null;
}

export interface BillingRecord extends BillingFacts {
  accountId: string;
  /** The Stripe event whose processing wrote this record last (null for the sweep's own changes). */
  lastEventId: string | null;
  /** Bumped by every write; a write names the version it read (optimistic concurrency). */
  version: number;
  updatedAt: string;
}

export interface BillingChange {
  accountId: string;
  /** The Stripe event applied, stored under a unique constraint; null for a scheduled change (sweep). */
  event: { id: string; type: string } | null;
  /** The record's version this change was computed from (0: no record yet). */
  expectedVersion: number;
  facts: BillingFacts;
  /** The account's plan from now on (the same plan: no plan change). */
  plan: string;
  /** `stripe` for webhooks, `system` for the sweep. */
  actor: string;
  /** Non-secret context for the audit event (the Stripe event id, the subscription status, …). */
  details: Record<string, unknown>;
}

export type BillingChangeResult =
  | { outcome: 'applied'; account: Account; planChanged: boolean }
  /** The event id was already applied: nothing changed. */
  | { outcome: 'duplicate' }
  /** The record changed since it was read (another event or the sweep): nothing changed; read again. */
  | { outcome: 'conflict' };

export interface BillingStore {
  getBillingRecord(accountId: string): Promise<BillingRecord | null>;
  hasBillingEvent(eventId: string): Promise<boolean>;
  /**
   * In one transaction: store the event id (a known id: `duplicate`), check the version, write the facts,
   * set the plan (audit `account.set_plan` when it changes) and audit `billing.update`.
   */
  saveBillingChange(change: BillingChange): Promise<BillingChangeResult>;
  /** Records whose next scheduled change is due at `nowIso`, oldest first, at most `limit`. */
  listDueBillingRecords(nowIso: string, limit: number): Promise<BillingRecord[]>;
}
