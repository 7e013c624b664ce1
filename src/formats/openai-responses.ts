/**
 * OpenAI Responses API wire types (`POST /v1/responses`): the request, the response object, its output
 * items and the stream events the router emits. Only what the router reads or writes is typed; the
 * official schema is far larger (hosted tools, MCP, computer use …). These are the shapes that OpenAI's
 * Codex CLI (`wire_api = "responses"`) and the openai SDKs' `responses.create()` / `.stream()` speak.
 */

// Request: input items

export interface ResponsesInputText {
  type: 'input_text';
  text: string;
}
export interface ResponsesInputImage {
  type: 'input_image';
  image_url?: string | null;
  file_id?: string | null;
  detail?: 'auto' | 'low' | 'high' | 'original';
}
export interface ResponsesInputFile {
  type: 'input_file';
  file_id?: string | null;
  file_data?: string;
  file_url?: string;
  filename?: string;
}
/** Assistant history parts, as the model produced them in an earlier turn. */
export interface ResponsesOutputText {
  type: 'output_text';
  text: string;
  annotations?: unknown[];
  logprobs?: unknown[];
}
export interface ResponsesRefusal {
  type: 'refusal';
  refusal: string;
}
export type ResponsesInputContent = ResponsesInputText | ResponsesInputImage | ResponsesInputFile;
export type ResponsesMessageContent = ResponsesInputContent | ResponsesOutputText | ResponsesRefusal;

export type ResponsesMessageRole = 'user' | 'assistant' | 'system' | 'developer';

/** A message item; the "easy" form omits `type`. */
export interface ResponsesMessageItem {
  type?: 'message';
  id?: string;
  role: ResponsesMessageRole;
  content: string | ResponsesMessageContent[];
  status?: ResponsesItemStatus;
  phase?: 'commentary' | 'final_answer' | null;
}
export interface ResponsesFunctionCallItem {
  type: 'function_call';
  id?: string;
  call_id: string;
  name: string;
  /** A JSON string, as the model wrote it (it may not parse). */
  arguments: string;
  status?: ResponsesItemStatus;
}
export interface ResponsesFunctionCallOutputItem {
  type: 'function_call_output';
  id?: string | null;
  call_id: string;
  output: string | ResponsesInputContent[];
  status?: ResponsesItemStatus | null;
}
export interface ResponsesCustomToolCallItem {
  type: 'custom_tool_call';
  id?: string;
  call_id: string;
  name: string;
  /** Free-form text (e.g. a patch), not JSON. */
  input: string;
}
export interface ResponsesCustomToolCallOutputItem {
  type: 'custom_tool_call_output';
  id?: string;
  call_id: string;
  output: string | ResponsesInputContent[];
}
export interface ResponsesSummaryText {
  type: 'summary_text';
  text: string;
}
export interface ResponsesReasoningText {
  type: 'reasoning_text';
  text: string;
}
export interface ResponsesReasoningItem {
  type: 'reasoning';
  id: string;
  summary: ResponsesSummaryText[];
  content?: ResponsesReasoningText[];
  encrypted_content?: string | null;
  status?: ResponsesItemStatus;
}
/** Points at an item stored server-side; the router stores nothing, so it cannot resolve these. */
export interface ResponsesItemReference {
  type: 'item_reference';
  id: string;
}
/** Calls and results of hosted tools, and compaction items: carried by clients, never executed here. */
export interface ResponsesHostedItem {
  type:
    | 'local_shell_call' | 'local_shell_call_output' | 'shell_call' | 'shell_call_output' | 'apply_patch_call'
    | 'apply_patch_call_output' | 'web_search_call' | 'file_search_call' | 'computer_call' | 'computer_call_output'
    | 'image_generation_call' | 'code_interpreter_call' | 'mcp_call' | 'mcp_list_tools' | 'mcp_approval_request'
    | 'mcp_approval_response' | 'tool_search_call' | 'tool_search_output' | 'compaction';
  [key: string]: unknown;
}

export type ResponsesInputItem =
  | ResponsesMessageItem
  | ResponsesFunctionCallItem
  | ResponsesFunctionCallOutputItem
  | ResponsesCustomToolCallItem
  | ResponsesCustomToolCallOutputItem
  | ResponsesReasoningItem
  | ResponsesItemReference
  | ResponsesHostedItem;

// Request: tools, tool choice, text and reasoning options

/** Function tools are flat in the Responses API (no nested `function` object). */
export interface ResponsesFunctionTool {
  type: 'function';
  name: string;
  description?: string | null;
  parameters?: Record<string, unknown> | null;
  strict?: boolean | null;
}
export type ResponsesCustomToolFormat =
  | { type: 'text' }
  | { type: 'grammar'; syntax: 'lark' | 'regex'; definition: string };
/** A free-form tool: the model answers with raw text (`custom_tool_call.input`), not JSON arguments. */
export interface ResponsesCustomTool {
  type: 'custom';
  name: string;
  description?: string;
  format?: ResponsesCustomToolFormat;
}
/** Tools OpenAI runs server-side (web_search, file_search, local_shell, mcp, …). */
export interface ResponsesHostedTool {
  type:
    | 'web_search' | 'web_search_2025_08_26' | 'web_search_preview' | 'web_search_preview_2025_03_11' | 'file_search'
    | 'local_shell' | 'shell' | 'apply_patch' | 'computer' | 'computer_use' | 'computer_use_preview' | 'code_interpreter'
    | 'image_generation' | 'mcp' | 'namespace' | 'tool_search';
  [key: string]: unknown;
}
/** The router's own server tools, e.g. `{type: "router:fusion"}`. */
export interface ResponsesRouterTool {
  type: `router:${string}`;
  [key: string]: unknown;
}
export type ResponsesTool = ResponsesFunctionTool | ResponsesCustomTool | ResponsesHostedTool | ResponsesRouterTool;

export type ResponsesToolChoice =
  | 'none'
  | 'auto'
  | 'required'
  | { type: 'function'; name: string }
  | { type: 'custom'; name: string }
  | { type: 'allowed_tools'; mode: 'auto' | 'required'; tools: Array<{ type: string; name?: string; [key: string]: unknown }> }
  | { type: ResponsesHostedTool['type'] };

/** Structured output config; note the JSON schema is flat here (nested under `json_schema` in chat). */
export type ResponsesTextFormat =
  | { type: 'text' }
  | { type: 'json_object' }
  | { type: 'json_schema'; name: string; schema: Record<string, unknown>; description?: string; strict?: boolean | null };

export interface ResponsesTextConfig {
  format?: ResponsesTextFormat;
  verbosity?: 'low' | 'medium' | 'high' | null;
}

export interface ResponsesReasoningConfig {
  effort?: 'none' | 'minimal' | 'low' | 'medium' | 'high' | 'xhigh' | 'max' | null;
  summary?: 'auto' | 'concise' | 'detailed' | null;
  generate_summary?: 'auto' | 'concise' | 'detailed' | null;
}

export interface ResponsesRequest {
  model: string;
  input: string | ResponsesInputItem[];
  instructions?: string | null;
  tools?: ResponsesTool[];
  tool_choice?: ResponsesToolChoice;
  parallel_tool_calls?: boolean | null;
  stream?: boolean | null;
  stream_options?: { include_obfuscation?: boolean } | null;
  store?: boolean | null;
  previous_response_id?: string | null;
  conversation?: string | { id: string } | null;
  prompt?: { id: string; [key: string]: unknown } | null;
  reasoning?: ResponsesReasoningConfig | null;
  text?: ResponsesTextConfig | null;
  max_output_tokens?: number | null;
  max_tool_calls?: number | null;
  include?: string[] | null;
  temperature?: number | null;
  top_p?: number | null;
  top_logprobs?: number | null;
  truncation?: 'auto' | 'disabled' | null;
  metadata?: Record<string, string> | null;
  user?: string;
  safety_identifier?: string | null;
  prompt_cache_key?: string | null;
  prompt_cache_retention?: string | null;
  service_tier?: string | null;
  background?: boolean | null;
}

// Response object and output items

export type ResponsesItemStatus = 'in_progress' | 'completed' | 'incomplete';
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
