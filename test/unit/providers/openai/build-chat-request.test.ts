import { describe, expect, it } from 'vitest';
import type { ChatRequest } from '../../../../src/formats/openai-chat.js';
import { buildChatRequest } from '../../../../src/providers/openai/build-chat-request.js';
import { compatibleHost, openaiContext } from './openai-context.js';

function bodyOf(request: ChatRequest, ...context: Parameters<typeof openaiContext>): Record<string, unknown> {
  return JSON.parse(buildChatRequest(request, openaiContext(...context)).body) as Record<string, unknown>;
}

const messages: ChatRequest['messages'] = [
  { role: 'developer', content: 'Be brief.' },
  { role: 'user', content: 'Hi 👋' },
];

describe('buildChatRequest', () => {
  it('posts to the configured base URL with the bearer credential and no client headers', () => {
    const request = buildChatRequest({ model: 'router/frontier', messages }, openaiContext({ headers: { 'x-extra': '1' } }));
    expect(request.url).toBe('https://api.openai.com/v1/chat/completions');
    expect(request.headers).toEqual({
      'x-extra': '1',
      'content-type': 'application/json',
      accept: 'application/json',
      authorization: 'Bearer sk-test-credential',
    });
  });

  it('joins a base URL with a trailing slash without doubling it', () => {
    expect(buildChatRequest({ model: 'm', messages }, openaiContext(compatibleHost)).url).toBe('https://api.groq.com/openai/v1/chat/completions');
  });

  it('replaces the model and passes every other client field through', () => {
    const body = bodyOf({ model: 'router/frontier', messages, temperature: 0.2, seed: 7, vendor_field: { a: 1 } });
    expect(body).toEqual({ model: 'gpt-4o-mini', messages, temperature: 0.2, seed: 7, vendor_field: { a: 1 } });
  });

  it('moves max_tokens to max_completion_tokens for OpenAI', () => {
    const body = bodyOf({ model: 'm', messages, max_tokens: 100 });
    expect(body.max_completion_tokens).toBe(100);
    expect('max_tokens' in body).toBe(false);
  });

  it('moves max_completion_tokens to max_tokens for legacy hosts, preferring it over max_tokens', () => {
    const body = bodyOf({ model: 'm', messages, max_tokens: 50, max_completion_tokens: 80 }, compatibleHost);
    expect(body.max_tokens).toBe(80);
    expect('max_completion_tokens' in body).toBe(false);
  });

  it('drops a null output cap instead of sending it', () => {
    const body = bodyOf({ model: 'm', messages, max_tokens: null });
    expect('max_tokens' in body || 'max_completion_tokens' in body).toBe(false);
  });

  it('keeps the developer role for hosts on the max_completion_tokens API and rewrites it to system elsewhere', () => {
    expect(bodyOf({ model: 'm', messages }).messages).toEqual(messages);
    expect(bodyOf({ model: 'm', messages }, compatibleHost).messages).toEqual([
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'Hi 👋' },
    ]);
  });

  it('forces include_usage on streams when the host supports it, keeping other stream options', () => {
    const body = bodyOf({ model: 'm', messages, stream: true, stream_options: { include_obfuscation: false } as never }, {}, { stream: true });
    expect(body.stream).toBe(true);
    expect(body.stream_options).toEqual({ include_obfuscation: false, include_usage: true });
    const request = buildChatRequest({ model: 'm', messages, stream: true }, openaiContext({}, { stream: true }));
    expect(request.headers.accept).toBe('text/event-stream');
  });

  it('removes stream_options for hosts that reject it and for non-stream requests', () => {
    const streamed = bodyOf({ model: 'm', messages, stream: true, stream_options: { include_usage: true } }, { streamUsage: false }, { stream: true });
    expect(streamed.stream).toBe(true);
    expect('stream_options' in streamed).toBe(false);
    const plain = bodyOf({ model: 'm', messages, stream: false, stream_options: { include_usage: true } });
    expect('stream' in plain || 'stream_options' in plain).toBe(false);
  });

  it('removes the router:fusion tool and keeps the function tools', () => {
    const weather = { type: 'function', function: { name: 'get_weather', parameters: { type: 'object' } } };
    const body = bodyOf({ model: 'm', messages, tools: [{ type: 'router:fusion' }, weather], tool_choice: 'auto' });
    expect(body.tools).toEqual([weather]);
    expect(body.tool_choice).toBe('auto');
  });

  it('removes tool_choice and parallel_tool_calls when router:fusion was the only tool', () => {
    const body = bodyOf({ model: 'm', messages, tools: [{ type: 'router:fusion' }], tool_choice: 'auto', parallel_tool_calls: true });
    expect(['tools', 'tool_choice', 'parallel_tool_calls'].filter((key) => key in body)).toEqual([]);
  });

  it('does not mutate the client request', () => {
    const request: ChatRequest = { model: 'router/frontier', messages, max_tokens: 10, tools: [{ type: 'router:fusion' }] };
    const before = structuredClone(request);
    buildChatRequest(request, openaiContext(compatibleHost, { stream: true }));
    expect(request).toEqual(before);
  });
});
