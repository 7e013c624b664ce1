import type { ProviderAdapter } from '../adapter.js';
import { buildChatRequest } from './build-chat-request.js';
import { createChatStreamTranslator } from './create-chat-stream-translator.js';
import { parseChatResponse } from './parse-chat-response.js';
import { parseError } from './parse-error.js';

/**
 * The OpenAI-compatible adapter (format `openai` in providers.yaml) for any host: OpenAI, Groq,
 * Together, DeepSeek, Mistral, vLLM, Ollama… Hosts differ only in provider config (baseUrl,
 * maxTokensField, streamUsage, nativeResponses); see docs/providers/openai.md. Native Responses
 * passthrough lives beside it in build-responses-request.ts and rewrite-responses-model.ts.
 */
export const openaiAdapter: ProviderAdapter = {
  buildChatRequest,
  parseChatResponse,
  createChatStreamTranslator,
  parseError,
};
