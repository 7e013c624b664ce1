/** GET /v1/models: the route profiles the caller's plan may use, in the OpenAI list shape. */
import type { RouterDeps } from '../router-deps.js';
import type { RouterRequestContext } from '../request-context.js';

/** A fixed creation time: route profiles are configuration, not dated model releases. */
const PROFILE_CREATED = 1_767_225_600; // 2026-01-01T00:00:00Z

export function createModelsRoute(deps: RouterDeps) {
  return async (_event: unknown, ctx: RouterRequestContext) => ({
    object: 'list',
    data: (ctx.plan?.routeProfiles ?? [])
      .filter((id) => deps.routes.has(id))
      .map((id) => ({ id, object: 'model', created: PROFILE_CREATED, owned_by: 'router' })),
  });
}
