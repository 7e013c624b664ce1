/** Online billing for the app, when billing.provider is stripe: the Stripe gateway and the service. */
import type { ConsolaInstance } from 'consola';
import type { BillingGateway } from '../../billing/billing-gateway.js';
import { BillingService } from '../../billing/billing-service.js';
import { billingEnabled } from '../../billing/checkout-links.js';
import type { RouterConfig } from '../../config/types.js';
import type { Clock } from '../../core/clock.js';
import type { Store } from '../../stores/store.js';
import { createStripeGateway } from './stripe-gateway.js';

export interface AppBilling {
  service: BillingService;
  gateway: BillingGateway;
}

/**
 * Null with billing off. Starts nothing: the composition root starts the service's sweep (period ends
 * and past-due graces, every minute) and stops it on close.
 */
export function openBilling(deps: { config: RouterConfig; store: Store; clock: Clock; logger: ConsolaInstance }): AppBilling | null {
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
  return { service, gateway };
}
