/**
 * Online billing without HTTP: starting a checkout or a portal session for an account, applying
 * verified webhook events, and the scheduled changes (period ends, the past-due grace) that the sweep
 * and every read of an account's billing apply. Every plan change goes through the store's
 * saveBillingChange, which the quota ledger's wrapper announces (stores/forget-on-account-change.ts),
 * so a new plan applies to the account's next API request, as a CLI plan change does.
 */
import { randomUUID } from 'node:crypto';
import type { BillingConfig, PlanConfig } from '../config/types.js';
import type { Clock } from '../core/clock.js';
import type { BillingFacts, BillingRecord } from '../stores/billing-store.js';
import type { Account, Store } from '../stores/store.js';
import { SubscriptionGoneError, type BillingGateway, type VerifiedEvent } from './billing-gateway.js';
import { factsFromSubscription, isPaying, nextChangeAt, planAt, type LifecycleRules, type SubscriptionSnapshot } from './billing-lifecycle.js';

/** The events the router acts on; any other type is acknowledged and ignored. */
export const HANDLED_EVENTS = [
  'checkout.session.completed',
  'customer.subscription.created',
  'customer.subscription.updated',
  'customer.subscription.deleted',
  'invoice.paid',
  'invoice.payment_failed',
] as const;

/** A verified event the router cannot apply (unknown account, unknown price): 400, nothing changed. */
export class BillingEventRejected extends Error {
  constructor(reason: string) {
    super(reason);
    this.name = 'BillingEventRejected';
  }
}

/** `gone`: the subscription no longer exists at Stripe; acknowledged (nothing to apply, ever) with an audit note. */
export type EventOutcome = 'applied' | 'duplicate' | 'ignored' | 'gone';

export type CheckoutStart = { url: string } | { refused: 'unknown_plan' | 'not_for_sale' | 'already_subscribed' };

export interface BillingServiceDeps {
  store: Store;
  gateway: BillingGateway;
  clock: Clock;
  plans: readonly PlanConfig[];
  config: BillingConfig;
  /** The plan an ended subscription leaves the account on (the sign-up plan). */
  fallbackPlan: string;
  appUrl: string;
  log: { warn(message: string): void };
}

const DAY_MS = 86_400_000;
/** Attempts at one event when other writes of the same account keep winning (each re-reads Stripe). */
const ATTEMPTS = 3;
const SWEEP_BATCH = 100;

export class BillingService {
  readonly rules: LifecycleRules;

  constructor(private readonly deps: BillingServiceDeps) {
    this.rules = { plans: deps.plans, fallbackPlan: deps.fallbackPlan, graceMs: deps.config.pastDueGraceDays * DAY_MS };
  }

  /** Plans a person can buy online. */
  purchasable(plan: PlanConfig): boolean {
    return plan.priceUsdMonthly > 0 && plan.stripePriceId !== undefined;
  }

  async startCheckout(account: Account, planId: string): Promise<CheckoutStart> {
    const plan = this.deps.plans.find((candidate) => candidate.id === planId);
    if (!plan) return { refused: 'unknown_plan' };
    if (!this.purchasable(plan)) return { refused: 'not_for_sale' };
    const record = await this.deps.store.getBillingRecord(account.id);
    // A second subscription would bill twice: plan changes of a paying account go through the portal.
    if (record && isPaying(record.status)) return { refused: 'already_subscribed' };
    const session = await this.deps.gateway.createCheckoutSession({
      accountId: account.id,
      email: account.email,
      planId: plan.id,
      priceId: plan.stripePriceId!,
      customerId: record?.customerId ?? null,
      successUrl: `${this.deps.appUrl}/billing?checkout=success`,
      cancelUrl: `${this.deps.appUrl}/billing?checkout=cancelled`,
      idempotencyKey: `checkout-${account.id}-${randomUUID()}`,
    });
    return { url: session.url };
  }

  /** Null when the account has never had a customer (nothing to manage yet). */
  async portalUrl(accountId: string): Promise<string | null> {
    const record = await this.deps.store.getBillingRecord(accountId);
    if (!record?.customerId) return null;
    return (await this.deps.gateway.createPortalSession({ customerId: record.customerId, returnUrl: `${this.deps.appUrl}/billing` })).url;
  }

  /** Applies one verified event. Throws BillingEventRejected (answer 400) or a gateway/store error (answer 5xx: Stripe retries). */
  async handleEvent(event: VerifiedEvent): Promise<EventOutcome> {
    if (!(HANDLED_EVENTS as readonly string[]).includes(event.type)) return 'ignored';
    const subscriptionId = subscriptionIdOf(event);
    if (!subscriptionId) return 'ignored';
    if (await this.deps.store.hasBillingEvent(event.id)) return 'duplicate';
    for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
      const subscription = await this.currentSubscription(event, subscriptionId);
      if (!subscription) return 'gone';
      const accountId = this.accountOf(event, subscription.accountId);
      const account = await this.deps.store.getAccount(accountId);
      if (!account) throw new BillingEventRejected(`event ${event.id} names unknown account ${accountId}`);
      const before = await this.deps.store.getBillingRecord(account.id);
      const nowMs = this.deps.clock.now();
      const derived = factsFromSubscription(this.rules, subscription, before, account.plan, nowMs);
      const facts = derived === 'ignore' ? factsOf(before!) : derived;
      const result = await this.deps.store.saveBillingChange({
        accountId: account.id,
        event: { id: event.id, type: event.type },
        expectedVersion: before?.version ?? 0,
        facts,
        plan: planAt(this.rules, facts, account.plan, nowMs),
        actor: 'stripe',
        details: { stripeEventId: event.id, eventType: event.type, subscriptionId: subscription.id, status: subscription.status, ...(derived === 'ignore' ? { ignored: 'not the subscription in use' } : {}) },
      });
      if (result.outcome === 'applied') return 'applied';
      if (result.outcome === 'duplicate') return 'duplicate';
    }
    throw new Error(`event ${event.id}: the account's billing kept changing while it was applied`);
  }

  /**
   * The account's billing with any change that is due applied first (the check on read, so a page never
   * shows a plan the sweep has not caught up with yet), and the account as it is afterwards.
   */
  async current(account: Account): Promise<{ record: BillingRecord | null; account: Account }> {
    const record = await this.deps.store.getBillingRecord(account.id);
    if (!record || !isDue(record, this.deps.clock.now())) return { record, account };
    await this.applyScheduled(record);
    const [after, now] = await Promise.all([this.deps.store.getBillingRecord(account.id), this.deps.store.getAccount(account.id)]);
    return { record: after, account: now ?? account };
  }

  /** Applies every change that is due (period ends, graces). Returns how many records it looked at. */
  async sweep(): Promise<number> {
    const due = await this.deps.store.listDueBillingRecords(new Date(this.deps.clock.now()).toISOString(), SWEEP_BATCH);
    for (const record of due) await this.applyScheduled(record);
    return due.length;
  }

  /**
   * Runs the sweep every `intervalMs` until `stopWhen` says so (the instance drains) or the returned
   * stop is called (the runtime closes); a failed tick is logged, the next tries again.
   */
  startSweep(stopWhen: () => boolean, intervalMs = 60_000): () => void {
    const timer = setInterval(() => {
      if (stopWhen()) return clearInterval(timer);
      this.sweep().catch((error: unknown) => this.deps.log.warn(`billing sweep failed: ${(error as Error).message}`));
    }, intervalMs);
    timer.unref();
    return () => clearInterval(timer);
  }

  /** The plan the account moves to at `record.nextChangeAt` (for "Pro until 1 Dec, then Free"). */
  nextPlan(record: BillingRecord, currentPlan: string): string | null {
    if (!record.nextChangeAt) return null;
    return planAt(this.rules, record, currentPlan, Date.parse(record.nextChangeAt));
  }

  private async applyScheduled(record: BillingRecord): Promise<void> {
    const account = await this.deps.store.getAccount(record.accountId);
    if (!account) return;
    const nowMs = this.deps.clock.now();
    const facts = { ...factsOf(record), nextChangeAt: nextChangeAt(this.rules, record, nowMs) };
    // A conflict means an event just wrote the record: its own computation already covers this change.
    await this.deps.store.saveBillingChange({
      accountId: record.accountId,
      event: null,
      expectedVersion: record.version,
      facts,
      plan: planAt(this.rules, facts, account.plan, nowMs),
      actor: 'system',
      details: { stripeEventId: record.lastEventId, reason: 'scheduled', scheduledAt: record.nextChangeAt, status: record.status },
    });
  }

  /**
   * What Stripe says of the subscription now; null when Stripe has no such subscription, which no
   * redelivery can change: the operator gets an audit note and Stripe an acknowledgement, so it stops retrying.
   */
  private async currentSubscription(event: VerifiedEvent, subscriptionId: string): Promise<SubscriptionSnapshot | null> {
    try {
      return await this.deps.gateway.retrieveSubscription(subscriptionId);
    } catch (error) {
      if (!(error instanceof SubscriptionGoneError)) throw error;
      await this.deps.store.recordAuditEvent({
        actor: 'stripe',
        action: 'billing.event_unresolved',
        accountId: null,
        details: { stripeEventId: event.id, eventType: event.type, subscriptionId, reason: 'the subscription does not exist at Stripe' },
      });
      this.deps.log.warn(`billing webhook: ${event.type} ${event.id} names subscription ${subscriptionId}, which Stripe does not have; acknowledged without change`);
      return null;
    }
  }

  private accountOf(event: VerifiedEvent, fromSubscription: string | null): string {
    const fromCheckout = event.type === 'checkout.session.completed' ? stringField(event.object, 'client_reference_id') : null;
    if (fromCheckout && fromSubscription && fromCheckout !== fromSubscription) {
      throw new BillingEventRejected(`event ${event.id}: checkout names account ${fromCheckout} but its subscription names ${fromSubscription}`);
    }
    const accountId = fromSubscription ?? fromCheckout;
    if (!accountId) throw new BillingEventRejected(`event ${event.id}: the subscription names no account (not created by this router's checkout)`);
    return accountId;
  }
}

function isDue(record: BillingRecord, nowMs: number): boolean {
  return record.nextChangeAt !== null && Date.parse(record.nextChangeAt) <= nowMs;
}

function factsOf(record: BillingRecord): BillingFacts {
  const { accountId: _a, lastEventId: _e, version: _v, updatedAt: _u, ...facts } = record;
  return facts;
}

function stringField(object: Readonly<Record<string, unknown>>, name: string): string | null {
  const value = object[name];
  if (typeof value === 'string' && value.length > 0) return value;
  // Expanded objects carry their id.
  if (value !== null && typeof value === 'object' && typeof (value as { id?: unknown }).id === 'string') return (value as { id: string }).id;
  return null;
}

/** The subscription an event is about: the object itself, a checkout's or an invoice's (older and newer API shapes). */
function subscriptionIdOf(event: VerifiedEvent): string | null {
  if (event.type.startsWith('customer.subscription.')) return stringField(event.object, 'id');
  if (event.type === 'checkout.session.completed') return stringField(event.object, 'subscription');
  const parent = event.object.parent as { subscription_details?: Record<string, unknown> } | null | undefined;
  return stringField(event.object, 'subscription') ?? (parent?.subscription_details ? stringField(parent.subscription_details, 'subscription') : null);
}
