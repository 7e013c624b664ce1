/**
 * OpenAI Chat Completions wire types. They double as the router's common internal shape: every
 * provider adapter translates to and from these, and /v1/responses is served through them for
 * chat-only upstreams. Chat is the lingua franca every upstream and SDK already speaks, so an
 * OpenAI-compatible provider needs no translation at all.
 */

export type ChatRole = 'system' | 'developer' | 'user' | 'assistant' | 'tool' | 'function';

/**
 * Anthropic's prompt-cache breakpoint, as OpenRouter lets clients put it on content parts, messages and
 * tools of a chat request; passed to Anthropic where it stands and dropped for every other provider.
 */
export interface CacheControl {
  type: 'ephemeral';
  ttl?: '5m' | '1h';
}

export interface ChatTextPart {
  type: 'text';
  text: string;
  cache_control?: CacheControl;
}
export interface ChatImagePart {
  type: 'image_url';
  image_url: { url: string; detail?: 'auto' | 'low' | 'high' };
}
export interface ChatAudioPart {
  type: 'input_audio';
  input_audio: { data: string; format: string };
}
export interface ChatFilePart {
  type: 'file';
  file: { file_data?: string; file_id?: string; filename?: string };
}
export interface ChatRefusalPart {
  type: 'refusal';
  refusal: string;
}
export type ChatContentPart = ChatTextPart | ChatImagePart | ChatAudioPart | ChatFilePart | ChatRefusalPart;

export interface ChatToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

export interface ChatMessage {
  role: ChatRole;
  content?: string | ChatContentPart[] | null;
  name?: string;
  tool_calls?: ChatToolCall[];
  tool_call_id?: string;
  refusal?: string | null;
  /** Non-standard but widespread (DeepSeek, vLLM, OpenRouter): reasoning text of the turn. */
  reasoning_content?: string;
  /** The turn's reasoning blocks with their signatures (OpenRouter's field), sent back as they came. */
  reasoning_details?: ReasoningDetail[];
  cache_control?: CacheControl;
}

/**
 * One reasoning block of an assistant turn, in OpenRouter's `reasoning_details` convention: open
 * thinking (`reasoning.text`, with the provider's `signature`), hidden thinking (`reasoning.encrypted`,
 * opaque `data`: Anthropic's redacted_thinking, Gemini's thought signature with the `id` of the tool
 * call it belongs to) or a summary. `format` names the provider's encoding (`anthropic-claude-v1`,
 * `google-gemini-v1`); `index` orders the blocks, and stream deltas of one block share it.
 */
export interface ReasoningDetail {
  type: 'reasoning.text' | 'reasoning.encrypted' | 'reasoning.summary';
  text?: string;
  summary?: string;
  signature?: string;
  data?: string;
  id?: string | null;
  format?: string;
  index?: number;
}

/** OpenRouter's unified reasoning switch; `reasoning_effort` is the same as `{ effort }`. */
export interface ChatReasoningOptions {
  effort?: string | null;
  max_tokens?: number | null;
  exclude?: boolean | null;
  enabled?: boolean | null;
}

export interface ChatFunctionTool {
  type: 'function';
  function: { name: string; description?: string; parameters?: Record<string, unknown>; strict?: boolean };
  cache_control?: CacheControl;
}
/** Tools the router itself understands (`router:fusion`) or passes through untouched. */
export interface ChatOtherTool {
  type: string;
  [key: string]: unknown;
}
export type ChatTool = ChatFunctionTool | ChatOtherTool;

export type ChatToolChoice =
  | 'none'
  | 'auto'
  | 'required'
  | { type: 'function'; function: { name: string } }
  | { type: string; [key: string]: unknown };

export type ChatResponseFormat =
  | { type: 'text' }
  | { type: 'json_object' }
  | { type: 'json_schema'; json_schema: { name: string; description?: string; schema?: Record<string, unknown>; strict?: boolean } };

export interface ChatRequest {
  model: string;
  messages: ChatMessage[];
  stream?: boolean;
  stream_options?: { include_usage?: boolean } | null;
  max_tokens?: number | null;
  max_completion_tokens?: number | null;
  temperature?: number | null;
  top_p?: number | null;
  n?: number | null;
  stop?: string | string[] | null;
  seed?: number | null;
  presence_penalty?: number | null;
  frequency_penalty?: number | null;
  logit_bias?: Record<string, number> | null;
  logprobs?: boolean | null;
  top_logprobs?: number | null;
  tools?: ChatTool[];
  tool_choice?: ChatToolChoice | null;
  parallel_tool_calls?: boolean | null;
  response_format?: ChatResponseFormat | null;
  reasoning_effort?: string | null;
  reasoning?: ChatReasoningOptions | null;
  user?: string;
  safety_identifier?: string;
  prompt_cache_key?: string;
  metadata?: Record<string, string>;
  /** Anything else the client sent: passed to OpenAI-compatible upstreams, dropped elsewhere. */
  [key: string]: unknown;
}

export type ChatFinishReason = 'stop' | 'length' | 'tool_calls' | 'content_filter' | 'function_call';

export interface ChatUsage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  /**
   * `cache_write_tokens`: prompt tokens written to the provider's cache (OpenRouter's name);
   * `cache_write_1h_tokens`: the part of them written for one hour (Anthropic's `ttl: "1h"`), when any.
   */
  prompt_tokens_details?: { cached_tokens?: number; cache_write_tokens?: number; cache_write_1h_tokens?: number; audio_tokens?: number };
  completion_tokens_details?: { reasoning_tokens?: number; audio_tokens?: number };
}

export interface ChatCompletion {
  id: string;
  object: 'chat.completion';
  created: number;
  model: string;
  choices: Array<{
    index: number;
    message: {
      role: 'assistant';
      content: string | null;
      refusal: string | null;
      tool_calls?: ChatToolCall[];
      reasoning_content?: string;
      reasoning_details?: ReasoningDetail[];
    };
    finish_reason: ChatFinishReason | null;
    logprobs: unknown | null;
  }>;
  usage?: ChatUsage;
  system_fingerprint?: string | null;
}

export interface ChatToolCallDelta {
  index: number;
  id?: string;
  type?: 'function';
  function?: { name?: string; arguments?: string };
}

export interface ChatChunkDelta {
  role?: 'assistant';
  content?: string | null;
  refusal?: string | null;
  tool_calls?: ChatToolCallDelta[];
  reasoning_content?: string;
  reasoning_details?: ReasoningDetail[];
}

export interface ChatCompletionChunk {
  id: string;
  object: 'chat.completion.chunk';
  created: number;
  model: string;
  choices: Array<{ index: number; delta: ChatChunkDelta; finish_reason: ChatFinishReason | null; logprobs?: unknown | null }>;
  usage?: ChatUsage | null;
  system_fingerprint?: string | null;
}
