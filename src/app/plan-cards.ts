/**
 * Plans side by side, as the pricing and billing pages show them (one source: plans.yaml, pricing.yaml
 * and routes.yaml). Route profiles are stated once, in a table of which plan includes which, so the
 * cards carry only what sets each plan apart: price, limits, how it is obtained and the feature lines
 * of pricing.yaml. The plan after the free one is the recommended one; every plan gets one call to
 * action, in the customer's words (how plans change on this server is for the docs, not the card).
 */
import { checkoutUrl } from '../billing/checkout-links.js';
import { planAllowsModel } from '../config/model-globs.js';
import type { RouterConfig } from '../config/types.js';

/** `subscribed`: the account pays through a subscription already, so plan changes go through the Customer Portal. */
/** `appUrl`: the app's address for this request (public-links.ts), so "Ask for Pro" keeps the person's host name. */
export function planCards(deps: { config: RouterConfig }, currentPlan: string | null, options: { subscribed?: boolean; appUrl?: string } = {}) {
  const { plans, pricing, server, routes } = deps.config;
  const format = new Intl.NumberFormat('en-US');
  const routeIds = new Set(routes.map((route) => route.id));
  const recommended = plans.findIndex((plan) => plan.priceUsdMonthly > 0);
  return plans.map((plan, index) => {
    const checkout = checkoutUrl(deps.config, plan);
    const paid = plan.priceUsdMonthly > 0;
    const isCurrent = plan.id === currentPlan;
    return {
      id: plan.id,
      name: plan.name,
      /** `$20` + `/ month`: the amount large, the period beside it; a free plan is `$0`, never "Free / Free". */
      amount: `${currencySymbol(pricing.currency)}${format.format(plan.priceUsdMonthly)}`,
      period: '/ month',
      price: paid ? `${format.format(plan.priceUsdMonthly)} ${pricing.currency.toUpperCase()} / month` : `0 ${pricing.currency.toUpperCase()} / month`,
      monthly: format.format(plan.monthlyRequests),
      rpm: format.format(plan.requestsPerMinute),
      // A feature line that only names a route profile says what the route table already says.
      features: (pricing.features[plan.id] ?? []).filter((feature) => !routeIds.has(feature.trim())),
      current: isCurrent,
      primary: index === recommended,
      // Says how a paid plan is obtained here, so no page offers a purchase the server cannot make.
      availability: !paid ? 'No card needed' : checkout ? (options.subscribed ? 'Change plans with Manage billing' : 'Pay by card, cancel any time') : 'Upgrades are arranged with our team',
      action: isCurrent ? null : planAction(options.appUrl ?? server.appUrl, plan, paid, checkout, currentPlan, options.subscribed === true),
    };
  });
}

function planAction(appUrl: string, plan: { id: string; name: string }, paid: boolean, checkout: string | null, currentPlan: string | null, subscribed: boolean) {
  if (!paid) return currentPlan === null ? { href: `${appUrl}/signup`, label: 'Start free' } : null;
  if (checkout && !subscribed) return { href: checkout, label: `Upgrade to ${plan.name}` };
  if (checkout) return null; // Manage billing changes a subscription (the card says so)
  return { href: `${appUrl}/billing?plan=${encodeURIComponent(plan.id)}`, label: `Ask for ${plan.name}` };
}

function currencySymbol(currency: string): string {
  const symbols: Record<string, string> = { usd: '$', eur: '€', gbp: '£' };
  return symbols[currency.toLowerCase()] ?? `${currency.toUpperCase()} `;
}

/** Each route profile once, with the plans that include it. */
export function routeProfileTable(deps: { config: RouterConfig }) {
  const { plans, routes } = deps.config;
  const concrete = new Set(deps.config.catalog.concreteModels.map((model) => model.id));
  return {
    plans: plans.map((plan) => ({ id: plan.id, name: plan.name })),
    rows: routes.map((route) => ({
      id: route.id,
      description: route.description,
      // A concrete catalog model is a plan's by its `models` globs; a route profile by its list of profiles.
      included: plans.map((plan) => ({ plan: plan.name, yes: concrete.has(route.id) ? planAllowsModel(plan, route.id) : plan.routeProfiles.includes(route.id) })),
    })),
  };
}
