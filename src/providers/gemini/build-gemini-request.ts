import type { ChatRequest } from '../../formats/openai-chat.js';
import type { AdapterContext } from '../adapter.js';
import type { UpstreamRequest } from '../../upstream/upstream-request.js';
import type { GeminiRequest } from './gemini-types.js';
import { translateGenerationConfig } from './translate-generation-config.js';
import { translateMessages } from './translate-messages.js';
import { translateTools } from './translate-tools.js';

/**
 * Chat request → `generateContent` (or `streamGenerateContent?alt=sse`; without `alt=sse` Gemini
 * streams one long JSON array instead of SSE). Fields without a Gemini meaning (user, metadata,
 * logit_bias, parallel_tool_calls, stream_options, …) are not sent; see docs/providers/gemini.md.
 */
export function buildGeminiRequest(request: ChatRequest, ctx: AdapterContext): UpstreamRequest {
  const body: GeminiRequest = { ...translateMessages(request.messages), ...translateTools(request) };
  const generationConfig = translateGenerationConfig(request, ctx.model);
  if (generationConfig) body.generationConfig = generationConfig;

  const method = ctx.stream ? 'streamGenerateContent?alt=sse' : 'generateContent';
  return {
    url: `${ctx.provider.baseUrl}/models/${encodeURIComponent(ctx.upstreamModel)}:${method}`,
    headers: { ...ctx.provider.headers, 'content-type': 'application/json', 'x-goog-api-key': ctx.credential },
    body: JSON.stringify(body),
  };
}
