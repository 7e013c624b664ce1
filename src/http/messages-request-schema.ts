/**
 * JSON Schema of what POST /v1/messages accepts: Anthropic's required fields, and the shape of every
 * field the translator reads (an image block carries a source, a tool_result a tool_use_id, a tool a
 * name, …), so a body that passes always translates or is refused with a 400 naming the field. Fields
 * the router does not read (betas, cache_control, context_management) are passed on unchecked.
 */
import { MAX_OUTPUT_TOKENS } from './request-schemas.js';

type Schema = Record<string, unknown>;

const string = { type: 'string' };

function whenType(value: string, then: Schema): Schema {
  return { if: { properties: { type: { const: value } }, required: ['type'] }, then };
}

const imageSource = {
  type: 'object',
  required: ['type'],
  properties: { type: string },
  allOf: [
    whenType('base64', { required: ['media_type', 'data'], properties: { media_type: string, data: string } }),
    whenType('url', { required: ['url'], properties: { url: string } }),
  ],
};

/** Blocks the translator reads; other types (thinking, server-tool results, future ones) pass unchecked. */
const innerBlock: Schema = {
  type: 'object',
  required: ['type'],
  properties: { type: string },
  allOf: [
    whenType('text', { required: ['text'], properties: { text: string } }),
    whenType('image', { required: ['source'], properties: { source: imageSource } }),
    whenType('document', { required: ['source'], properties: { source: { type: 'object', required: ['type'], properties: { type: string, data: string } } } }),
  ],
};

const block: Schema = {
  ...innerBlock,
  allOf: [
    ...(innerBlock.allOf as Schema[]),
    whenType('tool_use', { required: ['id', 'name'], properties: { id: string, name: string, input: { type: 'object' } } }),
    whenType('tool_result', {
      required: ['tool_use_id'],
      properties: { tool_use_id: string, is_error: { type: 'boolean' }, content: { type: ['string', 'array'], items: innerBlock } },
    }),
    whenType('thinking', { properties: { thinking: string } }),
  ],
};

const content = { type: ['string', 'array'], items: block };

export const messagesRequestSchema = {
  type: 'object',
  required: ['model', 'messages', 'max_tokens'],
  properties: {
    model: { type: 'string', minLength: 1 },
    max_tokens: { type: 'integer', minimum: 1, maximum: MAX_OUTPUT_TOKENS },
    messages: {
      type: 'array',
      items: { type: 'object', required: ['role', 'content'], properties: { role: { enum: ['user', 'assistant', 'system'] }, content } },
    },
    system: { type: ['string', 'array'], items: { type: 'object', required: ['type', 'text'], properties: { type: { const: 'text' }, text: string } } },
    stream: { type: 'boolean' },
    stop_sequences: { type: 'array', items: string },
    temperature: { type: 'number', minimum: 0, maximum: 1 },
    top_p: { type: 'number', minimum: 0, maximum: 1 },
    top_k: { type: 'integer', minimum: 0 },
    metadata: { type: 'object', properties: { user_id: { type: ['string', 'null'] } } },
    tools: {
      type: 'array',
      items: { type: 'object', properties: { type: string, name: string, description: string, input_schema: { type: 'object' } } },
    },
    tool_choice: {
      type: 'object',
      required: ['type'],
      properties: { type: { enum: ['auto', 'any', 'tool', 'none'] }, disable_parallel_tool_use: { type: 'boolean' } },
      allOf: [whenType('tool', { required: ['name'], properties: { name: string } })],
    },
  },
};

/** count_tokens takes the same body without `max_tokens` (and without `stream`). */
export const countTokensRequestSchema = { ...messagesRequestSchema, required: ['model', 'messages'] };
