/**
 * Anthropic Messages API wire types (POST {baseUrl}/messages), limited to what the adapter sends and
 * reads. Responses are typed loosely on purpose: new block, delta and event types appear without
 * notice and must be ignored, not rejected.
 */
import type { CacheControl } from '../../formats/openai-chat.js';

export interface AnthropicTextBlock {
  type: 'text';
  text: string;
  cache_control?: CacheControl;
}

export interface AnthropicImageBlock {
  type: 'image';
  source: { type: 'base64'; media_type: string; data: string } | { type: 'url'; url: string };
  cache_control?: CacheControl;
}

export interface AnthropicDocumentBlock {
  type: 'document';
  source: { type: 'base64'; media_type: string; data: string };
  cache_control?: CacheControl;
}

export interface AnthropicToolUseBlock {
  type: 'tool_use';
  id: string;
  name: string;
  input: Record<string, unknown>;
  cache_control?: CacheControl;
}

export interface AnthropicToolResultBlock {
  type: 'tool_result';
  tool_use_id: string;
  content?: string;
  cache_control?: CacheControl;
}

/** Signed thinking, replayed exactly as it came (the signature covers the text). */
export interface AnthropicThinkingBlock {
  type: 'thinking';
  thinking: string;
  signature: string;
}

/** Thinking the safety system encrypted: opaque `data`, replayed as it came. */
export interface AnthropicRedactedThinkingBlock {
  type: 'redacted_thinking';
  data: string;
}

export type AnthropicUserBlock = AnthropicTextBlock | AnthropicImageBlock | AnthropicDocumentBlock | AnthropicToolResultBlock;
export type AnthropicAssistantBlock = AnthropicThinkingBlock | AnthropicRedactedThinkingBlock | AnthropicTextBlock | AnthropicToolUseBlock;

export type AnthropicMessage =
  | { role: 'user'; content: AnthropicUserBlock[] }
  | { role: 'assistant'; content: AnthropicAssistantBlock[] };

export interface AnthropicTool {
  name: string;
  description?: string;
  input_schema: Record<string, unknown>;
  cache_control?: CacheControl;
}

export type AnthropicToolChoice =
  | { type: 'auto'; disable_parallel_tool_use?: boolean }
  | { type: 'any'; disable_parallel_tool_use?: boolean }
  | { type: 'tool'; name: string; disable_parallel_tool_use?: boolean }
  | { type: 'none' };

export interface AnthropicRequest {
  model: string;
  max_tokens: number;
  messages: AnthropicMessage[];
  system?: string | AnthropicTextBlock[];
  temperature?: number;
  top_p?: number;
  stop_sequences?: string[];
  tools?: AnthropicTool[];
  tool_choice?: AnthropicToolChoice;
  metadata?: { user_id: string };
  output_config?: { format: { type: 'json_schema'; schema: Record<string, unknown> } };
  thinking?: { type: 'enabled'; budget_tokens: number } | { type: 'disabled' };
  stream: boolean;
}

export interface AnthropicUsage {
  input_tokens?: number;
  output_tokens?: number;
  cache_creation_input_tokens?: number | null;
  cache_read_input_tokens?: number | null;
  /** The cache writes by lifetime (present since the 1-hour cache); their sum is cache_creation_input_tokens. */
  cache_creation?: { ephemeral_5m_input_tokens?: number | null; ephemeral_1h_input_tokens?: number | null } | null;
  /** Thinking tokens, where reported apart (they are part of output_tokens). */
  output_tokens_details?: { thinking_tokens?: number | null } | null;
}

/** A response content block; only the fields of the types the adapter reads are named. */
export interface AnthropicResponseBlock {
  type: string;
  text?: string;
  thinking?: string;
  signature?: string;
  data?: string;
  id?: string;
  name?: string;
  input?: unknown;
}

export interface AnthropicResponse {
  id: string;
  type: 'message';
  role: 'assistant';
  model: string;
  content: AnthropicResponseBlock[];
  stop_reason: string | null;
  stop_sequence?: string | null;
  usage: AnthropicUsage;
}

/** The `error` member of an error body (HTTP) or of an `event: error` (inside a 200 stream). */
export interface AnthropicErrorObject {
  type?: string;
  message?: string;
  details?: { error_code?: string } | null;
}

/**
 * The `data` of one stream event (message_start, content_block_*, message_delta, error, …), as parsed
 * JSON. Every member is optional because the payload is untrusted and new event types keep appearing.
 */
export interface AnthropicStreamEventData {
  type?: string;
  index?: number;
  message?: { id?: string; model?: string; usage?: AnthropicUsage };
  content_block?: { type?: string; id?: string; name?: string; text?: string; thinking?: string; signature?: string; data?: string };
  delta?: { type?: string; text?: string; thinking?: string; signature?: string; partial_json?: string; stop_reason?: string | null };
  usage?: Record<string, unknown>;
  error?: unknown;
}
