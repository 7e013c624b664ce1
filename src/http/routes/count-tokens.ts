/**
 * POST /v1/messages/count_tokens: Anthropic's own count from an Anthropic target of the route that has a
 * usable credential; otherwise (no such target, or none could answer) the documented estimate. The
 * `x-router-token-count` header says which (`anthropic` or `estimate`). Not model traffic: it is not
 * counted against the monthly quota and writes no usage record.
 */
import type { H3Event } from 'h3';
import { isRouterError } from '../../core/errors.js';
import type { MessagesRequest } from '../../formats/anthropic-messages.js';
import { splitHeaderList } from '../../core/split-header-list.js';
import { estimateInputTokens } from '../../translators/messages/estimate-input-tokens.js';
import { abortOnDisconnect } from '../abort-on-disconnect.js';
import { authorizeRoute } from '../authorize-route.js';
import type { RouterDeps } from '../router-deps.js';
import type { CountTokensRequest } from '../request-context.js';
import { setRoutingHeaders } from './routing-headers.js';
import { attemptsParent } from '../request-spans.js';
import { presetIdsForSuggestions } from './preset-models.js';

const TOKEN_COUNT_HEADER = 'x-router-token-count';

/** Failures after which the estimate is the better answer: nobody could count, which is not the client's fault. */
const ESTIMATE_AFTER = new Set(['no_provider_access', 'all_upstreams_failed']);

export function createCountTokensRoute(deps: RouterDeps) {
  return async (event: H3Event, admitted: CountTokensRequest): Promise<unknown> => {
    // An unknown model gets the same refusal as on /v1/messages: suggestions include the caller's presets.
    const presets = admitted.route ? [] : await presetIdsForSuggestions(deps.store, admitted.caller.accountId, { routes: deps.routes, plan: admitted.plan });
    const route = authorizeRoute(admitted, deps.plans, deps.config.catalog.concreteModels, presets);
    const request = admitted.body as unknown as MessagesRequest;
    const { 'anthropic-version': version, 'anthropic-beta': beta } = event.node.req.headers;
    const call = { route, accountId: admitted.caller.accountId, signal: abortOnDisconnect(event, deps.drain.deadline), trace: attemptsParent(admitted) };
    const client = { version: typeof version === 'string' ? version : undefined, betas: splitHeaderList(beta) };
    try {
      const counted = await deps.engine.countMessageTokens(call, { request, client });
      if (counted) {
        setRoutingHeaders(event.node.res, counted.meta);
        event.node.res.setHeader(TOKEN_COUNT_HEADER, 'anthropic');
        return { input_tokens: counted.value.input_tokens };
      }
    } catch (error) {
      if (!isRouterError(error) || !ESTIMATE_AFTER.has(error.code)) throw error;
    }
    event.node.res.setHeader(TOKEN_COUNT_HEADER, 'estimate');
    return { input_tokens: estimateInputTokens(request) };
  };
}
