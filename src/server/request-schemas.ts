/**
 * JSON Schemas of what /v1/chat/completions and /v1/responses accept. They check shape only (the
 * spec's required fields and the types of the common optional ones); fields are otherwise passed on,
 * and each provider adapter decides what it can honour.
 */
const nullableNumber = { type: ['number', 'null'] };

const chatMessage = {
  type: 'object',
  required: ['role'],
  properties: {
    role: { type: 'string', enum: ['system', 'developer', 'user', 'assistant', 'tool', 'function'] },
    content: { type: ['string', 'array', 'null'], items: { type: 'object', required: ['type'], properties: { type: { type: 'string' } } } },
    name: { type: 'string' },
    tool_call_id: { type: 'string' },
    tool_calls: {
      type: 'array',
      items: {
        type: 'object',
        required: ['id', 'function'],
        properties: {
          id: { type: 'string' },
          type: { type: 'string' },
          function: { type: 'object', required: ['name'], properties: { name: { type: 'string' }, arguments: { type: 'string' } } },
        },
      },
    },
  },
};

const tools = {
  type: 'array',
  maxItems: 512,
  items: { type: 'object', required: ['type'], properties: { type: { type: 'string' } } },
};

export const chatRequestSchema = {
  type: 'object',
  required: ['model', 'messages'],
  properties: {
    model: { type: 'string', minLength: 1 },
    messages: { type: 'array', minItems: 1, items: chatMessage },
    stream: { type: ['boolean', 'null'] },
    stream_options: { type: ['object', 'null'], properties: { include_usage: { type: 'boolean' } } },
    max_tokens: { type: ['integer', 'null'], minimum: 1 },
    max_completion_tokens: { type: ['integer', 'null'], minimum: 1 },
    temperature: { ...nullableNumber, minimum: 0, maximum: 2 },
    top_p: { ...nullableNumber, minimum: 0, maximum: 1 },
    n: { type: ['integer', 'null'], minimum: 1, maximum: 128 },
    stop: { type: ['string', 'array', 'null'], items: { type: 'string' }, maxItems: 4 },
    tools,
    user: { type: 'string' },
  },
} as const;

export const responsesRequestSchema = {
  type: 'object',
  required: ['model', 'input'],
  properties: {
    model: { type: 'string', minLength: 1 },
    input: { type: ['string', 'array'], items: { type: 'object' } },
    instructions: { type: ['string', 'null'] },
    stream: { type: ['boolean', 'null'] },
    max_output_tokens: { type: ['integer', 'null'], minimum: 1 },
    temperature: { ...nullableNumber, minimum: 0, maximum: 2 },
    top_p: { ...nullableNumber, minimum: 0, maximum: 1 },
    tools,
  },
} as const;
