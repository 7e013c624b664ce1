import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ChatRequest } from '../../../../src/formats/openai-chat.js';
import { buildChatRequest } from '../../../../src/providers/openai/build-chat-request.js';
import { buildResponsesRequest } from '../../../../src/providers/openai/build-responses-request.js';
import { REDIRECTING_FIELDS } from '../../../../src/formats/redirecting-fields.js';
import { openaiContext } from './openai-context.js';

const SET_BY_ROUTER = new Set(['model', 'max_tokens', 'max_completion_tokens', 'stream', 'stream_options', 'store', 'messages', 'input', 'tools', '__proto__']);
/** Any other field a client may send, with any JSON value: passed through. */
const otherFields = fc.dictionary(
  fc.string({ minLength: 1, maxLength: 12 }).filter((key) => !REDIRECTING_FIELDS.has(key) && !SET_BY_ROUTER.has(key)),
  fc.jsonValue({ maxDepth: 2 }),
  { maxKeys: 6 },
);
const redirecting = fc.subarray([...REDIRECTING_FIELDS], { minLength: 1 }).chain((keys) => fc.tuple(...keys.map((key) => fc.tuple(fc.constant(key), fc.jsonValue({ maxDepth: 1 })))));

describe('fields that could redirect or re-credential a request', () => {
  it('never reach an OpenAI-compatible host, on chat or native Responses, while every other field does', () => {
    fc.assert(
      fc.property(otherFields, redirecting, fc.boolean(), (others, pairs, stream) => {
        const extra = { ...others, ...Object.fromEntries(pairs) };
        const chat = JSON.parse(buildChatRequest({ model: 'router/frontier', messages: [{ role: 'user', content: 'hi' }], ...extra } as ChatRequest, openaiContext({}, { stream })).body);
        const responses = JSON.parse(buildResponsesRequest({ model: 'router/frontier', input: 'hi', ...extra }, openaiContext({}, { stream })).body);
        for (const body of [chat, responses]) {
          for (const [key] of pairs) expect(Object.hasOwn(body, key)).toBe(false);
          for (const [key, value] of Object.entries(others)) expect(body[key]).toEqual(JSON.parse(JSON.stringify(value)));
        }
      }),
    );
  });
});
