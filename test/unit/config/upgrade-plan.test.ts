import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { PlanConfig } from '../../../src/config/types.js';
import { upgradePlanFor, type UpgradeNeed } from '../../../src/config/upgrade-plan.js';

const plan = fc.record({
  id: fc.string({ minLength: 1, maxLength: 6 }),
  priceUsdMonthly: fc.nat(300),
  monthlyRequests: fc.nat(1_000_000),
  maxConcurrentRequests: fc.nat(300),
  managedSpendCapUsd: fc.option(fc.nat(500), { nil: undefined }),
  routeProfiles: fc.subarray(['router/frontier', 'router/fusion']),
});
const plans = fc.uniqueArray(plan, { selector: (p) => p.id, minLength: 1, maxLength: 6 }).map((list) => list.map((p) => ({ name: p.id, requestsPerMinute: 1, ...p }) as PlanConfig));
const need: fc.Arbitrary<UpgradeNeed> = fc.oneof(
  fc.constant({ kind: 'more_requests' as const }),
  fc.constant({ kind: 'more_in_flight' as const }),
  fc.constant({ kind: 'more_managed_spend' as const }),
  fc.constantFrom('router/frontier', 'router/fusion').map((profile) => ({ kind: 'route_profile' as const, profile })),
  fc.constantFrom('router/frontier', 'router/fusion').map((profile) => ({ kind: 'model' as const, allows: (plan: PlanConfig) => plan.routeProfiles.includes(profile) })),
);

function gives(candidate: PlanConfig, current: PlanConfig, wanted: UpgradeNeed): boolean {
  if (wanted.kind === 'more_requests') return candidate.monthlyRequests > current.monthlyRequests;
  if (wanted.kind === 'more_in_flight') return candidate.maxConcurrentRequests > current.maxConcurrentRequests;
  if (wanted.kind === 'more_managed_spend') return (candidate.managedSpendCapUsd ?? 0) > (current.managedSpendCapUsd ?? 0);
  if (wanted.kind === 'model') return wanted.allows(candidate);
  if (wanted.kind === 'server_tool') return candidate.managedSpendCapUsd !== undefined && (candidate.managedServerTools?.allow as readonly string[] | undefined)?.includes(wanted.tool) === true;
  return candidate.routeProfiles.includes(wanted.profile);
}

describe('upgradePlanFor', () => {
  it('offers the cheapest plan priced above the account’s that gives what ran out, never its own, or none', () => {
    fc.assert(
      fc.property(plans, fc.nat(), need, (list, index, wanted) => {
        const current = list[index % list.length]!;
        const offered = upgradePlanFor(list, current, wanted);
        const eligible = list.filter((p) => p.id !== current.id && p.priceUsdMonthly > current.priceUsdMonthly && gives(p, current, wanted));
        if (eligible.length === 0) {
          expect(offered).toBeNull();
          return;
        }
        expect(offered).not.toBe(current.id);
        const chosen = list.find((p) => p.id === offered)!;
        expect(eligible).toContain(chosen);
        expect(chosen.priceUsdMonthly).toBe(Math.min(...eligible.map((p) => p.priceUsdMonthly)));
      }),
    );
  });

  it('offers nothing on the top plan of the shipped shape', () => {
    const shipped = [
      { id: 'free', priceUsdMonthly: 0, monthlyRequests: 1000, routeProfiles: ['router/frontier'] },
      { id: 'pro', priceUsdMonthly: 20, monthlyRequests: 50_000, routeProfiles: ['router/frontier', 'router/fusion'] },
      { id: 'max', priceUsdMonthly: 200, monthlyRequests: 500_000, routeProfiles: ['router/frontier', 'router/fusion'] },
    ] as unknown as PlanConfig[];
    expect(upgradePlanFor(shipped, shipped[0], { kind: 'more_requests' })).toBe('pro');
    expect(upgradePlanFor(shipped, shipped[1], { kind: 'more_requests' })).toBe('max');
    expect(upgradePlanFor(shipped, shipped[2], { kind: 'more_requests' })).toBeNull();
    expect(upgradePlanFor(shipped, shipped[0], { kind: 'route_profile', profile: 'router/fusion' })).toBe('pro');
  });
});
