/**
 * Plans side by side, as the pricing and billing pages show them (one source: plans.yaml, pricing.yaml
 * and routes.yaml). Route profiles are stated once, in a table of which plan includes which, so the
 * cards carry only what sets each plan apart: price, limits and the operator's feature lines.
 */
import type { RouterConfig } from '../config/types.js';

export function planCards(deps: { config: RouterConfig }, currentPlan: string | null) {
  const { plans, pricing, server, routes } = deps.config;
  const format = new Intl.NumberFormat('en-US');
  const routeIds = new Set(routes.map((route) => route.id));
  return plans.map((plan, index) => ({
    id: plan.id,
    name: plan.name,
    price: plan.priceUsdMonthly > 0 ? `${format.format(plan.priceUsdMonthly)} ${pricing.currency.toUpperCase()} / month` : 'Free',
    monthly: format.format(plan.monthlyRequests),
    rpm: format.format(plan.requestsPerMinute),
    // A feature line that only names a route profile says what the route table already says.
    features: (pricing.features[plan.id] ?? []).filter((feature) => !routeIds.has(feature.trim())),
    current: plan.id === currentPlan,
    primary: index === 1,
    action:
      plan.priceUsdMonthly > 0
        ? { href: `${server.appUrl}/checkout?plan=${encodeURIComponent(plan.id)}`, label: `Upgrade to ${plan.name}` }
        : currentPlan === null
          ? { href: `${server.appUrl}/signup`, label: 'Start free' }
          : null,
  }));
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
