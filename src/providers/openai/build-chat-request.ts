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
  // Built by leaving fields out rather than deleting them: an object that loses properties becomes a slow
  // dictionary that then costs more to serialize (the deletes were 1.5% of the router's CPU per request).
  const { max_tokens: maxTokens, max_completion_tokens: maxCompletionTokens, stream: _stream, stream_options: streamOptions, ...passed } = request;
  const body: Record<string, unknown> = { ...passed, model: ctx.upstreamModel };
  // `max_completion_tokens` wins when a client sends both; it is the current name of the same cap.
  const cap = maxCompletionTokens ?? maxTokens;
  if (cap !== null && cap !== undefined) body[ctx.provider.maxTokensField] = cap;
  if (ctx.stream) setStreamFields(body, streamOptions, ctx.provider);
  removeRouterTools(body);
  if (!speaksDeveloperRole(ctx.provider)) body.messages = request.messages.map(developerAsSystem);
  return openaiRequest(ctx, '/chat/completions', body);
}

/**
 * When streaming, usage is always requested from hosts that accept `stream_options`, so usage is never
 * lost; the engine hides the usage chunk from clients that did not ask for it. Hosts that reject the
 * field never see it, and neither do non-stream requests (OpenAI rejects it there; the caller leaves
 * `stream` and `stream_options` out of those).
 */
function setStreamFields(body: Record<string, unknown>, clientOptions: unknown, provider: ProviderConfig): void {
  body.stream = true;
  if (provider.streamUsage) body.stream_options = { ...(isRecord(clientOptions) ? clientOptions : {}), include_usage: true };
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
