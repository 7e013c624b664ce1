/**
 * After the body stage (and the model alias), before the quota stage: applies the request's `provider`
 * object and a `:nitro` / `:floor` suffix on the model to the route (routing/provider-preferences.ts),
 * so the request's route holds only the targets they allow, in their order. A combination no target meets is
 * refused here with a 400 naming the field: before admission, so it is never counted or charged. The
 * `provider` object is taken off the body either way: it is the router's, never an upstream's.
 */
import type { ProviderConfig, RouteProfileConfig } from '../../config/types.js';
import { RouterError } from '../../core/errors.js';
import { narrowRoute, parseProviderPreferences, type PreferenceSort } from '../../routing/provider-preferences.js';
import { requestedParameters } from '../../providers/supported-parameters.js';
import type { RequestState, WithBody } from '../request-context.js';
import type { Stage } from './stage.js';

/** OpenRouter's shortcuts: `:nitro` is the fastest measured throughput first, `:floor` the cheapest first. */
export const SUFFIX_SORT: ReadonlyMap<string, PreferenceSort> = new Map([['nitro', 'throughput'], ['floor', 'price']]);

export function createProviderPreferencesStage(routes: ReadonlyMap<string, RouteProfileConfig>, providers: ReadonlyMap<string, ProviderConfig>): Stage<WithBody> {
  return (_event, request) => {
    const body = request.body;
    const stated = body.provider;
    delete body.provider;
    (request as unknown as RequestState).statedProvider = stated;
    const suffix = request.route ? undefined : suffixOf(body.model, routes);
    if (suffix) {
      request.route = suffix.route;
      body.model = suffix.route.id;
    }
    const route = request.route;
    // An unknown model is answered by the route's authorization (404 with the profiles the key may use).
    if (!route || (stated === undefined && !suffix)) return;
    if (route.fusion) {
      throw new RouterError('invalid_request', `${route.id} runs several providers at once; provider preferences and model suffixes do not apply to it.`, {
        param: stated === undefined ? 'model' : 'provider',
      });
    }
    let preferences = parseProviderPreferences(stated);
    if (preferences instanceof RouterError) throw preferences;
    if (suffix) {
      if (preferences.sort && preferences.sort !== suffix.sort) {
        throw new RouterError('invalid_request', `Invalid value for 'provider.sort': the model's :${suffix.name} suffix already sorts by ${suffix.sort}.`, { param: 'provider.sort' });
      }
      preferences = { ...preferences, sort: suffix.sort };
    }
    const narrowed = narrowRoute(route, preferences, { providers, requestedParameters: preferences.requireParameters ? requestedParameters(body) : [] });
    if (narrowed instanceof RouterError) throw narrowed;
    request.route = narrowed;
  };
}

function suffixOf(model: unknown, routes: ReadonlyMap<string, RouteProfileConfig>): { route: RouteProfileConfig; name: string; sort: PreferenceSort } | undefined {
  if (typeof model !== 'string') return undefined;
  const colon = model.lastIndexOf(':');
  if (colon < 0) return undefined;
  const name = model.slice(colon + 1);
  const sort = SUFFIX_SORT.get(name);
  const route = routes.get(model.slice(0, colon));
  return sort && route ? { route, name, sort } : undefined;
}
