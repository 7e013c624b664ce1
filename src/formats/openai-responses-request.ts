/**
 * The Responses API request (`POST /v1/responses`): its JSON Schema, what the body stage accepts, and the
 * request types derived from it (re-exported by openai-responses.ts with the response types). The schema
 * checks the spec's required fields and the shape of every field a translator reads, so a body that
 * passes always translates or is refused with a 400 naming the field. Fields and item kinds the router
 * does not check (reasoning items, hosted tools, store, include, …) are typed by hand beside it.
 */
import { Type, type Static } from '@sinclair/typebox';
import { AnyObject, Declared, Kinds, MAX_OUTPUT_TOKENS, Nullable, OrKinds, StringEnum, StringOrArray, When, WhenOrUntyped, WithUnchecked } from './wire-schema.js';

export type ResponsesItemStatus = 'in_progress' | 'completed' | 'incomplete';

// Input items: message content

const inputText = When('input_text', { text: Type.String() });
/** Assistant history parts, as the model produced them in an earlier turn. */
const outputText = WithUnchecked<{ annotations?: unknown[]; logprobs?: unknown[] }>()(When('output_text', { text: Type.String() }));
const refusal = When('refusal', { refusal: Type.String() });
const inputImage = When('input_image', {
  image_url: Type.Optional(Nullable(Type.String())),
  file_id: Type.Optional(Nullable(Type.String())),
  detail: Type.Optional(Declared<'auto' | 'low' | 'high' | 'original'>(Type.String())),
});
const inputFile = When('input_file', {
  file_data: Type.Optional(Type.String()),
  file_id: Type.Optional(Nullable(Type.String())),
  file_url: Type.Optional(Type.String()),
  filename: Type.Optional(Type.String()),
});
const messageContent = Kinds([inputText, outputText, refusal, inputImage, inputFile]);

export type ResponsesInputText = Static<typeof inputText>;
export type ResponsesInputImage = Static<typeof inputImage>;
export type ResponsesInputFile = Static<typeof inputFile>;
export type ResponsesOutputText = Static<typeof outputText>;
export type ResponsesRefusal = Static<typeof refusal>;
export type ResponsesInputContent = ResponsesInputText | ResponsesInputImage | ResponsesInputFile;
export type ResponsesMessageContent = Static<typeof messageContent>;

// Input items

const messageRoles = ['user', 'assistant', 'system', 'developer'] as const;
export type ResponsesMessageRole = (typeof messageRoles)[number];

/** A message item; the "easy" form omits `type`. */
const messageItem = WithUnchecked<{ id?: string; status?: ResponsesItemStatus; phase?: 'commentary' | 'final_answer' | null }>()(
  WhenOrUntyped('message', { role: StringEnum(messageRoles, { typed: true }), content: StringOrArray(messageContent) }),
);
/** `arguments` is a JSON string, as the model wrote it (it may not parse). */
const functionCallItem = WithUnchecked<{ id?: string; status?: ResponsesItemStatus }>()(
  When('function_call', { call_id: Type.String(), name: Type.String(), arguments: Type.String() }),
);
/** `input` is free-form text (e.g. a patch), not JSON. */
const customToolCallItem = WithUnchecked<{ id?: string }>()(When('custom_tool_call', { call_id: Type.String(), name: Type.String(), input: Type.String() }));
/** A tool's output: text, or content parts of which the schema checks the text ones. */
const toolOutput = Declared<string | ResponsesInputContent[]>(StringOrArray(Kinds([inputText])));
const functionCallOutputItem = WithUnchecked<{ id?: string | null; status?: ResponsesItemStatus | null }>()(
  When('function_call_output', { call_id: Type.String(), output: toolOutput }),
);
const customToolCallOutputItem = WithUnchecked<{ id?: string }>()(When('custom_tool_call_output', { call_id: Type.String(), output: toolOutput }));
/** Points at an item stored server-side; the router stores nothing, so it cannot resolve these. */
const itemReference = When('item_reference', { id: Type.String() });

export type ResponsesMessageItem = Static<typeof messageItem>;
export type ResponsesFunctionCallItem = Static<typeof functionCallItem>;
export type ResponsesFunctionCallOutputItem = Static<typeof functionCallOutputItem>;
export type ResponsesCustomToolCallItem = Static<typeof customToolCallItem>;
export type ResponsesCustomToolCallOutputItem = Static<typeof customToolCallOutputItem>;
export type ResponsesItemReference = Static<typeof itemReference>;

export interface ResponsesSummaryText {
  type: 'summary_text';
  text: string;
}
export interface ResponsesReasoningText {
  type: 'reasoning_text';
  text: string;
}
/** Not checked: passed back to the upstream that wrote it, or dropped. */
export interface ResponsesReasoningItem {
  type: 'reasoning';
  id: string;
  summary: ResponsesSummaryText[];
  content?: ResponsesReasoningText[];
  encrypted_content?: string | null;
  status?: ResponsesItemStatus;
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

/** Unlike other kinds, an input item's `type` may be absent (a message), so it is not required here. */
const inputItem = OrKinds<ResponsesReasoningItem | ResponsesHostedItem>()(
  Type.Unsafe<Static<typeof messageItem | typeof functionCallItem | typeof customToolCallItem | typeof functionCallOutputItem | typeof customToolCallOutputItem | typeof itemReference>>({
    type: 'object',
    properties: { type: Type.String() },
    allOf: [messageItem, functionCallItem, customToolCallItem, functionCallOutputItem, customToolCallOutputItem, itemReference],
  }),
);
export type ResponsesInputItem = Static<typeof inputItem>;

// Tools, tool choice, text and reasoning options

/** Function tools are flat in the Responses API (no nested `function` object). */
const functionTool = When('function', {
  name: Type.String(),
  description: Type.Optional(Nullable(Type.String())),
  parameters: Type.Optional(Nullable(AnyObject())),
  strict: Type.Optional(Nullable(Type.Boolean())),
});
export type ResponsesCustomToolFormat = { type: 'text' } | { type: 'grammar'; syntax: 'lark' | 'regex'; definition: string };
/** A free-form tool: the model answers with raw text (`custom_tool_call.input`), not JSON arguments. */
const customTool = When('custom', {
  name: Type.String(),
  description: Type.Optional(Type.String()),
  format: Type.Optional(
    Declared<ResponsesCustomToolFormat>(
      Type.Object({ type: Type.Optional(Type.String()), syntax: Type.Optional(Type.String()), definition: Type.Optional(Type.String()) }),
    ),
  ),
});
export type ResponsesFunctionTool = Static<typeof functionTool>;
export type ResponsesCustomTool = Static<typeof customTool>;
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
const tool = OrKinds<ResponsesHostedTool | ResponsesRouterTool>()(Kinds([functionTool, customTool]));
export type ResponsesTool = Static<typeof tool>;

export type ResponsesToolChoice =
  | 'none'
  | 'auto'
  | 'required'
  | { type: 'function'; name: string }
  | { type: 'custom'; name: string }
  | { type: 'allowed_tools'; mode: 'auto' | 'required'; tools: Array<{ type: string; name?: string; [key: string]: unknown }> }
  | { type: ResponsesHostedTool['type'] };
/** The schema checks the kinds a translator reads; the type names the rest the API defines. */
const toolChoice = Declared<ResponsesToolChoice | null>(
  Type.Unsafe({
    type: ['string', 'object', 'null'],
    if: { type: 'object' },
    then: Kinds([
      When('function', { name: Type.String() }),
      When('custom', { name: Type.String() }),
      When('allowed_tools', { mode: Type.Optional(Type.String()), tools: Type.Array(AnyObject()) }),
    ]),
  }),
);

/** Structured output config; note the JSON schema is flat here (nested under `json_schema` in chat). */
const jsonSchemaFormat = When('json_schema', {
  name: Type.String(),
  description: Type.Optional(Nullable(Type.String())),
  schema: Type.Optional(AnyObject()),
  strict: Type.Optional(Nullable(Type.Boolean())),
});
export type ResponsesTextFormat = { type: 'text' } | { type: 'json_object' } | Static<typeof jsonSchemaFormat>;
const textConfig = WithUnchecked<{ verbosity?: 'low' | 'medium' | 'high' | null }>()(
  Type.Object({ format: Type.Optional(Declared<ResponsesTextFormat | null>(Nullable(Kinds([jsonSchemaFormat])))) }),
);
export type ResponsesTextConfig = Static<typeof textConfig>;

const reasoningConfig = WithUnchecked<{ summary?: 'auto' | 'concise' | 'detailed' | null; generate_summary?: 'auto' | 'concise' | 'detailed' | null }>()(
  Type.Object({ effort: Type.Optional(Nullable(Declared<'none' | 'minimal' | 'low' | 'medium' | 'high' | 'xhigh' | 'max'>(Type.String()))) }),
);
export type ResponsesReasoningConfig = Static<typeof reasoningConfig>;

export const responsesRequestSchema = Type.Object({
  model: Type.String({ minLength: 1 }),
  input: StringOrArray(inputItem),
  instructions: Type.Optional(Nullable(Type.String())),
  stream: Type.Optional(Nullable(Type.Boolean())),
  max_output_tokens: Type.Optional(Nullable(Type.Integer({ minimum: 1, maximum: MAX_OUTPUT_TOKENS }))),
  temperature: Type.Optional(Nullable(Type.Number({ minimum: 0, maximum: 2 }))),
  top_p: Type.Optional(Nullable(Type.Number({ minimum: 0, maximum: 1 }))),
  tools: Type.Optional(Type.Array(tool, { maxItems: 512 })),
  tool_choice: Type.Optional(toolChoice),
  parallel_tool_calls: Type.Optional(Nullable(Type.Boolean())),
  text: Type.Optional(Nullable(textConfig)),
  reasoning: Type.Optional(Nullable(reasoningConfig)),
  user: Type.Optional(Type.String()),
  safety_identifier: Type.Optional(Type.String()),
  prompt_cache_key: Type.Optional(Type.String()),
  metadata: Type.Optional(Nullable(AnyObject<Record<string, string>>())),
});

/** The checked fields, and those the router reads or refuses without the schema checking them. */
export interface ResponsesRequest extends Static<typeof responsesRequestSchema> {
  stream_options?: { include_obfuscation?: boolean } | null;
  store?: boolean | null;
  previous_response_id?: string | null;
  conversation?: string | { id: string } | null;
  prompt?: { id: string; [key: string]: unknown } | null;
  max_tool_calls?: number | null;
  include?: string[] | null;
  top_logprobs?: number | null;
  truncation?: 'auto' | 'disabled' | null;
  prompt_cache_retention?: string | null;
  service_tier?: string | null;
  background?: boolean | null;
}
