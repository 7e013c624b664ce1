import type { ProviderConfig } from '../../../../src/config/types.js';
import type { AdapterContext } from '../../../../src/providers/adapter.js';

/** The Anthropic provider as config/providers.yaml ships it, with overridable fields. */
export function anthropicContext(options: { stream?: boolean; provider?: Partial<ProviderConfig> } = {}): AdapterContext {
  const provider: ProviderConfig = {
    id: 'anthropic',
    name: 'Anthropic',
    format: 'anthropic',
    baseUrl: 'https://api.anthropic.com/v1',
    nativeResponses: false,
    streamUsage: true,
    maxTokensField: 'max_tokens',
    defaultMaxTokens: 8192,
    timeouts: { connectMs: 5000, firstByteMs: 30000, idleMs: 60000 },
    headers: { 'anthropic-version': '2023-06-01' },
    prices: {},
    ...options.provider,
  };
  return { provider, upstreamModel: 'claude-sonnet-4-5', credential: 'sk-ant-test-credential', stream: options.stream ?? false };
}
