/**
 * A concrete catalog model (`openai/gpt-4.1`) as the route profile that serves it: one tier per
 * endpoint in the order listed, so the first is preferred and the others are its failover, under the
 * same limits, ledger and plan rules as any profile (plans allow it through `models`, not `routeProfiles`).
 */
import type { ConcreteModel, RouteProfileConfig } from './types.js';

/** The family of every concrete model's route: what tells authorize-route.ts to read the plan's `models`. */
export const CONCRETE_MODEL_FAMILY = 'model';

export function concreteModelRoute(model: ConcreteModel): RouteProfileConfig {
  return {
    id: model.id,
    family: CONCRETE_MODEL_FAMILY,
    description: model.description,
    quotaWeight: 1,
    retryBudget: model.retryBudget ?? model.endpoints.length - 1,
    tiers: model.endpoints.map((endpoint) => [endpoint]),
    order: model.order,
    // A chat model's route stays as it always was; the others say which endpoint may serve them.
    ...(model.kind === 'chat' ? {} : { kind: model.kind }),
    ...(model.embedding ? { embedding: model.embedding } : {}),
  };
}
