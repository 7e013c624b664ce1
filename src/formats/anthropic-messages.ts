/**
 * Anthropic Messages API wire types as clients send them to the router (`POST /v1/messages`: the
 * official SDK, Claude Code) and as the router answers. Typed loosely where clients add fields without
 * notice (new block types, betas): unknown members are carried, never rejected by the types.
 * The provider adapter's own, narrower request types live in providers/anthropic/anthropic-types.ts.
 */

export interface MessagesTextBlock {
  type: 'text';
  text: string;
  cache_control?: unknown;
}

export type MessagesImageSource =
  | { type: 'base64'; media_type: string; data: string }
  | { type: 'url'; url: string };

export interface MessagesImageBlock {
  type: 'image';
  source: MessagesImageSource;
}

export interface MessagesDocumentBlock {
  type: 'document';
  source: { type: string; media_type?: string; data?: string; url?: string };
  title?: string;
}

export interface MessagesToolUseBlock {
  type: 'tool_use';
  id: string;
  name: string;
  input: unknown;
}

export interface MessagesToolResultBlock {
  type: 'tool_result';
  tool_use_id: string;
  content?: string | MessagesBlock[];
  is_error?: boolean;
}

export interface MessagesThinkingBlock {
  type: 'thinking';
  thinking: string;
  signature?: string;
}

/** Any block, including types the router does not translate (redacted_thinking, tool_reference, server tools). */
export interface MessagesOtherBlock {
  type: string;
  [key: string]: unknown;
}

export type MessagesBlock =
  | MessagesTextBlock
  | MessagesImageBlock
  | MessagesDocumentBlock
  | MessagesToolUseBlock
  | MessagesToolResultBlock
  | MessagesThinkingBlock;

export interface MessagesMessage {
  /** `system` is not in Anthropic's API, but Claude Code's first request may carry one. */
  role: 'user' | 'assistant' | 'system';
  content: string | Array<MessagesBlock | MessagesOtherBlock>;
}

export interface MessagesTool {
  type?: string;
  name: string;
  description?: string;
  input_schema?: Record<string, unknown>;
  [key: string]: unknown;
}

export type MessagesToolChoice =
  | { type: 'auto'; disable_parallel_tool_use?: boolean }
  | { type: 'any'; disable_parallel_tool_use?: boolean }
  | { type: 'tool'; name: string; disable_parallel_tool_use?: boolean }
  | { type: 'none' };

export interface MessagesRequest {
  model: string;
  max_tokens: number;
  messages: MessagesMessage[];
  system?: string | MessagesTextBlock[];
  stream?: boolean;
  stop_sequences?: string[];
  temperature?: number;
  top_p?: number;
  top_k?: number;
  tools?: MessagesTool[];
  tool_choice?: MessagesToolChoice;
  metadata?: { user_id?: string };
  thinking?: { type: string; budget_tokens?: number };
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
}

export type MessagesResponseBlock =
  | { type: 'text'; text: string }
  | { type: 'thinking'; thinking: string; signature: string }
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
