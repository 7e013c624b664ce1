/** Which plans can be bought online, and where: one answer for /pricing (JSON and HTML), the app and the service. */
import type { PlanConfig, RouterConfig } from '../config/types.js';

/** Online billing is on: Stripe configured and the account app (where checkout and webhooks live) served. */
export function billingEnabled(config: RouterConfig): boolean {
  return config.server.billing.provider === 'stripe' && config.server.app.enabled;
}

/** A paid plan with a Stripe price (router check requires one for every paid plan once billing is on). */
export function sellsOnline(plan: PlanConfig): boolean {
  return plan.priceUsdMonthly > 0 && plan.stripePriceId !== undefined;
}

/** The checkout path /pricing and the upgrade buttons advertise, or null when the plan cannot be bought online. */
export function checkoutUrl(config: RouterConfig, plan: PlanConfig): string | null {
  if (!billingEnabled(config) || !sellsOnline(plan)) return null;
  return `${config.server.appUrl}/checkout?plan=${encodeURIComponent(plan.id)}`;
}
