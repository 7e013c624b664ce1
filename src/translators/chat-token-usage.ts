import { cacheWriteCounts, type TokenUsage } from '../core/token-usage.js';
import type { ChatUsage } from '../formats/openai-chat.js';

/** Chat Completions usage (the internal shape every adapter reports in) as the ledger records it. */
export function tokenUsageFromChat(usage: ChatUsage | null | undefined): TokenUsage | null {
  if (!usage) return null;
  return {
    prompt: usage.prompt_tokens,
    completion: usage.completion_tokens,
    reasoning: usage.completion_tokens_details?.reasoning_tokens ?? 0,
    cached: usage.prompt_tokens_details?.cached_tokens ?? 0,
    ...cacheWriteCounts(usage.prompt_tokens_details?.cache_write_tokens, usage.prompt_tokens_details?.cache_write_1h_tokens),
  };
}
