/**
 * Is the caller's plan allowed what the body asks for? Unknown profile → 404 with the profiles the key
 * may use and up to three allowed names that resemble the one asked for (model-suggestions.ts); `router/fusion` or the `router:fusion` tool on a plan without it → 403 upgrade; a concrete
 * model (catalog.yaml `concreteModels`) the plan's `models` do not allow → 403 upgrade.
 */
import type { PlanConfig, RouteProfileConfig } from '../config/types.js';
import { CONCRETE_MODEL_FAMILY } from '../config/concrete-model-route.js';
import { upgradePlanFor } from '../config/upgrade-plan.js';
import { RouterError } from '../core/errors.js';
import { planAllowsModel } from '../config/model-globs.js';
import type { Standing, WithBody } from './request-context.js';
import { unknownModel } from './model-suggestions.js';

const FUSION_PROFILE = 'router/fusion';
const FUSION_TOOL = 'router:fusion';

export function authorizeRoute(
  request: WithBody & Pick<Standing, 'plan'>,
  plans: ReadonlyMap<string, PlanConfig>,
  concreteModels: ReadonlyArray<{ id: string }> = [],
  /** The organization's preset ids (`@preset/<slug>`), read only for an unknown model: suggested beside the rest. */
  presets: readonly string[] = [],
): RouteProfileConfig {
  const allowed = request.plan?.routeProfiles ?? [];
  const model = String(request.body.model);
  const route = request.route;
  if (!route) {
    const models = concreteModels.filter((concrete) => planAllowsModel(request.plan, concrete.id)).map((concrete) => concrete.id);
    throw unknownModel(model, allowed, [...models, ...presets]);
  }
  if (route.family === CONCRETE_MODEL_FAMILY) {
    if (!planAllowsModel(request.plan, route.id)) {
      throw new RouterError('plan_upgrade_required', `The model ${route.id} is not included in the ${request.plan?.name ?? 'current'} plan. Upgrade to a plan that includes it.`, {
        param: 'model',
        upgradePlan: upgradePlanFor(plans.values(), request.plan, { kind: 'model', allows: (plan) => planAllowsModel(plan, route.id) }),
      });
    }
  } else if (!allowed.includes(route.id)) {
    throw new RouterError('plan_upgrade_required', `${route.id} is not included in the ${request.plan?.name ?? 'current'} plan. Upgrade to a plan that includes it.`, {
      param: 'model',
      details: { profiles: allowed },
      upgradePlan: upgradePlanFor(plans.values(), request.plan, { kind: 'route_profile', profile: route.id }),
    });
  }
  const tools = request.body.tools;
  if (Array.isArray(tools) && tools.some((tool) => (tool as { type?: unknown }).type === FUSION_TOOL) && !allowed.includes(FUSION_PROFILE)) {
    throw new RouterError('plan_upgrade_required', `The ${FUSION_TOOL} tool is available on plans that include ${FUSION_PROFILE}. Upgrade to use it.`, {
      param: 'tools',
      details: { profiles: allowed },
      upgradePlan: upgradePlanFor(plans.values(), request.plan, { kind: 'route_profile', profile: FUSION_PROFILE }),
    });
  }
  return route;
}
