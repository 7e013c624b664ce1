import type { ChatUsage } from '../../formats/openai-chat.js';
import type { GeminiUsageMetadata } from './gemini-types.js';

/**
 * Gemini `usageMetadata` → chat usage. Thinking tokens are reported apart from candidate tokens but are
 * billed as output, so they are added to `completion_tokens` (as OpenAI counts reasoning tokens).
 */
export function mapUsage(usage: GeminiUsageMetadata): ChatUsage {
  const promptTokens = (usage.promptTokenCount ?? 0) + (usage.toolUsePromptTokenCount ?? 0);
  const reasoningTokens = usage.thoughtsTokenCount ?? 0;
  const completionTokens = (usage.candidatesTokenCount ?? 0) + reasoningTokens;
  return {
    prompt_tokens: promptTokens,
    completion_tokens: completionTokens,
    total_tokens: usage.totalTokenCount ?? promptTokens + completionTokens,
    prompt_tokens_details: { cached_tokens: usage.cachedContentTokenCount ?? 0 },
    completion_tokens_details: { reasoning_tokens: reasoningTokens },
  };
}
