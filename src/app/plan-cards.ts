/** Plans side by side, as the pricing and billing pages show them (one source: plans.yaml and pricing.yaml). */
import type { RouterConfig } from '../config/types.js';

export function planCards(deps: { config: RouterConfig }, currentPlan: string | null) {
  const { plans, pricing, server } = deps.config;
  const format = new Intl.NumberFormat('en-US');
  return plans.map((plan, index) => ({
    id: plan.id,
    name: plan.name,
    price: plan.priceUsdMonthly > 0 ? `${format.format(plan.priceUsdMonthly)} ${pricing.currency.toUpperCase()} / month` : 'Free',
    monthly: format.format(plan.monthlyRequests),
    rpm: format.format(plan.requestsPerMinute),
    profiles: plan.routeProfiles.join(', '),
    features: pricing.features[plan.id] ?? [],
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
