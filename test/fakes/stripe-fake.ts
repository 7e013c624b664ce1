/**
 * An in-process fake of the parts of the Stripe API the router uses, for the official `stripe` SDK
 * pointed at it (billing.stripe.apiUrl): Checkout Sessions and Customer Portal sessions (created from
 * form-encoded parameters, which it records with the idempotency key and credential), and subscriptions
 * to retrieve (the tests set what Stripe "knows"). It also serves the pages the sessions' URLs point to,
 * and signs webhook events with the SDK's own test-header helper.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import Stripe from 'stripe';

export const FAKE_STRIPE_KEY = 'sk_test_fake_router_0123456789';
export const FAKE_WEBHOOK_SECRET = 'whsec_fake_router_0123456789';

export interface StripeCall {
  method: string;
  path: string;
  /** Form parameters as sent, flattened the way Stripe encodes them: `line_items[0][price]`. */
  params: Record<string, string>;
  idempotencyKey: string | undefined;
  authorization: string | undefined;
}

export interface SubscriptionState {
  id: string;
  customer: string;
  status: string;
  price: string;
  accountId: string | null;
  cancelAtPeriodEnd?: boolean;
  /** Unix seconds. */
  periodStart: number;
  periodEnd: number;
}

export interface StripeFake {
  readonly url: string;
  readonly calls: StripeCall[];
  /** What GET /v1/subscriptions/:id returns from now on. */
  setSubscription(state: SubscriptionState): void;
  /** GET /v1/subscriptions/:id answers this status (an api_error) from now on; null answers normally again. */
  failSubscription(id: string, status: number | null): void;
  subscriptionObject(id: string): Record<string, unknown>;
  /** A signed delivery: the body as Stripe sends it and its Stripe-Signature header. */
  signedEvent(input: { id: string; type: string; object: Record<string, unknown>; timestampSeconds: number; secret?: string }): { body: string; signature: string };
  close(): Promise<void>;
}

const stripeForSigning = new Stripe(FAKE_STRIPE_KEY);

export async function startStripeFake(): Promise<StripeFake> {
  const calls: StripeCall[] = [];
  const subscriptions = new Map<string, SubscriptionState>();
  const failures = new Map<string, number>();
  let sessions = 0;
  let url = '';

  const subscriptionObject = (id: string): Record<string, unknown> => {
    const state = subscriptions.get(id);
    if (!state) throw new Error(`no subscription ${id}`);
    return {
      id: state.id,
      object: 'subscription',
      customer: state.customer,
      status: state.status,
      cancel_at_period_end: state.cancelAtPeriodEnd ?? false,
      cancel_at: null,
      metadata: state.accountId ? { account_id: state.accountId } : {},
      items: {
        object: 'list',
        data: [
          {
            id: `si_${state.id}`,
            object: 'subscription_item',
            price: { id: state.price, object: 'price', recurring: { interval: 'month' } },
            quantity: 1,
            current_period_start: state.periodStart,
            current_period_end: state.periodEnd,
          },
        ],
      },
    };
  };

  const send = (res: ServerResponse, status: number, body: unknown, type = 'application/json') => {
    res.writeHead(status, { 'content-type': type, 'request-id': `req_fake_${calls.length}` });
    res.end(typeof body === 'string' ? body : JSON.stringify(body));
  };

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const path = (req.url ?? '/').split('?')[0]!;
    const params = Object.fromEntries(new URLSearchParams(Buffer.concat(chunks).toString('utf8')));
    if (path.startsWith('/v1/')) {
      calls.push({
        method: req.method ?? 'GET',
        path,
        params,
        idempotencyKey: req.headers['idempotency-key'] as string | undefined,
        authorization: req.headers.authorization,
      });
    }
    if (req.method === 'POST' && path === '/v1/checkout/sessions') {
      const id = `cs_test_${++sessions}`;
      return send(res, 200, {
        id,
        object: 'checkout.session',
        mode: params.mode,
        client_reference_id: params.client_reference_id ?? null,
        customer: params.customer ?? null,
        customer_email: params.customer_email ?? null,
        success_url: params.success_url,
        cancel_url: params.cancel_url,
        status: 'open',
        url: `${url}/pay/${id}`,
      });
    }
    if (req.method === 'POST' && path === '/v1/billing_portal/sessions') {
      const id = `bps_test_${++sessions}`;
      return send(res, 200, { id, object: 'billing_portal.session', customer: params.customer, return_url: params.return_url, url: `${url}/portal/${id}` });
    }
    const subscription = /^\/v1\/subscriptions\/([^/]+)$/.exec(path);
    if (req.method === 'GET' && subscription) {
      const failure = failures.get(subscription[1]!);
      if (failure !== undefined) return send(res, failure, { error: { type: 'api_error', message: 'fake failure' } });
      if (!subscriptions.has(subscription[1]!)) {
        return send(res, 404, { error: { type: 'invalid_request_error', code: 'resource_missing', message: `No such subscription: '${subscription[1]}'` } });
      }
      return send(res, 200, subscriptionObject(subscription[1]!));
    }
    if (req.method === 'GET' && (path.startsWith('/pay/') || path.startsWith('/portal/'))) {
      const title = path.startsWith('/pay/') ? 'Fake Stripe Checkout' : 'Fake Stripe Customer Portal';
      return send(res, 200, `<!doctype html><html lang="en"><head><title>${title}</title></head><body><h1>${title}</h1></body></html>`, 'text/html');
    }
    send(res, 404, { error: { type: 'invalid_request_error', message: `Unrecognized request URL (${req.method}: ${path})` } });
  }

  const server = createServer((req, res) => void handle(req, res).catch(() => send(res, 500, { error: { type: 'api_error', message: 'fake failed' } })));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    url,
    calls,
    setSubscription: (state) => void subscriptions.set(state.id, state),
    failSubscription: (id, status) => void (status === null ? failures.delete(id) : failures.set(id, status)),
    subscriptionObject,
    signedEvent({ id, type, object, timestampSeconds, secret = FAKE_WEBHOOK_SECRET }) {
      const body = JSON.stringify({ id, object: 'event', type, api_version: '2025-01-01', created: timestampSeconds, livemode: false, data: { object } });
      const signature = stripeForSigning.webhooks.generateTestHeaderString({ payload: body, secret, timestamp: timestampSeconds });
      return { body, signature };
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
