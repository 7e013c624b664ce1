/** GET /v1/models: the route profiles the caller's plan may use, in the OpenAI list shape. */
import type { H3Event } from 'h3';
import { RouterError } from '../../core/errors.js';
import type { RouterDeps } from '../router-deps.js';
import type { RouterRequestContext } from '../request-context.js';

/** A fixed creation time: route profiles are configuration, not dated model releases. */
const PROFILE_CREATED = 1_767_225_600; // 2026-01-01T00:00:00Z

function modelObject(id: string) {
  return { id, object: 'model', created: PROFILE_CREATED, owned_by: 'router' };
}

function usableProfiles(deps: RouterDeps, ctx: RouterRequestContext): string[] {
  return (ctx.plan?.routeProfiles ?? []).filter((id) => deps.routes.has(id));
}

export function createModelsRoute(deps: RouterDeps) {
  return async (_event: H3Event, ctx: RouterRequestContext) => ({ object: 'list', data: usableProfiles(deps, ctx).map(modelObject) });
}

/** GET /v1/models/{id}: one route profile (ids contain a slash, e.g. router/frontier). */
export function createModelRoute(deps: RouterDeps) {
  return async (event: H3Event, ctx: RouterRequestContext) => {
    const id = decodeModelId(event.path.split('?')[0]!.slice('/v1/models/'.length));
    const usable = usableProfiles(deps, ctx);
    if (!usable.includes(id)) {
      throw new RouterError('unknown_model', `The model '${id}' is not a route profile this key may use. Use one of: ${usable.join(', ')}.`, {
        param: 'model',
        details: { profiles: usable },
      });
    }
    return modelObject(id);
  };
}

/** The id as the client meant it; malformed percent-encoding (`%ZZ`, a cut-off UTF-8 sequence) is the client's error. */
function decodeModelId(encoded: string): string {
  try {
    return decodeURIComponent(encoded);
  } catch {
    throw new RouterError('invalid_request', 'The model id in the path is not valid percent-encoding.', { param: 'model' });
  }
}
