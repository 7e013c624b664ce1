import type { ChatFinishReason } from '../../formats/openai-chat.js';

/** Gemini finish reasons that mean the output was withheld or cut by a policy filter. */
const FILTERED = new Set(['SAFETY', 'RECITATION', 'BLOCKLIST', 'PROHIBITED_CONTENT', 'SPII', 'LANGUAGE']);

/**
 * Gemini `finishReason` → chat `finish_reason`. quirk(gemini): function calls finish with STOP, so a
 * candidate that produced tool calls reports `tool_calls` unless a cap or a filter ended it.
 */
export function mapFinishReason(finishReason: string | undefined, hasToolCalls: boolean): ChatFinishReason {
  if (finishReason === 'MAX_TOKENS') return 'length';
  if (finishReason !== undefined && (FILTERED.has(finishReason) || finishReason.startsWith('IMAGE_'))) return 'content_filter';
  return hasToolCalls ? 'tool_calls' : 'stop';
}
