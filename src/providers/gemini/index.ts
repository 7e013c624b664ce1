import { systemClock, type Clock } from '../../core/clock.js';
import type { ProviderAdapter } from '../adapter.js';
import { buildGeminiRequest } from './build-gemini-request.js';
import { GeminiStreamTranslator } from './gemini-stream-translator.js';
import { parseGeminiError } from './parse-gemini-error.js';
import { parseGeminiResponse } from './parse-gemini-response.js';
import { createThoughtSignatureMemory, type ThoughtSignatureMemory } from './thought-signature-memory.js';

export { createThoughtSignatureMemory, type ThoughtSignatureMemory } from './thought-signature-memory.js';
export { SKIP_THOUGHT_SIGNATURE } from './translate-messages.js';

export interface GeminiAdapterOptions {
  /** Where thought signatures wait for the next turn; defaults to a bounded in-process LRU. */
  signatures?: ThoughtSignatureMemory;
  /** Source of the `created` timestamps; defaults to the system clock. */
  clock?: Clock;
}

/** The adapter for the Gemini Developer API (`format: gemini` in providers.yaml). */
export function createGeminiAdapter(options: GeminiAdapterOptions = {}): ProviderAdapter {
  const signatures = options.signatures ?? createThoughtSignatureMemory();
  const clock = options.clock ?? systemClock;
  return {
    buildChatRequest: (request, ctx) => buildGeminiRequest(request, ctx, signatures),
    parseChatResponse: (body, ctx) => parseGeminiResponse(body, ctx, signatures, clock.now()),
    createChatStreamTranslator: (ctx) => new GeminiStreamTranslator(ctx, signatures, clock.now()),
    parseError: parseGeminiError,
  };
}
