/** Shared fixtures for the Gemini adapter tests: an adapter context and an inspectable signature memory. */
import type { ProviderConfig } from '../../../../src/config/types.js';
import type { AdapterContext } from '../../../../src/providers/adapter.js';
import type { ThoughtSignatureMemory } from '../../../../src/providers/gemini/index.js';

export function geminiProvider(baseUrl = 'https://generativelanguage.googleapis.com/v1beta'): ProviderConfig {
  return {
    id: 'gemini',
    name: 'Google Gemini',
    format: 'gemini',
    baseUrl,
    nativeResponses: false,
    streamUsage: false,
    maxTokensField: 'max_tokens',
    defaultMaxTokens: 8192,
    timeouts: { connectMs: 1000, firstByteMs: 5000, idleMs: 5000 },
    headers: {},
    prices: {},
  };
}

export function geminiContext(overrides: Partial<AdapterContext> = {}): AdapterContext {
  // A reasoning model, as catalog.yaml describes one: reasoning fields reach it.
  const model = { provider: 'gemini', model: 'gemini-2.5-flash', maxOutputTokens: 65536, reasoning: { low: 1024, medium: 8192, high: 24576 } };
  return { provider: geminiProvider(), upstreamModel: 'gemini-2.5-flash', credential: 'test-gemini-key', stream: false, model, ...overrides };
}

/** A ThoughtSignatureMemory backed by a visible Map. */
export function mapMemory(entries: Array<[string, string]> = []): ThoughtSignatureMemory & { entries: Map<string, string> } {
  const map = new Map(entries);
  return { entries: map, get: (id) => map.get(id), set: (id, signature) => void map.set(id, signature) };
}

export const fixedClock = { now: () => 1_760_000_000_000 };
