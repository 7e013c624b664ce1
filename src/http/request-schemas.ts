/**
 * JSON Schemas of what /v1/chat/completions and /v1/responses accept. They check the spec's required
 * fields and the shape of every field a translator reads (a content part of type `image_url` carries an
 * `image_url.url` string, a function tool carries `function.name`, …), so a body that passes always
 * translates or is refused by the translator with a 400 naming the field: never an exception. Fields the
 * router does not read are passed on unchecked, and each provider adapter decides what it can honour.
 */

import { MAX_OUTPUT_TOKENS } from '../formats/wire-schema.js';

export { chatRequestSchema } from '../formats/openai-chat.js';
export { MAX_OUTPUT_TOKENS } from '../formats/wire-schema.js';

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

const outputCap = { ...nullable('integer'), minimum: 1, maximum: MAX_OUTPUT_TOKENS };
/** Integers JavaScript holds exactly. */
const safeInteger = { ...nullable('integer'), minimum: Number.MIN_SAFE_INTEGER, maximum: Number.MAX_SAFE_INTEGER };

const requiredStrings = (...names: string[]) => ({ required: names, properties: Object.fromEntries(names.map((name) => [name, string])) });

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
