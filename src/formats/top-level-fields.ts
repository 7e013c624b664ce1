/**
 * The top-level request fields each native pass-through may carry (docs/providers/anthropic.md and
 * openai.md list them). A native Messages or Responses upstream receives the client's body nearly as it
 * came, so what it may hold is listed rather than guessed: a field an upstream bills for (a server tool,
 * a container, a priority tier) must be known to the router before it can be priced or refused, and a
 * field the router has never heard of may be one. The body stage refuses any other field with a 400
 * naming it, as both upstreams do with fields they do not know.
 */

/** `POST /v1/messages` (Anthropic's Messages API). */
export const MESSAGES_FIELDS: ReadonlySet<string> = new Set([
  'model',
  'messages',
  'max_tokens',
  'system',
  'stream',
  'stop_sequences',
  'temperature',
  'top_p',
  'top_k',
  'metadata',
  'tools',
  'tool_choice',
  'thinking',
  'context_management',
  'output_config',
  'output_format',
  // Billable beyond tokens: gated on managed access (server-tools.ts).
  'service_tier',
  'inference_geo',
  'mcp_servers',
  'container',
]);

/** `POST /v1/messages/count_tokens`: the fields Anthropic counts (no output cap, no stream, no tier). */
export const COUNT_TOKENS_FIELDS: ReadonlySet<string> = new Set([
  'model',
  'messages',
  'system',
  'tools',
  'tool_choice',
  'thinking',
  'context_management',
  'output_config',
  'output_format',
  'mcp_servers',
]);

/** `POST /v1/responses` (OpenAI's Responses API); the stateful ones are refused by their own rule. */
export const RESPONSES_FIELDS: ReadonlySet<string> = new Set([
  'model',
  'input',
  'instructions',
  'stream',
  'stream_options',
  'max_output_tokens',
  'max_tool_calls',
  'temperature',
  'top_p',
  'top_logprobs',
  'tools',
  'tool_choice',
  'parallel_tool_calls',
  'text',
  'reasoning',
  'user',
  'safety_identifier',
  'prompt_cache_key',
  'prompt_cache_retention',
  'metadata',
  'include',
  'truncation',
  'store',
  'context_management',
  'previous_response_id',
  'conversation',
  'prompt',
  'background',
  'service_tier',
]);

/**
 * Fields of OpenRouter's request vocabulary that are the router's business, never an upstream's. `provider`
 * is read by the provider-preferences stage; the others the router does not implement and drops on every
 * route (OpenRouter clients send `usage` and `transforms` by default): no upstream ever sees them.
 */
export const OPENROUTER_FIELDS: ReadonlySet<string> = new Set(['provider', 'models', 'route', 'preset', 'transforms', 'plugins', 'usage']);
