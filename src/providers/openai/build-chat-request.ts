import type { AdapterContext, UpstreamRequest } from '../adapter.js';
import type { ChatMessage, ChatRequest } from '../../formats/openai-chat.js';
import type { ProviderConfig } from '../../config/types.js';
import { isRecord } from './is-record.js';
import { openaiRequest } from './openai-request.js';
import { removeRouterTools } from './remove-router-tools.js';

/**
 * The client's chat request as the OpenAI-compatible host should see it. Everything the client sent is
 * passed through (these hosts speak the same format) except what is the router's business: the model
 * becomes the route's upstream model, the output cap moves to the field the host understands, stream
 * usage is requested where supported, and the router's own tools are removed.
 */
export function buildChatRequest(request: ChatRequest, ctx: AdapterContext): UpstreamRequest {
  const body: Record<string, unknown> = { ...request, model: ctx.upstreamModel };
  moveOutputCap(body, request, ctx.provider.maxTokensField);
  setStreamFields(body, request, ctx);
  removeRouterTools(body);
  if (!speaksDeveloperRole(ctx.provider)) body.messages = request.messages.map(developerAsSystem);
  return openaiRequest(ctx, '/chat/completions', body);
}

/** `max_completion_tokens` wins when a client sends both; it is the current name of the same cap. */
function moveOutputCap(body: Record<string, unknown>, request: ChatRequest, field: ProviderConfig['maxTokensField']): void {
  const cap = request.max_completion_tokens ?? request.max_tokens;
  delete body.max_tokens;
  delete body.max_completion_tokens;
  if (cap !== null && cap !== undefined) body[field] = cap;
}

/**
 * When streaming, usage is always requested from hosts that accept `stream_options`, so usage is never
 * lost; the engine hides the usage chunk from clients that did not ask for it. Hosts that reject the
 * field never see it, and neither do non-stream requests (OpenAI rejects it there).
 */
function setStreamFields(body: Record<string, unknown>, request: ChatRequest, ctx: AdapterContext): void {
  if (!ctx.stream) {
    delete body.stream;
    delete body.stream_options;
    return;
  }
  body.stream = true;
  if (ctx.provider.streamUsage) {
    const clientOptions = isRecord(request.stream_options) ? request.stream_options : {};
    body.stream_options = { ...clientOptions, include_usage: true };
  } else {
    delete body.stream_options;
  }
}

/**
 * `developer` arrived together with `max_completion_tokens` in OpenAI's o1-era API, and a host configured
 * with `maxTokensField: max_completion_tokens` declares that it follows that API. Every other
 * compatible host gets `system` instead. quirk(groq, vllm, ollama…): many reject `developer` outright.
 */
function speaksDeveloperRole(provider: ProviderConfig): boolean {
  return provider.maxTokensField === 'max_completion_tokens';
}

function developerAsSystem(message: ChatMessage): ChatMessage {
  return message.role === 'developer' ? { ...message, role: 'system' } : message;
}
