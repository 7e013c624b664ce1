import type { TokenUsage } from '../../core/token-usage.js';
import type { MessagesUsage } from '../../formats/anthropic-messages.js';

/** Anthropic usage as the ledger records it: the prompt total adds the cached reads and writes back in. */
export function tokenUsageFromMessages(usage: Partial<MessagesUsage> | null | undefined): TokenUsage | null {
  if (!usage) return null;
  const cached = usage.cache_read_input_tokens ?? 0;
  return {
    prompt: (usage.input_tokens ?? 0) + cached + (usage.cache_creation_input_tokens ?? 0),
    completion: usage.output_tokens ?? 0,
    reasoning: 0,
    cached,
  };
}
