import type { ChatUsage } from '../../formats/openai-chat.js';
import type { AnthropicUsage } from './anthropic-types.js';

/**
 * Anthropic usage → chat usage (wire-formats §6.5). quirk(anthropic): input_tokens excludes cached
 * tokens, so the chat prompt total adds cache writes and cache reads back in. Writes for one hour
 * (`cache_creation.ephemeral_1h_input_tokens`) cost more than 5-minute ones, so they are carried apart;
 * thinking tokens are part of output_tokens, and become reasoning_tokens where Anthropic counts them.
 */
export function mapUsage(usage: AnthropicUsage): ChatUsage {
  const cacheWrite = usage.cache_creation_input_tokens ?? 0;
  const cacheRead = usage.cache_read_input_tokens ?? 0;
  const promptTokens = (usage.input_tokens ?? 0) + cacheWrite + cacheRead;
  const completionTokens = usage.output_tokens ?? 0;
  const oneHour = Math.min(cacheWrite, usage.cache_creation?.ephemeral_1h_input_tokens ?? 0);
  const thinking = Math.min(completionTokens, usage.output_tokens_details?.thinking_tokens ?? 0);
  return {
    prompt_tokens: promptTokens,
    completion_tokens: completionTokens,
    total_tokens: promptTokens + completionTokens,
    prompt_tokens_details: { cached_tokens: cacheRead, cache_write_tokens: cacheWrite, ...(oneHour > 0 ? { cache_write_1h_tokens: oneHour } : {}) },
    ...(thinking > 0 ? { completion_tokens_details: { reasoning_tokens: thinking } } : {}),
  };
}
