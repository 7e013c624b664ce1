/** Online billing for the app, when billing.provider is stripe: the Stripe gateway, the service and its sweep. */
import type { BillingGateway } from '../../billing/billing-gateway.js';
import { BillingService } from '../../billing/billing-service.js';
import { billingEnabled } from '../../billing/checkout-links.js';
import type { RouterDeps } from '../../http/router-deps.js';
import { createStripeGateway } from './stripe-gateway.js';

export interface AppBilling {
  service: BillingService;
  gateway: BillingGateway;
}

/** Null with billing off. Starts the sweep that applies period ends and past-due graces (every minute). */
export function openBilling(deps: RouterDeps): AppBilling | null {
  const { config } = deps;
  if (!billingEnabled(config)) return null;
  const gateway = createStripeGateway(config.server.billing.stripe);
  const service = new BillingService({
    store: deps.store,
    gateway,
    clock: deps.clock,
    plans: config.plans,
    config: config.server.billing,
    fallbackPlan: config.server.app.signupPlan,
    appUrl: config.server.appUrl,
    log: deps.logger,
  });
  service.startSweep(() => deps.drain.draining);
  return { service, gateway };
}
