/**
 * `POST /v1/messages/count_tokens`: only Anthropic can count Claude's tokens, so the count goes to the
 * Anthropic targets of the route (with failover between them); the route's other targets are not asked.
 */
import type { RouteProfileConfig } from '../config/types.js';
import type { MessagesRequest } from '../formats/anthropic-messages.js';
import { buildNativeMessagesRequest, type NativeMessagesHeaders } from '../providers/anthropic/build-native-messages-request.js';
import { adapterContext, parseJsonBody, sendOrFail, type AttemptDeps } from './chat-attempts.js';
import { AttemptFailed, type Candidate } from './failover.js';

export interface CountTokensCall {
  request: MessagesRequest;
  client: NativeMessagesHeaders;
  signal: AbortSignal;
}

/** The route narrowed to its Anthropic targets, or undefined when it has none. */
export function anthropicTargetsOf(route: RouteProfileConfig, formatOf: (providerId: string) => string | undefined): RouteProfileConfig | undefined {
  const tiers = route.tiers.map((tier) => tier.filter((target) => formatOf(target.provider) === 'anthropic')).filter((tier) => tier.length > 0);
  return tiers.length === 0 ? undefined : { ...route, tiers };
}

export async function countTokensAttempt(deps: AttemptDeps, candidate: Candidate, call: CountTokensCall): Promise<{ input_tokens: number }> {
  const request = buildNativeMessagesRequest(call.request, adapterContext(candidate, false), call.client, '/messages/count_tokens');
  const reply = await sendOrFail(deps, deps.adapters.anthropic, candidate, request, call.signal);
  const body = parseJsonBody(await reply.text()) as { input_tokens?: unknown };
  if (typeof body?.input_tokens !== 'number') {
    throw new AttemptFailed({ status: 502, type: 'server_error', code: 'invalid_upstream_response', message: 'The Anthropic upstream answered a count without input_tokens.' });
  }
  return { input_tokens: body.input_tokens };
}
