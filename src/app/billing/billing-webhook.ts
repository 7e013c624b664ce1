/**
 * POST {appUrl}/billing/webhook: Stripe's events. The raw body (bounded) is verified with the SDK's
 * signature check before anything is parsed; the service applies the event. Refusals are 400 with
 * nothing changed and are logged with the reason only, never the payload (also a signed body that is
 * not a well-formed event); an event naming a subscription Stripe no longer has is acknowledged (200
 * `gone`, with an audit note), since no redelivery can change that; only failures a retry can fix
 * (reaching Stripe or the database) are 503, so Stripe delivers the event again later.
 */
import { eventHandler, getRequestHeader, setResponseHeader, setResponseStatus, type EventHandler, type H3Event } from 'h3';
import { MalformedEventError, WebhookSignatureError } from '../../billing/billing-gateway.js';
import { UnknownPriceError } from '../../billing/billing-lifecycle.js';
import { BillingEventRejected, type BillingService } from '../../billing/billing-service.js';
import type { BillingGateway } from '../../billing/billing-gateway.js';
import { describeError } from '../../core/describe-error.js';
import { BodyTooLargeError, readBodyUpTo } from '../http-helpers.js';
import type { WebDeps } from '../web-deps.js';

/** Stripe's events are a few KiB; a body past this is not one. */
const WEBHOOK_LIMIT_BYTES = 512 * 1024;

function answer(event: H3Event, status: number, body: Record<string, unknown>): string {
  setResponseStatus(event, status);
  setResponseHeader(event, 'content-type', 'application/json');
  setResponseHeader(event, 'cache-control', 'no-store');
  return JSON.stringify(body);
}

export function billingWebhook(deps: WebDeps, service: BillingService, gateway: BillingGateway): EventHandler {
  const refuse = (event: H3Event, reason: string) => {
    deps.logger.warn(`billing webhook refused: ${reason}`);
    return answer(event, 400, { error: { message: reason } });
  };
  return eventHandler(async (event) => {
    let raw: Buffer;
    try {
      raw = await readBodyUpTo(event, WEBHOOK_LIMIT_BYTES);
    } catch (error) {
      if (error instanceof BodyTooLargeError) return answer(event, 413, { error: { message: `body larger than ${WEBHOOK_LIMIT_BYTES} bytes` } });
      throw error;
    }
    const signature = getRequestHeader(event, 'stripe-signature');
    if (!signature) return refuse(event, 'no Stripe-Signature header');
    let verified;
    try {
      verified = gateway.verifyWebhook(raw, signature, deps.clock.now());
    } catch (error) {
      if (error instanceof WebhookSignatureError) return refuse(event, `signature not accepted (${error.message})`);
      // Signed but not an event: no redelivery can fix it, and it must never reach the 500 page.
      if (error instanceof MalformedEventError) return refuse(event, `malformed event: ${error.message}`);
      throw error;
    }
    try {
      const outcome = await service.handleEvent(verified);
      return answer(event, 200, { received: true, outcome });
    } catch (error) {
      if (error instanceof BillingEventRejected) return refuse(event, `${verified.type} ${verified.id}: ${error.message}`);
      if (error instanceof UnknownPriceError) return refuse(event, `${verified.type} ${verified.id}: ${error.message}`);
      deps.logger.error(`billing webhook could not apply ${verified.type} ${verified.id} (${describeError(error)}); Stripe will deliver it again`);
      return answer(event, 503, { error: { message: 'could not apply the event now; deliver it again later' } });
    }
  });
}
