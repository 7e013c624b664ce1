import type { ProviderConfig, ProviderFormat } from '../../../src/config/types.js';

/** A provider as providers.yaml gives it, on an address nothing listens on, for routing unit tests. */
export function testProvider(id: string, format: ProviderFormat = 'openai', extra: Partial<ProviderConfig> = {}): ProviderConfig {
  return {
    id,
    name: id,
    format,
    baseUrl: `http://127.0.0.1:1/${id}`,
    nativeResponses: false,
    streamUsage: true,
    maxTokensField: 'max_tokens',
    defaultMaxTokens: 1024,
    timeouts: { connectMs: 1000, firstByteMs: 1000, idleMs: 1000 },
    headers: {},
    prices: {},
    ...extra,
  };
}
