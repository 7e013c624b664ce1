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
  retrieveSubscription(id: string): Promise<SubscriptionSnapshot>;
  /** Throws WebhookSignatureError for a missing, forged or stale signature. */
  verifyWebhook(rawBody: Buffer, signatureHeader: string, nowMs: number): VerifiedEvent;
}

export class WebhookSignatureError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WebhookSignatureError';
  }
}
