/**
 * JSON Schemas of what /v1/chat/completions and /v1/responses accept. They check the spec's required
 * fields and the shape of every field a translator reads (a content part of type `image_url` carries an
 * `image_url.url` string, a function tool carries `function.name`, …), so a body that passes always
 * translates or is refused by the translator with a 400 naming the field: never an exception. Fields the
 * router does not read are passed on unchecked, and each provider adapter decides what it can honour.
 */

type Schema = Record<string, unknown>;

const nullable = (...types: string[]) => ({ type: [...types, 'null'] });
const string = { type: 'string' };
const object = { type: 'object' };

/** `then` applies to objects whose `type` is `value` (and, with `optionalType`, to objects without one). */
function whenType(value: string, then: Schema, optionalType = false): Schema {
  const match = { properties: { type: { const: value } }, ...(optionalType ? {} : { required: ['type'] }) };
  return { if: match, then };
}

/** An object of one of several kinds, told apart by its `type` string. */
function typed(kinds: readonly Schema[], extra: Schema = {}): Schema {
  return { type: 'object', required: ['type'], properties: { type: string }, allOf: kinds, ...extra };
}

/** The API's own bound on an output cap; a plan's maxOutputTokens may lower it (output-token-cap.ts). */
export const MAX_OUTPUT_TOKENS = 1_000_000;
const outputCap = { ...nullable('integer'), minimum: 1, maximum: MAX_OUTPUT_TOKENS };
/** Integers JavaScript holds exactly. */
const safeInteger = { ...nullable('integer'), minimum: Number.MIN_SAFE_INTEGER, maximum: Number.MAX_SAFE_INTEGER };

const requiredStrings = (...names: string[]) => ({ required: names, properties: Object.fromEntries(names.map((name) => [name, string])) });

// ---- Chat Completions ----

const chatContentPart = typed([
  whenType('text', requiredStrings('text')),
  whenType('refusal', requiredStrings('refusal')),
  whenType('image_url', {
    required: ['image_url'],
    properties: { image_url: { type: 'object', ...requiredStrings('url'), properties: { url: string, detail: string } } },
  }),
  whenType('input_audio', { required: ['input_audio'], properties: { input_audio: { type: 'object', ...requiredStrings('data', 'format') } } }),
  whenType('file', {
    required: ['file'],
    properties: { file: { type: 'object', properties: { file_data: string, file_id: string, filename: string } } },
  }),
]);

const chatToolCall = {
  type: 'object',
  required: ['id', 'function'],
  properties: {
    id: string,
    type: string,
    function: { type: 'object', ...requiredStrings('name', 'arguments') },
  },
};

const chatMessage = {
  type: 'object',
  required: ['role'],
  properties: {
    role: { type: 'string', enum: ['system', 'developer', 'user', 'assistant', 'tool', 'function'] },
    content: { type: ['string', 'array', 'null'], items: chatContentPart },
    name: string,
    refusal: nullable('string'),
    tool_call_id: string,
    tool_calls: { type: 'array', items: chatToolCall },
    reasoning_details: {
      type: 'array',
      items: { type: 'object', required: ['type'], properties: { type: string, text: string, summary: string, signature: string, data: string, format: string, index: { type: 'integer' } } },
    },
    cache_control: object,
  },
};

const functionDefinition = {
  type: 'object',
  required: ['name'],
  properties: { name: string, description: string, parameters: object, strict: nullable('boolean') },
};

const chatTools = {
  type: 'array',
  maxItems: 512,
  items: typed([whenType('function', { required: ['function'], properties: { function: functionDefinition } })]),
};

const namedFunction = { type: 'object', ...requiredStrings('name') };

const chatToolChoice = {
  type: ['string', 'object', 'null'],
  if: { type: 'object' },
  then: typed([
    whenType('function', { required: ['function'], properties: { function: namedFunction } }),
    whenType('allowed_tools', {
      required: ['allowed_tools'],
      properties: { allowed_tools: { type: 'object', required: ['tools'], properties: { mode: string, tools: { type: 'array', items: object } } } },
    }),
  ]),
};

const chatResponseFormat = {
  ...typed([
    whenType('json_schema', {
      required: ['json_schema'],
      properties: { json_schema: { type: 'object', required: ['name'], properties: { name: string, description: string, schema: object, strict: nullable('boolean') } } },
    }),
  ]),
  type: ['object', 'null'],
};

export const chatRequestSchema = {
  type: 'object',
  required: ['model', 'messages'],
  properties: {
    model: { type: 'string', minLength: 1 },
    messages: { type: 'array', minItems: 1, items: chatMessage },
    stream: nullable('boolean'),
    stream_options: { type: ['object', 'null'], properties: { include_usage: { type: 'boolean' } } },
    max_tokens: outputCap,
    max_completion_tokens: outputCap,
    temperature: { ...nullable('number'), minimum: 0, maximum: 2 },
    top_p: { ...nullable('number'), minimum: 0, maximum: 1 },
    n: { ...nullable('integer'), minimum: 1, maximum: 128 },
    stop: { type: ['string', 'array', 'null'], items: string, maxItems: 4 },
    seed: safeInteger,
    presence_penalty: { ...nullable('number'), minimum: -2, maximum: 2 },
    frequency_penalty: { ...nullable('number'), minimum: -2, maximum: 2 },
    logit_bias: nullable('object'),
    logprobs: nullable('boolean'),
    top_logprobs: { ...nullable('integer'), minimum: 0, maximum: 20 },
    tools: chatTools,
    tool_choice: chatToolChoice,
    parallel_tool_calls: nullable('boolean'),
    response_format: chatResponseFormat,
    reasoning_effort: nullable('string'),
    reasoning: {
      type: ['object', 'null'],
      properties: { effort: nullable('string'), max_tokens: { ...nullable('integer'), minimum: 0, maximum: MAX_OUTPUT_TOKENS }, exclude: nullable('boolean'), enabled: nullable('boolean') },
    },
    user: string,
    safety_identifier: string,
    prompt_cache_key: string,
    metadata: nullable('object'),
  },
} as const;

// ---- Responses ----

const responsesContentPart = typed([
  whenType('input_text', requiredStrings('text')),
  whenType('output_text', requiredStrings('text')),
  whenType('refusal', requiredStrings('refusal')),
  whenType('input_image', { properties: { image_url: nullable('string'), file_id: nullable('string'), detail: string } }),
  whenType('input_file', { properties: { file_data: string, file_id: nullable('string'), file_url: string, filename: string } }),
]);

const toolOutput = { type: ['string', 'array'], items: typed([whenType('input_text', requiredStrings('text'))]) };

const responsesInputItem = {
  type: 'object',
  properties: { type: string },
  allOf: [
    whenType(
      'message',
      {
        required: ['role', 'content'],
        properties: {
          role: { type: 'string', enum: ['user', 'assistant', 'system', 'developer'] },
          content: { type: ['string', 'array'], items: responsesContentPart },
        },
      },
      true,
    ),
    whenType('function_call', requiredStrings('call_id', 'name', 'arguments')),
    whenType('custom_tool_call', requiredStrings('call_id', 'name', 'input')),
    whenType('function_call_output', { required: ['call_id', 'output'], properties: { call_id: string, output: toolOutput } }),
    whenType('custom_tool_call_output', { required: ['call_id', 'output'], properties: { call_id: string, output: toolOutput } }),
    whenType('item_reference', requiredStrings('id')),
  ],
};

const responsesTools = {
  type: 'array',
  maxItems: 512,
  items: typed([
    whenType('function', {
      required: ['name'],
      properties: { name: string, description: nullable('string'), parameters: nullable('object'), strict: nullable('boolean') },
    }),
    whenType('custom', {
      required: ['name'],
      properties: {
        name: string,
        description: string,
        format: { type: 'object', properties: { type: string, syntax: string, definition: string } },
      },
    }),
  ]),
};

const responsesToolChoice = {
  type: ['string', 'object', 'null'],
  if: { type: 'object' },
  then: typed([
    whenType('function', requiredStrings('name')),
    whenType('custom', requiredStrings('name')),
    whenType('allowed_tools', { required: ['tools'], properties: { mode: string, tools: { type: 'array', items: object } } }),
  ]),
};

const responsesText = {
  type: ['object', 'null'],
  properties: {
    format: {
      ...typed([
        whenType('json_schema', { required: ['name'], properties: { name: string, description: nullable('string'), schema: object, strict: nullable('boolean') } }),
      ]),
      type: ['object', 'null'],
    },
  },
};

export const responsesRequestSchema = {
  type: 'object',
  required: ['model', 'input'],
  properties: {
    model: { type: 'string', minLength: 1 },
    input: { type: ['string', 'array'], items: responsesInputItem },
    instructions: nullable('string'),
    stream: nullable('boolean'),
    max_output_tokens: outputCap,
    temperature: { ...nullable('number'), minimum: 0, maximum: 2 },
    top_p: { ...nullable('number'), minimum: 0, maximum: 1 },
    tools: responsesTools,
    tool_choice: responsesToolChoice,
    parallel_tool_calls: nullable('boolean'),
    text: responsesText,
    reasoning: { type: ['object', 'null'], properties: { effort: nullable('string') } },
    user: string,
    safety_identifier: string,
    prompt_cache_key: string,
    metadata: nullable('object'),
  },
} as const;
