import { createBoundedCache } from '../../core/bounded-cache.js';

/**
 * Where the adapter keeps Gemini thought signatures between turns, keyed by the tool-call id it minted.
 * Chat clients drop unknown fields, so the signature cannot travel with the history; the next turn
 * finds it here by `tool_call_id` and sends it back. Injected so a shared store can replace it.
 */
export interface ThoughtSignatureMemory {
  get(toolCallId: string): string | undefined;
  set(toolCallId: string, signature: string): void;
}

export interface ThoughtSignatureMemoryOptions {
  maxEntries?: number;
  ttlMs?: number;
}

/**
 * Bounded in-process memory. A miss (other instance, restart, expiry) is not fatal: the request
 * builder then falls back to the documented validator-skip value.
 */
export function createThoughtSignatureMemory(options: ThoughtSignatureMemoryOptions = {}): ThoughtSignatureMemory {
  const cache = createBoundedCache<string, string>({
    entries: options.maxEntries ?? 10_000,
    ttlMs: options.ttlMs ?? 60 * 60 * 1000,
  });
  return {
    get: (toolCallId) => cache.get(toolCallId),
    set: (toolCallId, signature) => {
      cache.set(toolCallId, signature);
    },
  };
}
