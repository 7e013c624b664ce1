import { RouterError } from '../../core/errors.js';
import type { ChatRequest } from '../../formats/openai-chat.js';
import type { AdapterContext } from '../adapter.js';
import type { UpstreamRequest } from '../../upstream/upstream-request.js';
import { thinkingPlan } from '../requested-reasoning.js';
import type { AnthropicMessage, AnthropicRequest } from './anthropic-types.js';
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
  // quirk(anthropic): max_tokens is required and has no server default.
  const maxTokens = request.max_completion_tokens ?? request.max_tokens ?? ctx.provider.defaultMaxTokens;
  const tools = translateTools(request);
  // quirk(anthropic): thinking refuses a tool_choice that forces a tool; the forced call is what was asked.
  const forced = tools.tool_choice?.type === 'any' || tools.tool_choice?.type === 'tool';
  const thinking = forced || continuesUnsignedToolLoop(messages) ? {} : thinkingFields(request, ctx, maxTokens);
  const body: AnthropicRequest = {
    model: ctx.upstreamModel,
    messages,
    ...(system === undefined ? {} : { system }),
    ...samplingFields(request),
    ...tools,
    ...metadataField(request),
    ...outputConfigField(request),
    ...thinking,
    max_tokens: thinking.max_tokens ?? maxTokens,
    stream: ctx.stream,
  };
  // quirk(anthropic): thinking refuses a changed temperature (and top_p below 0.95).
  if (thinking.thinking?.type === 'enabled') {
    delete body.temperature;
    if (body.top_p !== undefined && body.top_p < 0.95) delete body.top_p;
  }
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

/** quirk(anthropic): the smallest thinking budget the API accepts. */
const MIN_THINKING_BUDGET = 1024;

/**
 * The effort (or budget) asked → `thinking`, for a model whose catalog entry says it reasons. max_tokens
 * counts thinking too, so it is raised to the budget plus the output the client asked for, within the
 * model's output limit; where that limit leaves less, the budget gives way (the answer keeps at least
 * what was asked, or half the limit). A budget under Anthropic's minimum is raised to it.
 */
function thinkingFields(request: ChatRequest, ctx: AdapterContext, output: number): Partial<Pick<AnthropicRequest, 'thinking' | 'max_tokens'>> {
  const plan = thinkingPlan(request, ctx.model);
  if (plan === undefined) return {};
  if (plan.kind === 'off' || (plan.kind === 'budget' && plan.budget === 0)) return { thinking: { type: 'disabled' } };
  const asked = plan.kind === 'budget' ? plan.budget : MIN_THINKING_BUDGET;
  const limit = ctx.model?.maxOutputTokens ?? Number.MAX_SAFE_INTEGER;
  const room = Math.max(MIN_THINKING_BUDGET, limit - Math.min(output, Math.floor(limit / 2)));
  const budget = Math.max(MIN_THINKING_BUDGET, Math.min(asked, room));
  return { thinking: { type: 'enabled', budget_tokens: budget }, max_tokens: Math.min(limit, budget + output) };
}

/**
 * quirk(anthropic): with thinking on, the assistant turn whose tool calls the last message answers must
 * start with its signed thinking, or Anthropic answers 400. A tool loop begun by another provider (or by
 * a client that dropped the thinking) has none, and no signature can be made up, so that one request goes
 * without thinking: the conversation goes on, and the next user turn thinks again.
 */
function continuesUnsignedToolLoop(messages: readonly AnthropicMessage[]): boolean {
  const last = messages.at(-1);
  if (last?.role !== 'user' || !last.content.some((block) => block.type === 'tool_result')) return false;
  const first = messages.at(-2)?.content[0];
  return first?.type !== 'thinking' && first?.type !== 'redacted_thinking';
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
