/**
 * Operator-managed provider access (the operator's own provider keys) is off unless configuration asks
 * for it AND every readiness check passes at start: resale controls, durable quotas, durable audit
 * events, a usage ledger that answered a live read and write path check, and spend metering (the ledger
 * live and a price for every model a resellable plan can reach). Any failing check keeps it off; the
 * result is logged and published in /pricing.
 */
import type { PlanConfig } from '../config/types.js';

export interface ReadinessCheck {
  name: 'resale_controls' | 'durable_quotas' | 'durable_audit_events' | 'usage_ledger' | 'spend_metering';
  ok: boolean;
  detail: string;
}

export interface ManagedAccessStatus {
  requested: boolean;
  active: boolean;
  /** Plans whose accounts may use operator keys (they have a price and a spend cap). */
  plans: readonly string[];
  checks: readonly ReadinessCheck[];
}

export function evaluateManagedAccess(input: {
  requested: boolean;
  plans: readonly PlanConfig[];
  /** The store keeps quota counters and audit events across restarts (not an in-memory database). */
  durableStore: boolean;
  /** The usage ledger's tables and spend meter answered at start, and its writer runs. */
  ledger: { live: boolean; detail: string };
  /** `route (provider/model)` of every route target a resellable plan can reach that has no price. */
  unpricedForResale: (plans: readonly string[]) => readonly string[];
}): ManagedAccessStatus {
  const resellable = input.plans.filter((plan) => plan.managedSpendCapUsd !== undefined && plan.priceUsdMonthly > 0);
  const unpriced = input.plans.filter((plan) => plan.managedSpendCapUsd !== undefined && plan.priceUsdMonthly <= 0);
  const checks: ReadinessCheck[] = [
    {
      name: 'resale_controls',
      ok: resellable.length > 0 && unpriced.length === 0,
      detail:
        resellable.length === 0
          ? 'no plan has both a price and managedSpendCapUsd'
          : unpriced.length > 0
            ? `plans with a spend cap but no price: ${unpriced.map((p) => p.id).join(', ')}`
            : `resellable plans: ${resellable.map((p) => p.id).join(', ')}`,
    },
    { name: 'durable_quotas', ok: input.durableStore, detail: input.durableStore ? 'quota counters are in a durable store' : 'the store is in memory' },
    { name: 'durable_audit_events', ok: input.durableStore, detail: input.durableStore ? 'audit events are in a durable store' : 'the store is in memory' },
    { name: 'usage_ledger', ok: input.ledger.live, detail: input.ledger.detail },
    spendMetering(input.ledger.live, input.unpricedForResale(resellable.map((plan) => plan.id))),
  ];
  const active = input.requested && checks.every((check) => check.ok);
  return { requested: input.requested, active, plans: active ? resellable.map((p) => p.id) : [], checks };
}

function spendMetering(ledgerLive: boolean, unpriced: readonly string[]): ReadinessCheck {
  if (!ledgerLive) return { name: 'spend_metering', ok: false, detail: 'spend is metered from the usage ledger, which is not live' };
  if (unpriced.length > 0) return { name: 'spend_metering', ok: false, detail: `models without a price in providers.yaml: ${unpriced.join(', ')}` };
  return { name: 'spend_metering', ok: true, detail: 'every model a resellable plan can reach has a price; spend is metered from the ledger' };
}
