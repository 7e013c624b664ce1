/**
 * Plans side by side, as the pricing and billing pages show them (one source: plans.yaml, pricing.yaml
 * and routes.yaml). Route profiles are stated once, in a table of which plan includes which, so the
 * cards carry only what sets each plan apart: price, limits, how it is obtained and the operator's
 * feature lines.
 */
import { checkoutUrl } from '../billing/checkout-links.js';
import type { RouterConfig } from '../config/types.js';

/** `subscribed`: the account pays through a subscription already, so plan changes go through the Customer Portal. */
export function planCards(deps: { config: RouterConfig }, currentPlan: string | null, options: { subscribed?: boolean } = {}) {
  const { plans, pricing, server, routes } = deps.config;
  const format = new Intl.NumberFormat('en-US');
  const routeIds = new Set(routes.map((route) => route.id));
  return plans.map((plan, index) => {
    const checkout = checkoutUrl(deps.config, plan);
    const paid = plan.priceUsdMonthly > 0;
    return {
      id: plan.id,
      name: plan.name,
      price: paid ? `${format.format(plan.priceUsdMonthly)} ${pricing.currency.toUpperCase()} / month` : 'Free',
      monthly: format.format(plan.monthlyRequests),
      rpm: format.format(plan.requestsPerMinute),
      // A feature line that only names a route profile says what the route table already says.
      features: (pricing.features[plan.id] ?? []).filter((feature) => !routeIds.has(feature.trim())),
      current: plan.id === currentPlan,
      primary: index === 1,
      // Says how a paid plan is obtained here, so no page offers a purchase the server cannot make.
      availability: !paid ? null : checkout ? (options.subscribed ? 'Change plans with Manage billing' : 'Can be bought online') : 'Set by the operator of this server',
      action:
        paid && checkout && !options.subscribed
          ? { href: checkout, label: `Upgrade to ${plan.name}` }
          : !paid && currentPlan === null
            ? { href: `${server.appUrl}/signup`, label: 'Start free' }
            : null,
    };
  });
}

/** Each route profile once, with the plans that include it. */
export function routeProfileTable(deps: { config: RouterConfig }) {
  const { plans, routes } = deps.config;
  return {
    plans: plans.map((plan) => ({ id: plan.id, name: plan.name })),
    rows: routes.map((route) => ({
      id: route.id,
      description: route.description,
      included: plans.map((plan) => ({ plan: plan.name, yes: plan.routeProfiles.includes(route.id) })),
    })),
  };
}
