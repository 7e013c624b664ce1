/**
 * Durable operator audit events for what changes in configuration rather than through the CLI: the
 * plans (limits, prices, spend caps, route profiles) and the state of managed provider access. At every
 * start the router records an event when either differs from the last one recorded (actor `system`), so
 * `router audit` shows when a deploy changed them. Account, key and provider-key changes are audited by
 * the store in the same transaction as the change.
 */
import { createHash } from 'node:crypto';
import type { PlanConfig } from '../config/types.js';
import type { ManagedAccessStatus } from '../routing/managed-access.js';
import type { LedgerStore } from '../stores/ledger-store.js';

export async function recordConfigAudit(store: LedgerStore, input: { plans: readonly PlanConfig[]; managedAccess: ManagedAccessStatus; at: string }): Promise<string[]> {
  const plans = input.plans.map((plan) => ({
    id: plan.id,
    monthlyRequests: plan.monthlyRequests,
    requestsPerMinute: plan.requestsPerMinute,
    routeProfiles: [...plan.routeProfiles],
    priceUsdMonthly: plan.priceUsdMonthly,
    managedSpendCapUsd: plan.managedSpendCapUsd ?? null,
  }));
  const { requested, active, plans: managedPlans, checks } = input.managedAccess;
  const facts = [
    { action: 'config.plans', details: { plans } },
    { action: 'config.managed_access', details: { requested, active, plans: [...managedPlans], failing: checks.filter((check) => !check.ok).map((check) => check.name) } },
  ];
  const recorded: string[] = [];
  for (const fact of facts) {
    const fingerprint = createHash('sha256').update(JSON.stringify(fact.details)).digest('hex').slice(0, 16);
    if (await store.recordConfigChange({ ...fact, fingerprint, at: input.at })) recorded.push(fact.action);
  }
  return recorded;
}
