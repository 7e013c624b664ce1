import { cacheWriteCounts, serverToolCallsOf, type TokenUsage } from '../../core/token-usage.js';
import { responsesServerToolCalls } from '../../formats/server-tools.js';
import type { ResponseUsage } from '../../formats/openai-responses.js';

/**
 * Responses API usage (a native Responses upstream's, or a synthesized Response's) as the ledger records it;
 * the hosted tool calls billed per call are counted from the Response's `output` items.
 */
export function tokenUsageFromResponses(usage: ResponseUsage | null | undefined, output?: unknown): TokenUsage | null {
  if (!usage) return null;
  return {
    prompt: usage.input_tokens,
    completion: usage.output_tokens,
    reasoning: usage.output_tokens_details?.reasoning_tokens ?? 0,
    cached: usage.input_tokens_details?.cached_tokens ?? 0,
    ...cacheWriteCounts(usage.input_tokens_details?.cache_write_tokens, usage.input_tokens_details?.cache_write_1h_tokens),
    ...serverToolCallsOf(responsesServerToolCalls(output)),
  };
}
