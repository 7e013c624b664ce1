/**
 * OpenAI Responses API wire types (`POST /v1/responses`): the request, the response object, its output
 * items and the stream events the router emits. Only what the router reads or writes is typed; the
 * official schema is far larger (hosted tools, MCP, computer use …). These are the shapes that OpenAI's
 * Codex CLI (`wire_api = "responses"`) and the openai SDKs' `responses.create()` / `.stream()` speak.
 */

// The request: its schema and the types derived from it (openai-responses-request.ts)

import type {
  ResponsesItemStatus,
  ResponsesReasoningConfig,
  ResponsesRefusal,
  ResponsesSummaryText,
  ResponsesTextConfig,
  ResponsesTool,
  ResponsesToolChoice,
} from './openai-responses-request.js';

export { responsesRequestSchema } from './openai-responses-request.js';
export type {
  ResponsesItemStatus,
  ResponsesInputText,
  ResponsesInputImage,
  ResponsesInputFile,
  ResponsesOutputText,
  ResponsesRefusal,
  ResponsesInputContent,
  ResponsesMessageContent,
  ResponsesMessageRole,
  ResponsesMessageItem,
  ResponsesFunctionCallItem,
  ResponsesFunctionCallOutputItem,
  ResponsesCustomToolCallItem,
  ResponsesCustomToolCallOutputItem,
  ResponsesSummaryText,
  ResponsesReasoningText,
  ResponsesReasoningItem,
  ResponsesItemReference,
  ResponsesHostedItem,
  ResponsesInputItem,
  ResponsesFunctionTool,
  ResponsesCustomToolFormat,
  ResponsesCustomTool,
  ResponsesHostedTool,
  ResponsesRouterTool,
  ResponsesTool,
  ResponsesToolChoice,
  ResponsesTextFormat,
  ResponsesTextConfig,
  ResponsesReasoningConfig,
  ResponsesRequest,
} from './openai-responses-request.js';

// Response object and output items

export type ResponseStatus = 'completed' | 'failed' | 'in_progress' | 'cancelled' | 'queued' | 'incomplete';

/** `logprobs` is required by the official schema even though the router never has any to report. */
export interface ResponseOutputTextPart {
  type: 'output_text';
  text: string;
  annotations: unknown[];
  logprobs: unknown[];
}
export type ResponseOutputContentPart = ResponseOutputTextPart | ResponsesRefusal;

export interface ResponseOutputMessage {
  type: 'message';
  id: string;
  role: 'assistant';
  status: ResponsesItemStatus;
  content: ResponseOutputContentPart[];
}
export interface ResponseFunctionCall {
  type: 'function_call';
  id: string;
  call_id: string;
  name: string;
  arguments: string;
  status: ResponsesItemStatus;
}
export interface ResponseCustomToolCall {
  type: 'custom_tool_call';
  id: string;
  call_id: string;
  name: string;
  input: string;
}
export interface ResponseReasoning {
  type: 'reasoning';
  id: string;
  summary: ResponsesSummaryText[];
  /** The turn's signed reasoning for the next turn (formats/reasoning-carrier.ts). */
  encrypted_content?: string;
  status: ResponsesItemStatus;
}
export type ResponseOutputItem = ResponseOutputMessage | ResponseFunctionCall | ResponseCustomToolCall | ResponseReasoning;

export interface ResponseUsage {
  input_tokens: number;
  input_tokens_details: { cached_tokens: number; cache_write_tokens: number; cache_write_1h_tokens?: number };
  output_tokens: number;
  output_tokens_details: { reasoning_tokens: number };
  total_tokens: number;
}

export interface ResponseErrorInfo {
  /** e.g. `server_error`, `rate_limit_exceeded`, `context_length_exceeded`, `insufficient_quota`. */
  code: string;
  message: string;
}

export interface ResponseObject {
  id: string;
  object: 'response';
  created_at: number;
  completed_at: number | null;
  status: ResponseStatus;
  model: string;
  output: ResponseOutputItem[];
  /** SDK-style convenience: every output_text part of every message, concatenated. */
  output_text: string;
  error: ResponseErrorInfo | null;
  incomplete_details: { reason: 'max_output_tokens' | 'content_filter' } | null;
  instructions: string | null;
  tools: ResponsesTool[];
  tool_choice: ResponsesToolChoice;
  parallel_tool_calls: boolean;
  temperature: number | null;
  top_p: number | null;
  max_output_tokens: number | null;
  previous_response_id: null;
  reasoning: ResponsesReasoningConfig | null;
  store: boolean;
  background: boolean;
  text: ResponsesTextConfig;
  truncation: 'auto' | 'disabled';
  metadata: Record<string, string>;
  user?: string;
  safety_identifier: string | null;
  prompt_cache_key: string | null;
  /** Absent while in progress and when the upstream never reported usage (the schema forbids null). */
  usage?: ResponseUsage;
}

// Stream events (every one the router emits). Framed as `event: <type>\ndata: <json>\n\n`.

interface Sequenced {
  sequence_number: number;
}
interface ItemLocated extends Sequenced {
  item_id: string;
  output_index: number;
}
interface ContentLocated extends ItemLocated {
  content_index: number;
}
interface SummaryLocated extends ItemLocated {
  summary_index: number;
}

export interface ResponseLifecycleEvent extends Sequenced {
  type: 'response.created' | 'response.in_progress' | 'response.completed' | 'response.incomplete' | 'response.failed';
  response: ResponseObject;
}
export interface ResponseOutputItemEvent extends Sequenced {
  type: 'response.output_item.added' | 'response.output_item.done';
  output_index: number;
  item: ResponseOutputItem;
}
export interface ResponseContentPartEvent extends ContentLocated {
  type: 'response.content_part.added' | 'response.content_part.done';
  part: ResponseOutputContentPart;
}
export interface ResponseOutputTextDeltaEvent extends ContentLocated {
  type: 'response.output_text.delta';
  delta: string;
  logprobs: unknown[];
}
export interface ResponseOutputTextDoneEvent extends ContentLocated {
  type: 'response.output_text.done';
  text: string;
  logprobs: unknown[];
}
export interface ResponseRefusalDeltaEvent extends ContentLocated {
  type: 'response.refusal.delta';
  delta: string;
}
export interface ResponseRefusalDoneEvent extends ContentLocated {
  type: 'response.refusal.done';
  refusal: string;
}
export interface ResponseFunctionCallArgumentsDeltaEvent extends ItemLocated {
  type: 'response.function_call_arguments.delta';
  delta: string;
}
export interface ResponseFunctionCallArgumentsDoneEvent extends ItemLocated {
  type: 'response.function_call_arguments.done';
  name: string;
  arguments: string;
}
export interface ResponseCustomToolCallInputDeltaEvent extends ItemLocated {
  type: 'response.custom_tool_call_input.delta';
  delta: string;
}
export interface ResponseCustomToolCallInputDoneEvent extends ItemLocated {
  type: 'response.custom_tool_call_input.done';
  input: string;
}
export interface ResponseReasoningSummaryPartEvent extends SummaryLocated {
  type: 'response.reasoning_summary_part.added' | 'response.reasoning_summary_part.done';
  part: ResponsesSummaryText;
}
export interface ResponseReasoningSummaryTextDeltaEvent extends SummaryLocated {
  type: 'response.reasoning_summary_text.delta';
  delta: string;
}
export interface ResponseReasoningSummaryTextDoneEvent extends SummaryLocated {
  type: 'response.reasoning_summary_text.done';
  text: string;
}

export type ResponsesStreamEvent =
  | ResponseLifecycleEvent
  | ResponseOutputItemEvent
  | ResponseContentPartEvent
  | ResponseOutputTextDeltaEvent
  | ResponseOutputTextDoneEvent
  | ResponseRefusalDeltaEvent
  | ResponseRefusalDoneEvent
  | ResponseFunctionCallArgumentsDeltaEvent
  | ResponseFunctionCallArgumentsDoneEvent
  | ResponseCustomToolCallInputDeltaEvent
  | ResponseCustomToolCallInputDoneEvent
  | ResponseReasoningSummaryPartEvent
  | ResponseReasoningSummaryTextDeltaEvent
  | ResponseReasoningSummaryTextDoneEvent;
