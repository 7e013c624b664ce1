/**
 * fast-check arbitraries for request bodies an attacker (or a careless client) could send: mostly the
 * right types in the right places, with every optional field sometimes missing, sometimes null, and
 * sometimes any JSON at all. Filtered through the body stage's own validator, they are exactly the
 * bodies the translators can be handed.
 */
import fc from 'fast-check';
import { createBodyValidator } from '../../../src/http/stages/read-json-body.js';
import { chatRequestSchema, responsesRequestSchema } from '../../../src/http/request-schemas.js';

const anyJson = fc.jsonValue({ maxDepth: 2 });

/** Usually `good`, now and then null or any JSON (the schema decides which survive). */
function mostly<T>(good: fc.Arbitrary<T>): fc.Arbitrary<unknown> {
  return fc.oneof({ arbitrary: good, weight: 60 }, { arbitrary: fc.constant(null), weight: 2 }, { arbitrary: anyJson, weight: 1 });
}

/** Present now and then: fields that every translator refuses or that end translation early. */
function rare<T>(arbitrary: fc.Arbitrary<T>): fc.Arbitrary<T | undefined> {
  return fc.oneof({ arbitrary: fc.constant(undefined), weight: 12 }, { arbitrary, weight: 1 });
}

/** What the body stage is handed: JSON.parse output (no undefined members, no -0). */
function asParsedJson<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}

/** A record whose every key is optional, each value from `mostly`. */
function looseRecord(fields: Record<string, fc.Arbitrary<unknown>>, required: string[] = []): fc.Arbitrary<Record<string, unknown>> {
  const shaped = Object.fromEntries(Object.entries(fields).map(([name, arbitrary]) => [name, required.includes(name) ? arbitrary : mostly(arbitrary)]));
  return fc.record(shaped, { requiredKeys: required }) as fc.Arbitrary<Record<string, unknown>>;
}

const text = fc.oneof(fc.string({ maxLength: 12 }), fc.constantFrom('', ' ', 'hi', '{"a":1}', '[1,2]', 'null', 'not json {'));
const name = fc.oneof(fc.constantFrom('get_weather', 'f', 'apply_patch', 'a.b-c', 'x y'), fc.string({ maxLength: 8 }));
const url = fc.constantFrom(
  'https://example.com/cat.png',
  'http://example.com/x.JPG?y=1#z',
  'data:image/png;base64,iVBORw0KGgo=',
  'data:application/pdf;base64,JVBERi0=',
  'data:;base64,',
  'ftp://example.com/a.png',
  '',
  'not a url',
);
const schemaObject = fc.oneof(fc.constant({ type: 'object', properties: { a: { type: 'string' } } }), fc.dictionary(fc.string({ maxLength: 4 }), anyJson, { maxKeys: 3 }));

// ---- Chat ----

const chatPartType = fc.oneof(
  { arbitrary: fc.constantFrom('text', 'image_url', 'input_audio', 'file'), weight: 12 },
  { arbitrary: fc.constantFrom('refusal', 'input_text', 'video'), weight: 1 },
);
const chatPart = looseRecord(
  {
    type: chatPartType,
    text,
    refusal: text,
    image_url: looseRecord({ url, detail: fc.constantFrom('auto', 'low', 'high', 'weird') }),
    input_audio: looseRecord({ data: text, format: fc.constantFrom('wav', 'mp3', '') }),
    file: looseRecord({ file_data: url, file_id: text, filename: text }),
  },
  ['type'],
);

const toolCall = looseRecord(
  { id: fc.constantFrom('call_1', 'call_2', 'call:weird/id', ''), type: fc.constant('function'), function: looseRecord({ name, arguments: text }, ['name', 'arguments']) },
  ['id', 'function'],
);

const chatMessage = looseRecord(
  {
    role: fc.oneof(
      { arbitrary: fc.constantFrom('user', 'user', 'assistant', 'tool', 'system', 'developer'), weight: 20 },
      { arbitrary: fc.constant('function'), weight: 1 },
    ),
    content: fc.oneof(text, fc.array(chatPart, { maxLength: 3 })),
    name,
    refusal: text,
    tool_call_id: fc.constantFrom('call_1', 'call_2', 'call:weird/id', 'unknown', ''),
    tool_calls: fc.array(toolCall, { maxLength: 2 }),
  },
  ['role'],
);

const chatTool = looseRecord(
  {
    type: fc.constantFrom('function', 'router:fusion', 'web_search', 'custom'),
    function: looseRecord({ name, description: text, parameters: schemaObject, strict: fc.boolean() }, ['name']),
  },
  ['type'],
);

const chatToolChoice = fc.oneof(
  fc.constantFrom('auto', 'none', 'required', 'sometimes'),
  looseRecord({ type: fc.constant('function'), function: looseRecord({ name }) }, ['type']),
  looseRecord(
    {
      type: fc.constant('allowed_tools'),
      allowed_tools: looseRecord({ mode: fc.constantFrom('auto', 'required', 'none'), tools: fc.array(looseRecord({ type: fc.constant('function'), function: looseRecord({ name }) }), { maxLength: 2 }) }),
    },
    ['type'],
  ),
  looseRecord({ type: fc.constantFrom('custom', 'web_search', 'other') }, ['type']),
);

const responseFormat = fc.oneof(
  looseRecord({ type: fc.constantFrom('text', 'json_object') }, ['type']),
  looseRecord({ type: fc.constant('json_schema'), json_schema: looseRecord({ name, description: text, schema: schemaObject, strict: fc.boolean() }, ['name']) }, ['type']),
  looseRecord({ type: fc.constantFrom('xml', '') }, ['type']),
);

const chatFields = {
  model: fc.constantFrom('router/frontier', 'router/fusion'),
  messages: fc.array(chatMessage, { minLength: 1, maxLength: 4 }),
  stream: fc.boolean(),
  stream_options: looseRecord({ include_usage: fc.boolean() }),
  max_tokens: fc.integer({ min: 1, max: 100_000 }),
  max_completion_tokens: fc.integer({ min: 1, max: 100_000 }),
  temperature: fc.double({ min: 0, max: 2, noNaN: true }),
  top_p: fc.double({ min: 0, max: 1, noNaN: true }),
  n: fc.oneof({ arbitrary: fc.constant(1), weight: 8 }, { arbitrary: fc.integer({ min: 2, max: 3 }), weight: 1 }),
  stop: fc.oneof(text, fc.array(text, { maxLength: 4 })),
  seed: fc.integer(),
  presence_penalty: fc.double({ min: -2, max: 2, noNaN: true }),
  frequency_penalty: fc.double({ min: -2, max: 2, noNaN: true }),
  logprobs: rare(fc.boolean()),
  top_logprobs: rare(fc.integer({ min: 0, max: 20 })),
  tools: fc.array(chatTool, { maxLength: 3 }),
  tool_choice: chatToolChoice,
  parallel_tool_calls: fc.boolean(),
  response_format: responseFormat,
  reasoning_effort: fc.constantFrom('none', 'minimal', 'low', 'medium', 'high', 'xhigh', 'extreme'),
  user: text,
  safety_identifier: text,
  metadata: fc.dictionary(fc.string({ maxLength: 4 }), fc.string({ maxLength: 4 }), { maxKeys: 2 }),
  unknown_vendor_field: anyJson,
};

const validChat = createBodyValidator(chatRequestSchema);
const validResponses = createBodyValidator(responsesRequestSchema);

/** Chat Completions bodies that pass the body stage's validation. */
export const chatBody: fc.Arbitrary<Record<string, unknown>> = looseRecord(chatFields, ['model', 'messages']).map(asParsedJson).filter((body) => validChat(body) === undefined);

// ---- Responses ----

const responsesPart = looseRecord(
  {
    type: fc.constantFrom('input_text', 'output_text', 'refusal', 'input_image', 'input_file', 'input_audio'),
    text,
    refusal: text,
    image_url: url,
    file_id: text,
    detail: fc.constantFrom('auto', 'low', 'high', 'original'),
    file_data: url,
    file_url: url,
    filename: text,
  },
  ['type'],
);

const callId = fc.constantFrom('call_1', 'call_2', 'call:weird/id', '');
const responsesItem = fc.oneof(
  looseRecord({ type: fc.constant('message'), role: fc.constantFrom('user', 'assistant', 'system', 'developer', 'tool'), content: fc.oneof(text, fc.array(responsesPart, { maxLength: 3 })) }, ['role']),
  looseRecord({ type: fc.constant('function_call'), call_id: callId, name, arguments: text }, ['type']),
  looseRecord({ type: fc.constant('custom_tool_call'), call_id: callId, name, input: text }, ['type']),
  looseRecord({ type: fc.constantFrom('function_call_output', 'custom_tool_call_output'), call_id: callId, output: fc.oneof(text, fc.array(responsesPart, { maxLength: 2 })) }, ['type']),
  looseRecord({ type: fc.constantFrom('reasoning', 'item_reference', 'web_search_call', 'compaction'), id: text, summary: anyJson }, ['type']),
);

const responsesTool = fc.oneof(
  looseRecord({ type: fc.constant('function'), name, description: text, parameters: schemaObject, strict: fc.boolean() }, ['type']),
  looseRecord({ type: fc.constant('custom'), name, description: text, format: looseRecord({ type: fc.constantFrom('grammar', 'text'), syntax: fc.constantFrom('lark', 'regex'), definition: text }) }, ['type']),
  looseRecord({ type: fc.constantFrom('web_search', 'local_shell', 'router:fusion', 'mcp') }, ['type']),
);

const responsesToolChoice = fc.oneof(
  fc.constantFrom('auto', 'none', 'required', 'sometimes'),
  looseRecord({ type: fc.constantFrom('function', 'custom'), name }, ['type']),
  looseRecord({ type: fc.constant('allowed_tools'), mode: fc.constantFrom('auto', 'required', 'none'), tools: fc.array(looseRecord({ type: fc.constantFrom('function', 'custom', 'web_search'), name }), { maxLength: 2 }) }, ['type']),
  looseRecord({ type: fc.constantFrom('web_search', 'file_search') }, ['type']),
);

const responsesFields = {
  model: fc.constantFrom('router/frontier', 'router/fusion'),
  input: fc.oneof(text, fc.array(responsesItem, { maxLength: 4 })),
  instructions: text,
  stream: fc.boolean(),
  max_output_tokens: fc.integer({ min: 1, max: 100_000 }),
  temperature: fc.double({ min: 0, max: 2, noNaN: true }),
  top_p: fc.double({ min: 0, max: 1, noNaN: true }),
  tools: fc.array(responsesTool, { maxLength: 3 }),
  tool_choice: responsesToolChoice,
  parallel_tool_calls: fc.boolean(),
  text: looseRecord({ format: fc.oneof(responseFormat, looseRecord({ type: fc.constant('json_schema'), name, schema: schemaObject, strict: fc.boolean() }, ['type'])) }),
  reasoning: looseRecord({ effort: fc.constantFrom('low', 'medium', 'high', 'extreme') }),
  user: text,
  metadata: fc.dictionary(fc.string({ maxLength: 4 }), fc.string({ maxLength: 4 }), { maxKeys: 2 }),
  store: fc.boolean(),
  truncation: fc.constantFrom('auto', 'disabled'),
  previous_response_id: rare(fc.constantFrom('resp_1', '')),
};

/** Responses bodies that pass the body stage's validation. */
export const responsesBody: fc.Arbitrary<Record<string, unknown>> = looseRecord(responsesFields, ['model', 'input']).map(asParsedJson).filter((body) => validResponses(body) === undefined);
