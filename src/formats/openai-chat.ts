/**
 * OpenAI Chat Completions wire types. They double as the router's common internal shape: every
 * provider adapter translates to and from these, and /v1/responses is served through them for
 * chat-only upstreams. Chat is the lingua franca every upstream and SDK already speaks, so an
 * OpenAI-compatible provider needs no translation at all.
 */

import { Type, type Static } from '@sinclair/typebox';
import {
  AnyObject,
  Declared,
  Kinds,
  MAX_OUTPUT_TOKENS,
  Nullable,
  OrOtherKind,
  type OtherKind,
  StringEnum,
  StringOrArray,
  When,
  WithUnchecked,
} from './wire-schema.js';

/**
 * Anthropic's prompt-cache breakpoint, as OpenRouter lets clients put it on content parts, messages and
 * tools of a chat request; passed to Anthropic where it stands and dropped for every other provider.
 */
export interface CacheControl {
  type: 'ephemeral';
  ttl?: '5m' | '1h';
}

// ---- The request: its JSON Schema (what POST /v1/chat/completions accepts) and the types derived from it ----
// The schema checks the spec's required fields and the shape of every field a translator reads, so a
// body that passes always translates or is refused with a 400 naming the field, never an exception.
// Fields the router does not read are passed on unchecked; each provider adapter decides what it honours.

const textPart = WithUnchecked<{ cache_control?: CacheControl }>()(When('text', { text: Type.String() }));
const refusalPart = When('refusal', { refusal: Type.String() });
const imagePart = When('image_url', {
  image_url: Type.Object({ url: Type.String(), detail: Type.Optional(Declared<'auto' | 'low' | 'high'>(Type.String())) }),
});
const audioPart = When('input_audio', { input_audio: Type.Object({ data: Type.String(), format: Type.String() }) });
const filePart = When('file', {
  file: Type.Object({ file_data: Type.Optional(Type.String()), file_id: Type.Optional(Type.String()), filename: Type.Optional(Type.String()) }),
});
const chatContentPart = Kinds([textPart, refusalPart, imagePart, audioPart, filePart]);

export type ChatTextPart = Static<typeof textPart>;
export type ChatImagePart = Static<typeof imagePart>;
export type ChatAudioPart = Static<typeof audioPart>;
export type ChatFilePart = Static<typeof filePart>;
export type ChatRefusalPart = Static<typeof refusalPart>;
export type ChatContentPart = Static<typeof chatContentPart>;

/**
 * Google's OpenAI-compatible endpoint carries a Gemini thought signature on the call it signs, in
 * `extra_content.google.thought_signature`; the router writes it there too and reads it back (unchecked:
 * a value of any other shape is ignored).
 */
export interface ToolCallExtraContent {
  google?: { thought_signature?: string };
}

const chatToolCall = WithUnchecked<{ extra_content?: ToolCallExtraContent }>()(
  Type.Object({
    id: Type.String(),
    type: Type.Optional(Declared<'function'>(Type.String())),
    function: Type.Object({ name: Type.String(), arguments: Type.String() }),
  }),
);
export type ChatToolCall = Static<typeof chatToolCall>;

/**
 * One reasoning block of an assistant turn, in OpenRouter's `reasoning_details` convention: open
 * thinking (`reasoning.text`, with the provider's `signature`), hidden thinking (`reasoning.encrypted`,
 * opaque `data`: Anthropic's redacted_thinking, Gemini's thought signature with the `id` of the tool
 * call it belongs to) or a summary. `format` names the provider's encoding (`anthropic-claude-v1`,
 * `google-gemini-v1`); `index` orders the blocks, and stream deltas of one block share it.
 */
const reasoningDetail = WithUnchecked<{ id?: string | null }>()(
  Type.Object({
    type: Declared<'reasoning.text' | 'reasoning.encrypted' | 'reasoning.summary'>(Type.String()),
    text: Type.Optional(Type.String()),
    summary: Type.Optional(Type.String()),
    signature: Type.Optional(Type.String()),
    data: Type.Optional(Type.String()),
    format: Type.Optional(Type.String()),
    index: Type.Optional(Type.Integer()),
  }),
);
export type ReasoningDetail = Static<typeof reasoningDetail>;

/** The `format` of a detail holding an Anthropic thinking (or redacted_thinking) block, signature and all. */
export const ANTHROPIC_REASONING_FORMAT = 'anthropic-claude-v1';

const chatRoles = ['system', 'developer', 'user', 'assistant', 'tool', 'function'] as const;
export type ChatRole = (typeof chatRoles)[number];

const chatMessage = WithUnchecked<{
  /** Non-standard but widespread (DeepSeek, vLLM, OpenRouter): reasoning text of the turn. */
  reasoning_content?: string;
}>()(
  Type.Object({
    role: StringEnum(chatRoles, { typed: true }),
    content: Type.Optional(StringOrArray(chatContentPart, { nullable: true })),
    name: Type.Optional(Type.String()),
    refusal: Type.Optional(Nullable(Type.String())),
    tool_call_id: Type.Optional(Type.String()),
    tool_calls: Type.Optional(Type.Array(chatToolCall)),
    /** The turn's reasoning blocks with their signatures (OpenRouter's field), sent back as they came. */
    reasoning_details: Type.Optional(Type.Array(reasoningDetail)),
    cache_control: Type.Optional(AnyObject<CacheControl>()),
  }),
);
export type ChatMessage = Static<typeof chatMessage>;

const functionTool = WithUnchecked<{ cache_control?: CacheControl }>()(
  When('function', {
    function: Type.Object({
      name: Type.String(),
      description: Type.Optional(Type.String()),
      parameters: Type.Optional(AnyObject()),
      strict: Type.Optional(Nullable(Type.Boolean())),
    }),
  }),
);
export type ChatFunctionTool = Static<typeof functionTool>;
/** Tools the router itself understands (`router:fusion`) or passes through untouched. */
export type ChatOtherTool = OtherKind;
export type ChatTool = ChatFunctionTool | ChatOtherTool;

export type ChatToolChoice = 'none' | 'auto' | 'required' | { type: 'function'; function: { name: string } } | OtherKind;

/** The schema checks the kinds a translator reads; the type names the rest the API defines. */
const chatToolChoice = Declared<ChatToolChoice | null>(
  Type.Unsafe({
    type: ['string', 'object', 'null'],
    if: { type: 'object' },
    then: Kinds([
      When('function', { function: Type.Object({ name: Type.String() }) }),
      When('allowed_tools', { allowed_tools: Type.Object({ mode: Type.Optional(Type.String()), tools: Type.Array(AnyObject()) }) }),
    ]),
  }),
);

const jsonSchemaFormat = When('json_schema', {
  json_schema: Type.Object({
    name: Type.String(),
    description: Type.Optional(Type.String()),
    schema: Type.Optional(AnyObject()),
    strict: Type.Optional(Nullable(Type.Boolean())),
  }),
});
export type ChatResponseFormat = { type: 'text' } | { type: 'json_object' } | Static<typeof jsonSchemaFormat>;

/** OpenRouter's unified reasoning switch; `reasoning_effort` is the same as `{ effort }`. */
const chatReasoningOptions = Type.Object({
  effort: Type.Optional(Nullable(Type.String())),
  max_tokens: Type.Optional(Nullable(Type.Integer({ minimum: 0, maximum: MAX_OUTPUT_TOKENS }))),
  exclude: Type.Optional(Nullable(Type.Boolean())),
  enabled: Type.Optional(Nullable(Type.Boolean())),
});
export type ChatReasoningOptions = Static<typeof chatReasoningOptions>;

const outputCap = Nullable(Type.Integer({ minimum: 1, maximum: MAX_OUTPUT_TOKENS }));
/** Integers JavaScript holds exactly. */
const safeInteger = Nullable(Type.Integer({ minimum: Number.MIN_SAFE_INTEGER, maximum: Number.MAX_SAFE_INTEGER }));
const penalty = Nullable(Type.Number({ minimum: -2, maximum: 2 }));

export const chatRequestSchema = Type.Object({
  model: Type.String({ minLength: 1 }),
  messages: Type.Array(chatMessage, { minItems: 1 }),
  stream: Type.Optional(Nullable(Type.Boolean())),
  stream_options: Type.Optional(Nullable(Type.Object({ include_usage: Type.Optional(Type.Boolean()) }))),
  max_tokens: Type.Optional(outputCap),
  max_completion_tokens: Type.Optional(outputCap),
  temperature: Type.Optional(Nullable(Type.Number({ minimum: 0, maximum: 2 }))),
  top_p: Type.Optional(Nullable(Type.Number({ minimum: 0, maximum: 1 }))),
  n: Type.Optional(Nullable(Type.Integer({ minimum: 1, maximum: 128 }))),
  stop: Type.Optional(StringOrArray(Type.String(), { nullable: true, maxItems: 4 })),
  seed: Type.Optional(safeInteger),
  presence_penalty: Type.Optional(penalty),
  frequency_penalty: Type.Optional(penalty),
  logit_bias: Type.Optional(Nullable(AnyObject<Record<string, number>>())),
  logprobs: Type.Optional(Nullable(Type.Boolean())),
  top_logprobs: Type.Optional(Nullable(Type.Integer({ minimum: 0, maximum: 20 }))),
  tools: Type.Optional(Type.Array(OrOtherKind(Kinds([functionTool])), { maxItems: 512 })),
  tool_choice: Type.Optional(chatToolChoice),
  parallel_tool_calls: Type.Optional(Nullable(Type.Boolean())),
  response_format: Type.Optional(Declared<ChatResponseFormat | null>(Nullable(Kinds([jsonSchemaFormat])))),
  reasoning_effort: Type.Optional(Nullable(Type.String())),
  reasoning: Type.Optional(Nullable(chatReasoningOptions)),
  user: Type.Optional(Type.String()),
  safety_identifier: Type.Optional(Type.String()),
  prompt_cache_key: Type.Optional(Type.String()),
  metadata: Type.Optional(Nullable(AnyObject<Record<string, string>>())),
});

export interface ChatRequest extends Static<typeof chatRequestSchema> {
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
  extra_content?: ToolCallExtraContent;
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
