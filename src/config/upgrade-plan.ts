/**
 * Which plan an error's `upgradeUrl` offers: the cheapest plan priced above the account's own that
 * gives what the account ran out of (more monthly requests, more requests in flight, the route profile
 * it asked for, a larger managed-access spend cap, a server tool on managed keys). None, on the top plan or when no plan gives more: the error then has no
 * upgradeUrl, rather than one that offers the plan the account is already on.
 */
import type { PlanConfig } from './types.js';

export type UpgradeNeed =
  | { kind: 'more_requests' }
  | { kind: 'more_in_flight' }
  | { kind: 'route_profile'; profile: string }
  /** A concrete catalog model: which plans allow it is decided by their `models` patterns. */
  | { kind: 'model'; allows: (plan: PlanConfig) => boolean }
  | { kind: 'more_managed_spend' }
  /** A server tool on managed provider keys (plans.yaml managedServerTools). */
  | { kind: 'server_tool'; tool: string };

export function upgradePlanFor(plans: Iterable<PlanConfig>, current: PlanConfig | undefined, need: UpgradeNeed): string | null {
  let best: PlanConfig | undefined;
  for (const plan of plans) {
    if (current && (plan.id === current.id || plan.priceUsdMonthly <= current.priceUsdMonthly)) continue;
    if (!givesMore(plan, current, need)) continue;
    if (!best || plan.priceUsdMonthly < best.priceUsdMonthly) best = plan;
  }
  return best?.id ?? null;
}

function givesMore(plan: PlanConfig, current: PlanConfig | undefined, need: UpgradeNeed): boolean {
  switch (need.kind) {
    case 'more_requests':
      return plan.monthlyRequests > (current?.monthlyRequests ?? 0);
    case 'more_in_flight':
      return plan.maxConcurrentRequests > (current?.maxConcurrentRequests ?? 0);
    case 'route_profile':
      return plan.routeProfiles.includes(need.profile);
    case 'model':
      return need.allows(plan);
    case 'more_managed_spend':
      return (plan.managedSpendCapUsd ?? 0) > (current?.managedSpendCapUsd ?? 0);
    case 'server_tool':
      return plan.managedSpendCapUsd !== undefined && (plan.managedServerTools?.allow as readonly string[] | undefined)?.includes(need.tool) === true;
  }
}
