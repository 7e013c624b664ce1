/**
 * Does a request need fusion, and which? A fusion route profile runs its own pipeline; any other
 * profile offering the `router:fusion` tool (the plan check is authorize-route.ts's) runs the server
 * tool with the pipeline of `router/fusion`. A deployment whose `router/fusion` has no fusion block has
 * no tool to serve: the tool is then removed before the upstream call, as adapters do.
 */
import type { FusionConfig, RouteProfileConfig } from '../../config/types.js';
import { hasFusionTool } from '../../routing/fusion/index.js';
import type { RoutingEngine } from '../../routing/routing-engine.js';

export const FUSION_PROFILE = 'router/fusion';

export type FusionRoute = RouteProfileConfig & { fusion: FusionConfig };

export type FusionPlan = { kind: 'profile'; route: FusionRoute } | { kind: 'tool'; route: RouteProfileConfig; fusionRoute: FusionRoute };

export function fusionPlanOf(route: RouteProfileConfig, body: Readonly<Record<string, unknown>>, routes: ReadonlyMap<string, RouteProfileConfig>): FusionPlan | undefined {
  if (isFusionRoute(route)) return { kind: 'profile', route };
  if (!hasFusionTool(body.tools)) return undefined;
  const fusionRoute = routes.get(FUSION_PROFILE);
  return fusionRoute && isFusionRoute(fusionRoute) ? { kind: 'tool', route, fusionRoute } : undefined;
}

/** A fusion profile the account's keys cannot run is refused before its spend is reserved or a panel call is sent. */
export async function requireFusionAccess(deps: { engine: RoutingEngine }, accountId: string, route: FusionRoute): Promise<void> {
  const problem = await deps.engine.fusionAccessProblem(accountId, route);
  if (problem) throw problem;
}

/** How often a streaming request waiting on fusion sends a keep-alive comment. */
export function keepAliveMsOf(plan: FusionPlan): number {
  return (plan.kind === 'profile' ? plan.route : plan.fusionRoute).fusion.keepAliveMs;
}

function isFusionRoute(route: RouteProfileConfig): route is FusionRoute {
  return route.fusion !== undefined;
}

/** The spend gate's view: a request offering the tool may run this profile's pipeline too. */
export function toolFusionOf(plan: FusionPlan | undefined): RouteProfileConfig | undefined {
  return plan?.kind === 'tool' ? plan.fusionRoute : undefined;
}
