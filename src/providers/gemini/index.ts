import { systemClock, type Clock } from '../../core/clock.js';
import type { ProviderAdapter } from '../adapter.js';
import { buildGeminiRequest } from './build-gemini-request.js';
import { geminiEmbeddings } from './embeddings.js';
import { GeminiStreamTranslator } from './gemini-stream-translator.js';
import { parseGeminiError } from './parse-gemini-error.js';
import { parseGeminiResponse } from './parse-gemini-response.js';
import { geminiToolCallSignatures } from './tool-call-signatures.js';

export { SKIP_THOUGHT_SIGNATURE } from './translate-messages.js';

export interface GeminiAdapterOptions {
  /** Source of the `created` timestamps; defaults to the system clock. */
  clock?: Clock;
}

/**
 * The adapter for the Gemini Developer API (`format: gemini` in providers.yaml). Thought signatures
 * travel with the conversation in `reasoning_details` and `extra_content` (read-parts.ts), and routing
 * keeps them under the call's id for clients that drop both (`toolCallSignatures`); the adapter keeps no state.
 */
export function createGeminiAdapter(options: GeminiAdapterOptions = {}): ProviderAdapter {
  const clock = options.clock ?? systemClock;
  return {
    buildChatRequest: (request, ctx) => buildGeminiRequest(request, ctx),
    parseChatResponse: (body, ctx) => parseGeminiResponse(body, ctx, clock.now()),
    createChatStreamTranslator: (ctx) => new GeminiStreamTranslator(ctx, clock.now()),
    parseError: (status, bodyText, headers) => parseGeminiError(status, bodyText, headers, clock.now()),
    toolCallSignatures: geminiToolCallSignatures,
    embeddings: geminiEmbeddings,
  };
}
