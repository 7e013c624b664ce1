import type { AdapterContext } from '../adapter.js';
import type { UpstreamRequest } from '../../upstream/upstream-request.js';
import type { ChatMessage, ChatRequest } from '../../formats/openai-chat.js';
import type { ProviderConfig } from '../../config/types.js';
import { isRecord } from './is-record.js';
import { openaiRequest } from './openai-request.js';
import { REDIRECTING_FIELDS } from '../../formats/redirecting-fields.js';
import { OPENROUTER_FIELDS } from '../../formats/top-level-fields.js';
import { removeRouterTools } from './remove-router-tools.js';
import { removeForeignFields } from './remove-foreign-fields.js';
import { legalToolCallHistory } from './tool-call-history.js';

/**
 * Fields of the client's request the router sets itself (or leaves out) in the upstream body, and those
 * that could redirect or re-credential it, and OpenRouter's fields that are the router's (`provider`, `preset`,
 * `route`, `models`, …: formats/top-level-fields.ts) (one set: one look-up per field on the copy below); and
 * `__proto__`, which copied onto the plain body would set the body's prototype rather than a field.
 */
const SET_BY_ROUTER: ReadonlySet<string> = new Set(['model', 'max_tokens', 'max_completion_tokens', 'stream', 'stream_options', '__proto__', ...REDIRECTING_FIELDS, ...OPENROUTER_FIELDS]);

/**
 * The client's chat request as the OpenAI-compatible host should see it. Everything the client sent is
 * passed through (these hosts speak the same format) except what is the router's business (fields that
 * could send it elsewhere or with other credentials are dropped: redirecting-fields.ts): the model
 * becomes the route's upstream model, the output cap moves to the field the host understands, stream
 * usage is requested where supported, and the router's own tools are removed.
 */
export function buildChatRequest(request: ChatRequest, ctx: AdapterContext): UpstreamRequest {
  // Copied field by field, leaving out what the router sets: measured faster than a spread followed by
  // deletes (which turn the body into a slow dictionary) and than object rest (1.1 vs 1.5 vs 1.8 µs).
  const body: Record<string, unknown> = { model: ctx.upstreamModel };
  for (const key of Object.keys(request)) if (!SET_BY_ROUTER.has(key)) body[key] = (request as unknown as Record<string, unknown>)[key];
  // `max_completion_tokens` wins when a client sends both; it is the current name of the same cap.
  const cap = request.max_completion_tokens ?? request.max_tokens;
  if (cap !== null && cap !== undefined) body[ctx.provider.maxTokensField] = cap;
  if (ctx.stream) setStreamFields(body, request.stream_options, ctx.provider);
  removeRouterTools(body);
  removeForeignFields(body, ctx.provider, ctx.model);
  body.messages = legalToolCallHistory(body.messages);
  if (!speaksDeveloperRole(ctx.provider)) body.messages = (body.messages as ChatMessage[]).map(developerAsSystem);
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
