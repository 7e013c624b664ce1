/**
 * Chat usage and finish reasons in Anthropic's terms (wire-formats §6.4, §6.5). quirk(anthropic):
 * `input_tokens` excludes the cached prompt, which Anthropic reports as cache reads and writes.
 */
import type { ChatFinishReason, ChatUsage } from '../../formats/openai-chat.js';
import type { MessagesStopReason, MessagesUsage } from '../../formats/anthropic-messages.js';

export function chatUsageToMessages(usage: ChatUsage | null | undefined): MessagesUsage {
  if (!usage) return { input_tokens: 0, output_tokens: 0 };
  const cacheRead = usage.prompt_tokens_details?.cached_tokens ?? 0;
  const cacheWrite = usage.prompt_tokens_details?.cache_write_tokens ?? 0;
  return {
    input_tokens: Math.max(0, usage.prompt_tokens - cacheRead - cacheWrite),
    output_tokens: usage.completion_tokens,
    cache_creation_input_tokens: cacheWrite,
    cache_read_input_tokens: cacheRead,
  };
}

/** A chat finish reason as a stop reason; a chat upstream does not say which stop sequence matched, so that is a natural end too. */
export function chatFinishToStopReason(finish: ChatFinishReason | null | undefined): MessagesStopReason {
  switch (finish) {
    case 'length':
      return 'max_tokens';
    case 'tool_calls':
    case 'function_call':
      return 'tool_use';
    case 'content_filter':
      return 'refusal';
    default:
      return 'end_turn';
  }
}
