import type { Clock } from '../../core/clock.js';
import type { ProviderAdapter } from '../adapter.js';
import { buildChatRequest } from './build-chat-request.js';
import { buildResponsesRequest } from './build-responses-request.js';
import { createChatStreamTranslator } from './create-chat-stream-translator.js';
import { openaiEmbeddings, openaiRerank } from './embeddings.js';
import { parseChatResponse } from './parse-chat-response.js';
import { parseError } from './parse-error.js';
import { responsesStreamFailure } from './responses-stream-failure.js';
import { rewriteResponsesModel } from './rewrite-responses-model.js';

/**
 * The OpenAI-compatible adapter (format `openai` in providers.yaml) for any host: OpenAI, Groq,
 * Together, DeepSeek, Mistral, vLLM, Ollama… Hosts differ only in provider config (baseUrl,
 * maxTokensField, streamUsage, nativeResponses); see docs/providers/openai.md. Hosts that serve the
 * Responses API themselves (`nativeResponses: true`) get it passed through (`responses`). The clock
 * only dates a Retry-After given as an HTTP date.
 */
export function createOpenAIAdapter(clock: Clock): ProviderAdapter {
  return {
    buildChatRequest,
    parseChatResponse,
    createChatStreamTranslator,
    parseError: (status, bodyText, headers) => parseError(status, bodyText, headers, clock.now()),
    responses: { buildRequest: buildResponsesRequest, rewriteModel: rewriteResponsesModel, streamFailure: responsesStreamFailure },
    embeddings: openaiEmbeddings,
    rerank: openaiRerank,
  };
}
