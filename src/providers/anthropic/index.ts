/**
 * The Anthropic Messages API adapter (format `anthropic` in providers.yaml). Pure: the only outside
 * input is the clock, because Anthropic messages carry no creation time while chat objects need one.
 * Anthropic serves the Messages API itself, so Messages calls pass through natively (`messages`).
 */
import type { Clock } from '../../core/clock.js';
import type { ProviderAdapter } from '../adapter.js';
import { anthropicFailure } from './anthropic-failure.js';
import { AnthropicStreamTranslator } from './anthropic-stream-translator.js';
import { buildAnthropicRequest } from './build-anthropic-request.js';
import { buildNativeMessagesRequest } from './build-native-messages-request.js';
import { parseAnthropicError } from './parse-anthropic-error.js';
import { parseAnthropicResponse } from './parse-anthropic-response.js';

export function createAnthropicAdapter(clock: Clock): ProviderAdapter {
  const nowSeconds = (): number => Math.floor(clock.now() / 1000);
  return {
    buildChatRequest: buildAnthropicRequest,
    parseChatResponse: (body, ctx) => parseAnthropicResponse(body, nowSeconds(), ctx.upstreamModel),
    createChatStreamTranslator: (ctx) => new AnthropicStreamTranslator(nowSeconds(), ctx.upstreamModel),
    parseError: (status, bodyText, headers) => parseAnthropicError(status, bodyText, headers, clock.now()),
    cacheBreakpoints: true,
    messages: {
      upstreamName: 'Anthropic',
      buildRequest: (request, ctx, client) => buildNativeMessagesRequest(request, ctx, client),
      buildCountTokensRequest: (request, ctx, client) => buildNativeMessagesRequest(request, ctx, client, '/messages/count_tokens'),
      streamFailure: (error) => anthropicFailure(undefined, error),
    },
  };
}
