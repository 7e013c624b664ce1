/**
 * Operator-managed provider access (the operator's own provider keys) is off unless configuration asks
 * for it AND every readiness check passes at start: resale controls, durable quotas, durable audit
 * events. Any failing check keeps it off; the result is logged and published in /pricing.
 */
import type { PlanConfig } from '../config/types.js';

export interface ReadinessCheck {
  name: 'resale_controls' | 'durable_quotas' | 'durable_audit_events';
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
  ];
  const active = input.requested && checks.every((check) => check.ok);
  return { requested: input.requested, active, plans: active ? resellable.map((p) => p.id) : [], checks };
}
