/**
 * `POST /v1/messages/count_tokens`: only a native Messages upstream (an adapter with the `messages`
 * capability) can count its models' tokens, so the count goes to those targets of the route (with
 * failover between them); the route's other targets are not asked.
 */
import type { RouteProfileConfig } from '../config/types.js';
import type { MessagesRequest } from '../formats/anthropic-messages.js';
import type { NativeMessagesHeaders } from '../providers/adapter.js';
import { adapterContext, adapterOf, parseJsonBody, sendOrFail, type AttemptDeps } from './chat-attempts.js';
import { AttemptFailed, type Candidate } from './failover.js';

export interface CountTokensCall {
  request: MessagesRequest;
  client: NativeMessagesHeaders;
  signal: AbortSignal;
}

/**
 * The route narrowed to the targets whose provider serves an endpoint (`serves`: counts tokens, embeds,
 * reranks), or undefined when it has none.
 */
export function servingTargetsOf(route: RouteProfileConfig, serves: (providerId: string) => boolean): RouteProfileConfig | undefined {
  const tiers = route.tiers.map((tier) => tier.filter((target) => serves(target.provider))).filter((tier) => tier.length > 0);
  return tiers.length === 0 ? undefined : { ...route, tiers };
}

export async function countTokensAttempt(deps: AttemptDeps, candidate: Candidate, call: CountTokensCall): Promise<{ input_tokens: number }> {
  const adapter = adapterOf(deps, candidate);
  const native = adapter.messages;
  // servingTargetsOf left only candidates that have it; a route built otherwise is the router's bug.
  if (!native) throw new Error(`count_tokens reached provider ${candidate.provider.id}, which has no native Messages API`);
  const request = native.buildCountTokensRequest(call.request, adapterContext(candidate, false), call.client);
  const reply = await sendOrFail(deps, adapter, candidate, request, call.signal);
  const body = parseJsonBody(await reply.text()) as { input_tokens?: unknown };
  if (typeof body?.input_tokens !== 'number') {
    throw new AttemptFailed({ status: 502, type: 'server_error', code: 'invalid_upstream_response', message: `The ${native.upstreamName} upstream answered a count without input_tokens.` });
  }
  return { input_tokens: body.input_tokens };
}
