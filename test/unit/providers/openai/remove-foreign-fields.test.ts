/** What an OpenAI-compatible host never sees: other providers' caching and reasoning fields. */
import { describe, expect, it } from 'vitest';
import type { ChatRequest } from '../../../../src/formats/openai-chat.js';
import { buildChatRequest } from '../../../../src/providers/openai/build-chat-request.js';
import { openaiContext } from './openai-context.js';

function bodyOf(request: Partial<ChatRequest>, promptCacheKey: boolean): Record<string, any> {
  const chat = { model: 'router/frontier', messages: [{ role: 'user' as const, content: 'Hi' }], ...request };
  return JSON.parse(buildChatRequest(chat, openaiContext({ promptCacheKey })).body);
}

describe('fields of other providers, removed for OpenAI-compatible hosts', () => {
  it('passes prompt_cache_key only to a host that declares promptCacheKey', () => {
    expect(bodyOf({ prompt_cache_key: 'thread-1' }, true).prompt_cache_key).toBe('thread-1');
    expect(bodyOf({ prompt_cache_key: 'thread-1' }, false)).not.toHaveProperty('prompt_cache_key');
  });

  it('drops cache_control on messages, parts and tools and reasoning_details on messages, leaving the rest', () => {
    const sent = bodyOf(
      {
        messages: [
          { role: 'system', content: [{ type: 'text', text: 'Rules', cache_control: { type: 'ephemeral' } }] },
          { role: 'assistant', content: 'A', cache_control: { type: 'ephemeral' }, reasoning_details: [{ type: 'reasoning.text', text: 't', signature: 's' }] },
          { role: 'user', content: 'Q' },
        ],
        tools: [{ type: 'function', function: { name: 'f' }, cache_control: { type: 'ephemeral' } }],
      },
      true,
    );
    expect(sent.messages).toEqual([
      { role: 'system', content: [{ type: 'text', text: 'Rules' }] },
      { role: 'assistant', content: 'A' },
      { role: 'user', content: 'Q' },
    ]);
    expect(sent.tools).toEqual([{ type: 'function', function: { name: 'f' } }]);
  });

  it("turns OpenRouter's reasoning object into reasoning_effort, an explicit reasoning_effort winning", () => {
    expect(bodyOf({ reasoning: { effort: 'high', exclude: true } }, true)).toMatchObject({ reasoning_effort: 'high' });
    expect(bodyOf({ reasoning: { effort: 'high' } }, true)).not.toHaveProperty('reasoning');
    expect(bodyOf({ reasoning: { effort: 'high' }, reasoning_effort: 'low' }, true).reasoning_effort).toBe('low');
  });

  it("turns a reasoning budget alone into the effort whose budget is nearest, on the model's table or the defaults", () => {
    const build = (maxTokens: number, reasoning: object = {}) =>
      JSON.parse(buildChatRequest({ model: 'm', messages: [{ role: 'user', content: 'Hi' }], reasoning: { max_tokens: maxTokens } }, openaiContext({}, { model: { provider: 'openai', model: 'x', maxOutputTokens: 128000, reasoning } })).body);
    expect([build(1), build(2048), build(8000), build(31999), build(100000)].map((body) => body.reasoning_effort)).toEqual(['low', 'low', 'medium', 'high', 'high']);
    expect(build(500, { minimal: 512 }).reasoning_effort).toBe('minimal');
    expect(build(40000, { xhigh: 48000 }).reasoning_effort).toBe('xhigh');
    expect(build(0)).not.toHaveProperty('reasoning_effort');
  });

  it('drops reasoning_effort for a model the catalog lists as not reasoning, keeps it for a reasoning or unlisted one', () => {
    const build = (model?: { reasoning?: object }) =>
      JSON.parse(buildChatRequest({ model: 'm', messages: [{ role: 'user', content: 'Hi' }], reasoning_effort: 'high' }, openaiContext({}, model ? { model: { provider: 'openai', model: 'x', maxOutputTokens: 1000, ...model } } : {})).body);
    expect(build({})).not.toHaveProperty('reasoning_effort');
    expect(build({ reasoning: {} }).reasoning_effort).toBe('high');
    expect(build().reasoning_effort).toBe('high');
  });

  it('leaves a request without such fields as it was', () => {
    const request: Partial<ChatRequest> = { messages: [{ role: 'user', content: 'Hi' }], tools: [{ type: 'function', function: { name: 'f' } }] };
    const sent = bodyOf(request, true);
    expect(sent.messages).toEqual(request.messages);
    expect(sent.tools).toEqual(request.tools);
  });
});
