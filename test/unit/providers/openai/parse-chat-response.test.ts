import { describe, expect, it } from 'vitest';
import { UpstreamStreamError } from '../../../../src/upstream/upstream-failure.js';
import { parseChatResponse } from '../../../../src/providers/openai/parse-chat-response.js';
import { openaiContext } from './openai-context.js';

const ctx = openaiContext();

describe('parseChatResponse', () => {
  it('returns the body with refusal, logprobs and finish_reason filled where a host omits them', () => {
    const body = {
      id: 'chatcmpl-1',
      object: 'chat.completion',
      created: 1,
      model: 'llama3',
      choices: [{ message: { role: 'assistant', content: 'Hi' } }],
      usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
    };
    expect(parseChatResponse(body, ctx)).toEqual({
      ...body,
      choices: [{ index: 0, message: { role: 'assistant', content: 'Hi', refusal: null }, finish_reason: null, logprobs: null }],
    });
  });

  it('keeps tool calls, vendor fields and existing values', () => {
    const toolCalls = [{ id: 'call_1', type: 'function', function: { name: 'f', arguments: '{}' } }];
    const body = {
      id: 'x', object: 'chat.completion', created: 1, model: 'm', system_fingerprint: 'fp',
      choices: [{ index: 2, message: { role: 'assistant', content: null, refusal: null, tool_calls: toolCalls, reasoning_content: 'hmm' }, finish_reason: 'tool_calls', logprobs: null }],
    };
    expect(parseChatResponse(body, ctx)).toEqual(body);
  });

  it('throws a mapped failure for an error body sent with a 2xx status', () => {
    try {
      parseChatResponse({ error: { message: 'model not loaded', type: 'server_error' } }, ctx);
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(UpstreamStreamError);
      expect((error as UpstreamStreamError).failure).toMatchObject({ status: 500, message: 'model not loaded' });
    }
  });

  it('throws an invalid_upstream_response failure for a body that is not a chat completion', () => {
    for (const body of [null, 'text', { choices: 'no' }, { choices: [{ text: 'legacy completion' }] }]) {
      expect(() => parseChatResponse(body, ctx)).toThrowError(UpstreamStreamError);
    }
    try {
      parseChatResponse({ object: 'list' }, ctx);
    } catch (error) {
      expect((error as UpstreamStreamError).failure).toMatchObject({ status: 502, code: 'invalid_upstream_response' });
    }
  });
});
