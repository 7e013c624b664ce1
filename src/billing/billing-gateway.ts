/**
 * What the billing service needs from the payment provider. The Stripe implementation is
 * app/billing/stripe-gateway.ts (the official SDK); tests point that SDK at an in-process fake.
 */
import type { SubscriptionSnapshot } from './billing-lifecycle.js';

/** A webhook event whose signature and timestamp were verified; `object` is the event's data object. */
export interface VerifiedEvent {
  id: string;
  type: string;
  object: Readonly<Record<string, unknown>>;
}

export interface CheckoutRequest {
  accountId: string;
  email: string;
  planId: string;
  priceId: string;
  /** The account's customer from an earlier subscription, so invoices stay in one place. */
  customerId: string | null;
  successUrl: string;
  cancelUrl: string;
  /** One per attempt: a retried request creates no second session, a new click creates a new one. */
  idempotencyKey: string;
}

export interface BillingGateway {
  createCheckoutSession(request: CheckoutRequest): Promise<{ id: string; url: string }>;
  createPortalSession(input: { customerId: string; returnUrl: string }): Promise<{ url: string }>;
  /** Throws SubscriptionGoneError when the provider has no such subscription (a permanent answer). */
  retrieveSubscription(id: string): Promise<SubscriptionSnapshot>;
  /**
   * Throws WebhookSignatureError for a missing, forged or stale signature, and MalformedEventError for a
   * signed body that is not an event (not an object, no id or type, no data object).
   */
  verifyWebhook(rawBody: Buffer, signatureHeader: string, nowMs: number): VerifiedEvent;
}

export class WebhookSignatureError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WebhookSignatureError';
  }
}

/** A verified body that is not an event the router can read; the message names the missing part, never the payload. */
export class MalformedEventError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'MalformedEventError';
  }
}

/** The provider answered that the subscription does not exist (deleted, or of another account of the provider's). */
export class SubscriptionGoneError extends Error {
  constructor(readonly subscriptionId: string) {
    super(`subscription ${subscriptionId} does not exist at the payment provider`);
    this.name = 'SubscriptionGoneError';
  }
}
