import { RouterError } from '../../core/errors.js';
import type { ChatRequest } from '../../formats/openai-chat.js';
import type { AdapterContext, UpstreamRequest } from '../adapter.js';
import type { AnthropicRequest } from './anthropic-types.js';
import { translateMessages } from './translate-messages.js';
import { translateTools } from './translate-tools.js';

const DEFAULT_ANTHROPIC_VERSION = '2023-06-01';

/**
 * Chat request → POST {baseUrl}/messages. Fields Anthropic cannot honour either fail with a 400 that
 * names the field (n > 1, logprobs: silently dropping them would change the answer's shape) or are
 * dropped (seed, penalties, logit_bias and OpenAI-only fields, which only tune sampling or storage).
 */
export function buildAnthropicRequest(request: ChatRequest, ctx: AdapterContext): UpstreamRequest {
  rejectUnsupported(request);
  const { system, messages } = translateMessages(request.messages);
  const body: AnthropicRequest = {
    model: ctx.upstreamModel,
    // quirk(anthropic): max_tokens is required and has no server default.
    max_tokens: request.max_completion_tokens ?? request.max_tokens ?? ctx.provider.defaultMaxTokens,
    messages,
    ...(system === undefined ? {} : { system }),
    ...samplingFields(request),
    ...translateTools(request),
    ...metadataField(request),
    ...outputConfigField(request),
    stream: ctx.stream,
  };
  return {
    url: `${ctx.provider.baseUrl.replace(/\/+$/, '')}/messages`,
    headers: requestHeaders(ctx),
    body: JSON.stringify(body),
  };
}

function rejectUnsupported(request: ChatRequest): void {
  if (request.n != null && request.n > 1) {
    throw new RouterError('unsupported_parameter', 'This route returns one choice per request; n must be 1.', { param: 'n' });
  }
  if (request.logprobs === true) {
    throw new RouterError('unsupported_parameter', 'This route cannot return log probabilities.', { param: 'logprobs' });
  }
  if (request.top_logprobs != null && request.top_logprobs > 0) {
    throw new RouterError('unsupported_parameter', 'This route cannot return log probabilities.', { param: 'top_logprobs' });
  }
}

function samplingFields(request: ChatRequest): Pick<AnthropicRequest, 'temperature' | 'top_p' | 'stop_sequences'> {
  const fields: Pick<AnthropicRequest, 'temperature' | 'top_p' | 'stop_sequences'> = {};
  // quirk(anthropic): temperature ranges 0..1, chat allows up to 2.
  if (request.temperature != null) fields.temperature = Math.min(request.temperature, 1);
  if (request.top_p != null) fields.top_p = request.top_p;
  const stop = typeof request.stop === 'string' ? [request.stop] : (request.stop ?? []);
  if (stop.length > 0) fields.stop_sequences = stop;
  return fields;
}

function metadataField(request: ChatRequest): Pick<AnthropicRequest, 'metadata'> {
  const userId = request.safety_identifier ?? request.user;
  return typeof userId === 'string' && userId !== '' ? { metadata: { user_id: userId } } : {};
}

function outputConfigField(request: ChatRequest): Pick<AnthropicRequest, 'output_config'> {
  const format = request.response_format;
  if (format?.type !== 'json_schema' || format.json_schema.schema === undefined) return {};
  return { output_config: { format: { type: 'json_schema', schema: format.json_schema.schema } } };
}

function requestHeaders(ctx: AdapterContext): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(ctx.provider.headers)) headers[name.toLowerCase()] = value;
  headers['anthropic-version'] ??= DEFAULT_ANTHROPIC_VERSION;
  headers['x-api-key'] = ctx.credential;
  headers['content-type'] = 'application/json';
  return headers;
}
