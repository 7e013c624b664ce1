import type { ChatUsage } from '../../formats/openai-chat.js';
import type { AnthropicUsage } from './anthropic-types.js';

/**
 * Anthropic usage → chat usage (wire-formats §6.5). quirk(anthropic): input_tokens excludes cached
 * tokens, so the chat prompt total adds cache writes and cache reads back in.
 */
export function mapUsage(usage: AnthropicUsage): ChatUsage {
  const cacheWrite = usage.cache_creation_input_tokens ?? 0;
  const cacheRead = usage.cache_read_input_tokens ?? 0;
  const promptTokens = (usage.input_tokens ?? 0) + cacheWrite + cacheRead;
  const completionTokens = usage.output_tokens ?? 0;
  return {
    prompt_tokens: promptTokens,
    completion_tokens: completionTokens,
    total_tokens: promptTokens + completionTokens,
    prompt_tokens_details: { cached_tokens: cacheRead, cache_write_tokens: cacheWrite },
  };
}
