import type { ProviderConfig } from '../../../../src/config/types.js';
import type { AdapterContext } from '../../../../src/providers/adapter.js';

/** An adapter context for an OpenAI-compatible host; override provider fields per test. */
export function openaiContext(provider: Partial<ProviderConfig> = {}, rest: Partial<AdapterContext> = {}): AdapterContext {
  return {
    provider: {
      id: 'openai',
      name: 'OpenAI',
      format: 'openai',
      baseUrl: 'https://api.openai.com/v1',
      nativeResponses: true,
      streamUsage: true,
      maxTokensField: 'max_completion_tokens',
      defaultMaxTokens: 4096,
      timeouts: { connectMs: 1000, firstByteMs: 1000, idleMs: 1000 },
      headers: {},
      prices: {},
      ...provider,
    },
    upstreamModel: 'gpt-4o-mini',
    credential: 'sk-test-credential',
    stream: false,
    ...rest,
  };
}

/** A host like Groq, vLLM or Ollama: legacy output cap field, no developer role. */
export const compatibleHost: Partial<ProviderConfig> = {
  id: 'groq',
  name: 'Groq',
  baseUrl: 'https://api.groq.com/openai/v1/',
  nativeResponses: false,
  maxTokensField: 'max_tokens',
};
