/**
 * The BillingGateway on Stripe, through the official SDK. `apiUrl` (billing.stripe.apiUrl) points the SDK
 * at another host, port and protocol: stripe-mock, or the tests' in-process fake.
 */
import { createRequire } from 'node:module';
import type Stripe from 'stripe';
import type { BillingGateway, CheckoutRequest, VerifiedEvent } from '../../billing/billing-gateway.js';
import { MalformedEventError, SubscriptionGoneError, WebhookSignatureError } from '../../billing/billing-gateway.js';
import type { SubscriptionSnapshot } from '../../billing/billing-lifecycle.js';
import type { BillingConfig } from '../../config/types.js';

/** The SDK is loaded only when billing is on: importing it takes about a second, which every other start-up is spared. */
const loadStripe = (): typeof Stripe => createRequire(import.meta.url)('stripe') as typeof Stripe;

/** Stripe's own default: a signature older than this is refused as a possible replay. */
const TOLERANCE_SECONDS = 300;

export function createStripeGateway(config: BillingConfig['stripe']): BillingGateway {
  if (!config.secretKey || !config.webhookSecret) throw new Error('billing.stripe.secretKey and billing.stripe.webhookSecret are required');
  const api = new URL(config.apiUrl);
  const protocol = api.protocol === 'http:' ? 'http' : 'https';
  const StripeSdk = loadStripe();
  const stripe = new StripeSdk(config.secretKey.reveal(), {
    host: api.hostname,
    port: Number(api.port || (protocol === 'http' ? 80 : 443)),
    protocol,
    maxNetworkRetries: 2,
    timeout: 10_000,
    telemetry: false,
    appInfo: { name: 'llm-router' },
  });
  const webhookSecret = config.webhookSecret.reveal();

  return {
    async createCheckoutSession(request: CheckoutRequest) {
      const metadata = { account_id: request.accountId, plan: request.planId };
      const session = await stripe.checkout.sessions.create(
        {
          mode: 'subscription',
          line_items: [{ price: request.priceId, quantity: 1 }],
          client_reference_id: request.accountId,
          ...(request.customerId ? { customer: request.customerId } : { customer_email: request.email }),
          // The subscription carries the account, so every later event finds it without the session.
          subscription_data: { metadata },
          metadata,
          success_url: request.successUrl,
          cancel_url: request.cancelUrl,
        },
        { idempotencyKey: request.idempotencyKey },
      );
      if (!session.url) throw new Error('Stripe returned a checkout session without a URL');
      return { id: session.id, url: session.url };
    },

    async createPortalSession({ customerId, returnUrl }) {
      const session = await stripe.billingPortal.sessions.create({ customer: customerId, return_url: returnUrl });
      return { url: session.url };
    },

    async retrieveSubscription(id: string): Promise<SubscriptionSnapshot> {
      try {
        return snapshotOf(await stripe.subscriptions.retrieve(id));
      } catch (error) {
        // 404 is Stripe's final word (resource_missing); anything else may pass, so it stays a failure.
        if ((error as { statusCode?: unknown }).statusCode === 404) throw new SubscriptionGoneError(id);
        throw error;
      }
    },

    verifyWebhook(rawBody: Buffer, signatureHeader: string, nowMs: number): VerifiedEvent {
      let event: Stripe.Event;
      try {
        event = stripe.webhooks.constructEvent(rawBody, signatureHeader, webhookSecret, TOLERANCE_SECONDS, undefined, nowMs);
      } catch (error) {
        // The SDK's message says which check failed (no signature, no match, timestamp outside the tolerance); it quotes no payload.
        throw new WebhookSignatureError(error instanceof Error ? error.message.split('\n')[0]! : 'signature check failed');
      }
      return verifiedEvent(event as unknown);
    },
  };
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** A signed body is only as well-formed as its sender made it: check the shape before reading it. */
function verifiedEvent(event: unknown): VerifiedEvent {
  if (!isRecord(event)) throw new MalformedEventError(`the body is ${Array.isArray(event) ? 'an array' : typeof event}, not an event object`);
  const { id, type, data } = event;
  if (typeof id !== 'string' || id.length === 0) throw new MalformedEventError('the event has no id');
  if (typeof type !== 'string' || type.length === 0) throw new MalformedEventError(`event ${id} has no type`);
  if (!isRecord(data)) throw new MalformedEventError(`event ${id} (${type}) has no data`);
  if (!isRecord(data.object)) throw new MalformedEventError(`event ${id} (${type}) has no data.object`);
  return { id, type, object: data.object };
}

const isoOfSeconds = (seconds: number | null | undefined): string | null => (typeof seconds === 'number' ? new Date(seconds * 1000).toISOString() : null);

function snapshotOf(subscription: Stripe.Subscription): SubscriptionSnapshot {
  const items = subscription.items.data;
  // Since API version 2025-03-31 the period lives on each item; all items of one subscription share it.
  const periodEnd = isoOfSeconds(items[0]?.current_period_end);
  // The portal may cancel with cancel_at (a date) instead of cancel_at_period_end.
  const cancelAt = isoOfSeconds(subscription.cancel_at);
  return {
    id: subscription.id,
    customerId: typeof subscription.customer === 'string' ? subscription.customer : subscription.customer.id,
    status: subscription.status,
    priceIds: items.map((item) => item.price.id),
    accountId: subscription.metadata?.account_id ?? null,
    cancelAtPeriodEnd: subscription.cancel_at_period_end || cancelAt !== null,
    currentPeriodEnd: cancelAt ?? periodEnd,
  };
}
