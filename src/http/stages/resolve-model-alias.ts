import { globMatcher } from '../../config/model-globs.js';
import type { ModelAliasConfig, RouteProfileConfig } from '../../config/types.js';
import type { WithBody } from '../request-context.js';
import type { Stage } from './stage.js';

/**
 * For /v1/messages, after the body stage: a `model` that names no route profile may match an alias of
 * routes.yaml (an exact name or a `*` glob, first match wins), so Claude Code's own default model names
 * (`claude-opus-…`, `claude-haiku-…`) reach a profile with no flags. Before the quota stage, which
 * counts by the profile's weight.
 */
export function createResolveModelAliasStage(aliases: readonly ModelAliasConfig[], routes: ReadonlyMap<string, RouteProfileConfig>): Stage<WithBody> {
  const matchers = aliases.map((alias) => ({ matches: globMatcher(alias.model), route: routes.get(alias.route) }));
  return (_event, request) => {
    if (request.route) return;
    const model = request.body.model;
    if (typeof model !== 'string') return;
    request.route = matchers.find((matcher) => matcher.matches(model))?.route;
  };
}
