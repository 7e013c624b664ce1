/** Shared fixtures for the Gemini adapter tests: an adapter context and a fixed clock. */
import type { ProviderConfig } from '../../../../src/config/types.js';
import type { AdapterContext } from '../../../../src/providers/adapter.js';

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

export const fixedClock = { now: () => 1_760_000_000_000 };
