/**
 * Tokens one upstream call used, in one shape for every wire format, exactly as the upstream reported
 * them. `null` means the upstream reported nothing: callers record "unknown", never a guess.
 * Reading a wire format's usage into it is the translators' job (translators/*-token-usage.ts), so core
 * knows no wire format.
 */
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
  /**
   * Calls of server tools the upstream ran and bills per call, by tool name (`web_search`, `web_fetch`,
   * …: Anthropic's `usage.server_tool_use`, a Response's hosted tool call items); absent: none.
   */
  serverToolCalls?: Readonly<Record<string, number>>;
}

/** The optional cache-write counts, only when the upstream reported some (records stay small otherwise). */
export function cacheWriteCounts(total: number | undefined, oneHour: number | undefined): Pick<TokenUsage, 'cacheWrite' | 'cacheWrite1h'> {
  if (!total) return {};
  return oneHour ? { cacheWrite: total, cacheWrite1h: Math.min(oneHour, total) } : { cacheWrite: total };
}

/** The optional server tool counts, only when the upstream reported some. */
export function serverToolCallsOf(calls: Readonly<Record<string, number>> | undefined): Pick<TokenUsage, 'serverToolCalls'> {
  return calls ? { serverToolCalls: calls } : {};
}
