import { serverToolCallsOf, type TokenUsage } from '../../core/token-usage.js';
import type { MessagesUsage } from '../../formats/anthropic-messages.js';
import { messagesServerToolCalls } from '../../formats/server-tools.js';

/**
 * Anthropic usage as the ledger records it: the prompt total adds the cached reads and writes back in;
 * the 1-hour writes and the thinking tokens are kept apart where Anthropic reports them, and so are the
 * server tool calls (`server_tool_use`), which are billed per call.
 */
export function tokenUsageFromMessages(usage: Partial<MessagesUsage> | null | undefined): TokenUsage | null {
  if (!usage) return null;
  const cached = usage.cache_read_input_tokens ?? 0;
  const cacheWrite = usage.cache_creation_input_tokens ?? 0;
  const completion = usage.output_tokens ?? 0;
  const oneHour = Math.min(cacheWrite, usage.cache_creation?.ephemeral_1h_input_tokens ?? 0);
  return {
    prompt: (usage.input_tokens ?? 0) + cached + cacheWrite,
    completion,
    reasoning: Math.min(completion, usage.output_tokens_details?.thinking_tokens ?? 0),
    cached,
    ...(cacheWrite > 0 ? { cacheWrite, ...(oneHour > 0 ? { cacheWrite1h: oneHour } : {}) } : {}),
    ...serverToolCallsOf(messagesServerToolCalls(usage.server_tool_use)),
  };
}
