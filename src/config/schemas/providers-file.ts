/** schemas/providers.schema.json is generated from this definition (npm run schemas); edit here, never there. */
import { Type, type Static } from '@sinclair/typebox';
import { ConfigObject, FileSchema, OneOf, StringMap } from './schema-builders.js';

export const ProvidersFileSchema = FileSchema(
  'providers.yaml',
  'Upstream providers, the circuit breaker, and the switch for operator-managed access.',
  {
    providers: Type.Array(ConfigObject({
      id: Type.String({
        description: 'Named by route targets.',
        pattern: '^[a-z0-9][a-z0-9_-]*$',
        'x-pattern-meaning': 'lowercase letters, digits, - and _',
      }),
      name: Type.String({ minLength: 1 }),
      format: OneOf(['openai', 'anthropic', 'gemini'], { description: 'Wire format the host speaks.' }),
      baseUrl: Type.String({
        description: 'The only place upstream addresses come from.',
        pattern: '^https?://\\S+$',
        'x-pattern-meaning': 'an http:// or https:// URL',
      }),
      managedKey: Type.Optional(Type.String({ description: 'The operator\'s own credential, as an ${ENV} reference; empty means none.' })),
      nativeResponses: Type.Boolean({ description: 'OpenAI-compatible hosts only: the host serves /responses natively.', default: false }),
      streamUsage: Type.Boolean({ description: 'The host accepts stream_options.include_usage.', default: false }),
      promptCacheKey: Type.Boolean({
        description: 'OpenAI-compatible hosts only: the host accepts prompt_cache_key (OpenAI\'s cache routing hint), so the client\'s is passed on; other hosts never see it.',
        default: false,
      }),
      embeddings: Type.Boolean({
        description: 'The host serves embeddings (OpenAI-compatible hosts: POST /embeddings; Gemini: batchEmbedContents). A provider without it is never a candidate for /v1/embeddings; Anthropic has no embeddings API.',
        default: false,
      }),
      rerank: Type.Boolean({
        description: 'OpenAI-compatible hosts only: the host serves POST /rerank in the Cohere/Jina shape (Jina, vLLM, Cohere\'s compatibility API). A provider without it is never a candidate for /v1/rerank.',
        default: false,
      }),
      maxTokensField: OneOf(['max_tokens', 'max_completion_tokens'], { description: 'Which field carries the output cap for OpenAI-compatible hosts.', default: 'max_tokens' }),
      defaultMaxTokens: Type.Integer({ description: 'Output cap sent where the format requires one (Anthropic).', minimum: 1, default: 4096 }),
      timeouts: ConfigObject({
        connectMs: Type.Integer({ minimum: 1, default: 5000 }),
        firstByteMs: Type.Integer({ minimum: 1, default: 60000 }),
        idleMs: Type.Integer({ minimum: 1, default: 120000 }),
      }, { default: {} }),
      headers: StringMap(Type.String(), {
        description: 'Extra static headers sent upstream, e.g. anthropic-version.',
        propertyNames: { pattern: '^[A-Za-z0-9!#$%&\'*+.^_`|~-]+$' },
        default: {},
      }),
      prices: StringMap(ConfigObject({
        input: Type.Number({ description: 'Prompt tokens not served from the cache.', minimum: 0 }),
        cachedInput: Type.Optional(Type.Number({ description: 'Prompt tokens served from the provider\'s cache (default: input).', minimum: 0 })),
        cacheWrite: Type.Optional(Type.Number({
          description: 'Prompt tokens written to the provider\'s cache for 5 minutes (Anthropic: 1.25 x input; default: input).',
          minimum: 0,
        })),
        cacheWrite1h: Type.Optional(Type.Number({
          description: 'Prompt tokens written to the cache for one hour (Anthropic: 2 x input; default: cacheWrite).',
          minimum: 0,
        })),
        output: Type.Number({ description: 'Completion tokens, reasoning included.', minimum: 0 }),
        reasoning: Type.Optional(Type.Number({
          description: 'Reasoning tokens, where a provider prices them apart from the answer (default: output).',
          minimum: 0,
        })),
      }), {
        description: 'Token prices per upstream model id, in USD per million tokens: what the usage ledger\'s cost and managed-access spend metering use.',
        default: {},
        propertyNames: { minLength: 1 },
      }),
      unsupportedParameters: Type.Optional(Type.Array(OneOf(['max_tokens', 'temperature', 'top_p', 'top_k', 'stop', 'tools', 'tool_choice', 'response_format', 'parallel_tool_calls', 'seed', 'presence_penalty', 'frequency_penalty', 'logit_bias', 'logprobs', 'top_logprobs', 'n', 'reasoning_effort'], { type: 'string' }), {
        description: 'Request parameters this host refuses or ignores although its wire format carries them (e.g. an open model served without tool calling or JSON mode). A request with provider.require_parameters: true that sets one of them never goes to this provider; /v1/models leaves them out of supported_parameters.',
        uniqueItems: true,
      })),
      policy: Type.Optional(ConfigObject({
        trainsOnPrompts: Type.Boolean({ description: 'The provider may train on prompts and completions.' }),
        retentionDays: Type.Integer({
          description: 'Days prompts are kept, abuse monitoring included; 0 is zero data retention.',
          minimum: 0,
        }),
        region: Type.String({
          description: 'Where requests are processed, e.g. us, eu.',
          pattern: '^[a-z]{2}(-[a-z0-9]+)*$',
          'x-pattern-meaning': 'a lowercase region code such as us, eu or us-east',
        }),
      }, {
        description: 'What the provider does with prompts, as its terms state it. A request stating provider.data_collection: deny or provider.zdr: true only goes to providers whose policy meets it; a provider without a policy meets none.',
      })),
    }), { minItems: 1 }),
    circuitBreaker: ConfigObject({
      failureThreshold: Type.Integer({ description: 'Consecutive failures that open the circuit.', minimum: 1, default: 5 }),
      cooldownMs: Type.Integer({ minimum: 0, default: 30000 }),
    }, { default: {} }),
    managedAccess: ConfigObject({
      enabled: Type.Boolean({
        description: 'Operator keys are used only when this is true AND every readiness check passes at start.',
        default: false,
      }),
    }, { default: {} }),
  });

export type RawProvidersFile = Static<typeof ProvidersFileSchema>;
