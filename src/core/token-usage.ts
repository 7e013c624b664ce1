/**
 * Tokens one upstream call used, in one shape for both wire formats, exactly as the upstream reported
 * them. `null` means the upstream reported nothing: callers record "unknown", never a guess.
 */
import type { ChatUsage } from '../formats/openai-chat.js';
import type { ResponseUsage } from '../formats/openai-responses.js';

export interface TokenUsage {
  prompt: number;
  completion: number;
  /** Part of `completion` spent on reasoning, where the upstream says so (else 0). */
  reasoning: number;
  /** Part of `prompt` served from the provider's prompt cache, where the upstream says so (else 0). */
  cached: number;
  /** Part of `prompt` written to the provider's prompt cache (Anthropic), every lifetime; absent: 0. */
  cacheWrite?: number;
  /** Part of `cacheWrite` written for one hour (Anthropic's `ttl: "1h"`, priced apart); absent: 0. */
  cacheWrite1h?: number;
}

/** The optional cache-write counts, only when the upstream reported some (records stay small otherwise). */
function cacheWrites(total: number | undefined, oneHour: number | undefined): Pick<TokenUsage, 'cacheWrite' | 'cacheWrite1h'> {
  if (!total) return {};
  return oneHour ? { cacheWrite: total, cacheWrite1h: Math.min(oneHour, total) } : { cacheWrite: total };
}

export function tokenUsageFromChat(usage: ChatUsage | null | undefined): TokenUsage | null {
  if (!usage) return null;
  return {
    prompt: usage.prompt_tokens,
    completion: usage.completion_tokens,
    reasoning: usage.completion_tokens_details?.reasoning_tokens ?? 0,
    cached: usage.prompt_tokens_details?.cached_tokens ?? 0,
    ...cacheWrites(usage.prompt_tokens_details?.cache_write_tokens, usage.prompt_tokens_details?.cache_write_1h_tokens),
  };
}

export function tokenUsageFromResponses(usage: ResponseUsage | null | undefined): TokenUsage | null {
  if (!usage) return null;
  return {
    prompt: usage.input_tokens,
    completion: usage.output_tokens,
    reasoning: usage.output_tokens_details?.reasoning_tokens ?? 0,
    cached: usage.input_tokens_details?.cached_tokens ?? 0,
    ...cacheWrites(usage.input_tokens_details?.cache_write_tokens, usage.input_tokens_details?.cache_write_1h_tokens),
  };
}
