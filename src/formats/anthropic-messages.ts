/**
 * Anthropic Messages API wire types as clients send them to the router (`POST /v1/messages`: the
 * official SDK, Claude Code) and as the router answers. Typed loosely where clients add fields without
 * notice (new block types, betas): unknown members are carried, never rejected by the types.
 * The provider adapter's own, narrower request types live in providers/anthropic/anthropic-types.ts.
 */

import { Type, type Static } from '@sinclair/typebox';
import { AnyObject, Const, Declared, Kinds, MAX_OUTPUT_TOKENS, Nullable, OrOtherKind, type OtherKind, StringEnum, StringOrArray, When, WithUnchecked } from './wire-schema.js';

// ---- The request: its JSON Schema (what POST /v1/messages accepts) and the types derived from it ----
// Anthropic's required fields, and the shape of every field the translator reads (an image block
// carries a source, a tool_result a tool_use_id, a tool a name, …), so a body that passes always
// translates or is refused with a 400 naming the field. Fields the router does not read (betas,
// cache_control, context_management) are passed on unchecked.

const textBlock = WithUnchecked<{ cache_control?: unknown }>()(When('text', { text: Type.String() }));

const imageSource = Kinds([
  When('base64', { media_type: Type.String(), data: Type.String() }),
  When('url', { url: Type.String() }),
]);
const imageBlock = When('image', { source: imageSource });

const documentBlock = WithUnchecked<{ title?: string }>()(
  When('document', {
    source: WithUnchecked<{ media_type?: string; url?: string }>()(Type.Object({ type: Type.String(), data: Type.Optional(Type.String()) })),
  }),
);

/** Blocks a tool_result may hold that the translator reads; other types pass unchecked. */
const innerBlock = Kinds([textBlock, imageBlock, documentBlock]);

const toolUseBlock = When('tool_use', { id: Type.String(), name: Type.String(), input: Type.Optional(AnyObject()) });
const toolResultBlock = When('tool_result', {
  tool_use_id: Type.String(),
  is_error: Type.Optional(Type.Boolean()),
  content: Type.Optional(StringOrArray(innerBlock)),
});
const thinkingBlock = WithUnchecked<{ signature?: string }>()(When('thinking', { thinking: Type.Optional(Type.String()) }));

/** Blocks the translator reads; other types (redacted_thinking, server-tool results, future ones) pass unchecked. */
const block = Kinds([textBlock, imageBlock, documentBlock, toolUseBlock, toolResultBlock, thinkingBlock]);

export type MessagesTextBlock = Static<typeof textBlock>;
export type MessagesImageSource = Static<typeof imageSource>;
export type MessagesImageBlock = Static<typeof imageBlock>;
export type MessagesDocumentBlock = Static<typeof documentBlock>;
export type MessagesToolUseBlock = Static<typeof toolUseBlock>;
export type MessagesToolResultBlock = Static<typeof toolResultBlock>;
export type MessagesThinkingBlock = Static<typeof thinkingBlock>;
/** Any block, including types the router does not translate (redacted_thinking, tool_reference, server tools). */
export type MessagesOtherBlock = OtherKind;
export type MessagesBlock = Static<typeof block>;

const message = Type.Object({
  /** `system` is not in Anthropic's API, but Claude Code's first request may carry one. */
  role: StringEnum(['user', 'assistant', 'system']),
  content: StringOrArray(OrOtherKind(block)),
});
export type MessagesMessage = Static<typeof message>;

const tool = WithUnchecked<{ [key: string]: unknown }>()(
  Type.Object({
    type: Type.Optional(Type.String()),
    name: Type.Optional(Type.String()),
    description: Type.Optional(Type.String()),
    input_schema: Type.Optional(AnyObject()),
  }),
);
export type MessagesTool = Static<typeof tool>;

export type MessagesToolChoice =
  | { type: 'auto'; disable_parallel_tool_use?: boolean }
  | { type: 'any'; disable_parallel_tool_use?: boolean }
  | { type: 'tool'; name: string; disable_parallel_tool_use?: boolean }
  | { type: 'none' };

/** The schema checks the type and a tool's name; the type says which fields go with which type. */
const toolChoice = Declared<MessagesToolChoice>(
  Type.Unsafe({
    type: 'object',
    required: ['type'],
    properties: { type: StringEnum(['auto', 'any', 'tool', 'none']), disable_parallel_tool_use: Type.Boolean() },
    allOf: [When('tool', { name: Type.String() })],
  }),
);

const messagesRequestFields = Type.Object({
  model: Type.String({ minLength: 1 }),
  max_tokens: Type.Integer({ minimum: 1, maximum: MAX_OUTPUT_TOKENS }),
  messages: Type.Array(message),
  system: Type.Optional(StringOrArray(WithUnchecked<{ cache_control?: unknown }>()(Type.Object({ type: Const('text'), text: Type.String() })))),
  stream: Type.Optional(Type.Boolean()),
  stop_sequences: Type.Optional(Type.Array(Type.String())),
  temperature: Type.Optional(Type.Number({ minimum: 0, maximum: 1 })),
  top_p: Type.Optional(Type.Number({ minimum: 0, maximum: 1 })),
  top_k: Type.Optional(Type.Integer({ minimum: 0 })),
  metadata: Type.Optional(Type.Object({ user_id: Type.Optional(Nullable(Type.String())) })),
  tools: Type.Optional(Type.Array(tool)),
  tool_choice: Type.Optional(toolChoice),
});

/** The required fields in the order a missing one is reported (the body stage names the first). */
export const messagesRequestSchema = { ...messagesRequestFields, required: ['model', 'messages', 'max_tokens'] };

/** count_tokens takes the same body without `max_tokens` (and without `stream`). */
export const countTokensRequestSchema = { ...messagesRequestFields, required: ['model', 'messages'] };

export interface MessagesRequest extends Static<typeof messagesRequestFields> {
  /** Extended thinking (`enabled` with `budget_tokens`, `adaptive`, `disabled`), unchecked: the translator reads it defensively. */
  thinking?: { type?: unknown; budget_tokens?: unknown };
  /** `effort` (low, medium, high, max) tunes adaptive thinking. */
  output_config?: { effort?: unknown; [key: string]: unknown };
  [key: string]: unknown;
}

export type MessagesStopReason = 'end_turn' | 'max_tokens' | 'stop_sequence' | 'tool_use' | 'pause_turn' | 'refusal';

export interface MessagesUsage {
  input_tokens: number;
  output_tokens: number;
  cache_creation_input_tokens?: number | null;
  cache_read_input_tokens?: number | null;
  /** The cache writes by lifetime; their sum is cache_creation_input_tokens. */
  cache_creation?: { ephemeral_5m_input_tokens?: number | null; ephemeral_1h_input_tokens?: number | null } | null;
  /** Thinking tokens, where reported apart (part of output_tokens). */
  output_tokens_details?: { thinking_tokens?: number | null } | null;
  /** Server tool calls the upstream ran (`web_search_requests`, `web_fetch_requests`, …), billed per call. */
  server_tool_use?: Record<string, number | null> | null;
}

export type MessagesResponseBlock =
  | { type: 'text'; text: string }
  | { type: 'thinking'; thinking: string; signature: string }
  | { type: 'redacted_thinking'; data: string }
  | { type: 'tool_use'; id: string; name: string; input: unknown };

export interface MessagesResponse {
  id: string;
  type: 'message';
  role: 'assistant';
  model: string;
  content: MessagesResponseBlock[];
  stop_reason: MessagesStopReason | null;
  stop_sequence: string | null;
  usage: MessagesUsage;
}

/** One event of a Messages stream; its `type` is also the SSE `event:` name. */
export interface MessagesStreamEvent {
  type: string;
  [key: string]: unknown;
}
