/**
 * A fusion stage (one panel member, the judge, the writer) as a route of its own, so it runs through the
 * same failover loop, circuit breakers and credential lookup as any route profile, with the owning
 * profile's retry budget.
 */
import type { FusionStageConfig, RouteProfileConfig } from '../../config/types.js';

export function stageRoute(owner: RouteProfileConfig, label: string, stage: FusionStageConfig): RouteProfileConfig {
  return {
    id: `${owner.id} (${label})`,
    family: owner.family,
    description: owner.description,
    quotaWeight: 0,
    retryBudget: owner.retryBudget,
    tiers: stage.tiers,
  };
}
