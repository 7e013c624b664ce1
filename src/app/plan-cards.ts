/** Plans side by side, as the pricing and billing pages show them (one source: plans.yaml and pricing.yaml). */
import { checkoutUrl } from '../billing/checkout-links.js';
import type { RouterConfig } from '../config/types.js';

/** `subscribed`: the account pays through a subscription already, so plan changes go through the Customer Portal. */
export function planCards(deps: { config: RouterConfig }, currentPlan: string | null, options: { subscribed?: boolean } = {}) {
  const { plans, pricing, server } = deps.config;
  const format = new Intl.NumberFormat('en-US');
  return plans.map((plan, index) => {
    const checkout = checkoutUrl(deps.config, plan);
    const paid = plan.priceUsdMonthly > 0;
    return {
      id: plan.id,
      name: plan.name,
      price: paid ? `${format.format(plan.priceUsdMonthly)} ${pricing.currency.toUpperCase()} / month` : 'Free',
      monthly: format.format(plan.monthlyRequests),
      rpm: format.format(plan.requestsPerMinute),
      profiles: plan.routeProfiles.join(', '),
      features: pricing.features[plan.id] ?? [],
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
