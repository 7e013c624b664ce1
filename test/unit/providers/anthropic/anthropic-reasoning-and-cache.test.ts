/**
 * What reaches Anthropic for reasoning and prompt caching: `thinking` from each effort (the catalog's
 * budget, max_tokens raised within the model's limit), reasoning_details replayed as signed blocks ahead
 * of the turn's tool_use, and cache_control where the client put it.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { CatalogModel } from '../../../../src/config/types.js';
import type { ChatMessage, ChatRequest } from '../../../../src/formats/openai-chat.js';
import { thinkingBlocksOf } from '../../../../src/providers/anthropic/anthropic-reasoning-details.js';
import { buildAnthropicRequest } from '../../../../src/providers/anthropic/build-anthropic-request.js';
import { anthropicContext } from './anthropic-test-context.js';

const SONNET: CatalogModel = { provider: 'anthropic', model: 'claude-sonnet-4-5', maxOutputTokens: 64000, reasoning: { minimal: 1024, low: 2048, medium: 8192, high: 16384, xhigh: 32000 } };
const hello: ChatMessage[] = [{ role: 'user', content: 'Hello' }];

function body(request: Partial<ChatRequest>, model: CatalogModel | null = SONNET): Record<string, any> {
  const built = buildAnthropicRequest({ model: 'router/frontier', messages: hello, ...request }, { ...anthropicContext(), ...(model ? { model } : {}) });
  return JSON.parse(built.body) as Record<string, any>;
}

describe('Anthropic thinking from the effort asked', () => {
  it.each([
    ['minimal', 1024],
    ['low', 2048],
    ['medium', 8192],
    ['high', 16384],
    ['xhigh', 32000],
    ['max', 32000],
  ])('reasoning_effort %s → budget %i, max_tokens = budget + the output asked', (effort, budget) => {
    const sent = body({ reasoning_effort: effort, max_tokens: 1000 });
    expect(sent.thinking).toEqual({ type: 'enabled', budget_tokens: budget });
    expect(sent.max_tokens).toBe(budget + 1000);
  });

  it('reads the OpenRouter reasoning object and Responses-style effort alike', () => {
    expect(body({ reasoning: { effort: 'high' }, max_tokens: 10 }).thinking).toEqual({ type: 'enabled', budget_tokens: 16384 });
    expect(body({ reasoning: { max_tokens: 5000 }, max_tokens: 10 }).thinking).toEqual({ type: 'enabled', budget_tokens: 5000 });
    expect(body({ reasoning: { max_tokens: 10 }, max_tokens: 10 }).thinking).toEqual({ type: 'enabled', budget_tokens: 1024 });
    expect(body({ reasoning_effort: 'none' }).thinking).toEqual({ type: 'disabled' });
    expect(body({ reasoning: { enabled: false } }).thinking).toEqual({ type: 'disabled' });
  });

  it('keeps max_tokens within the model limit, the budget giving way', () => {
    const sent = body({ reasoning_effort: 'xhigh', max_tokens: 60000 });
    expect(sent.max_tokens).toBe(64000);
    expect(sent.thinking.budget_tokens).toBe(32000);
    expect(sent.max_tokens).toBeGreaterThan(sent.thinking.budget_tokens);
  });

  it('drops a changed temperature and a top_p below 0.95, which thinking refuses', () => {
    const sent = body({ reasoning_effort: 'low', temperature: 0.2, top_p: 0.5 });
    expect(sent.temperature).toBeUndefined();
    expect(sent.top_p).toBeUndefined();
  });

  it('leaves thinking off when tool_choice forces a tool, which Anthropic refuses with thinking', () => {
    const tools = [{ type: 'function' as const, function: { name: 'f', parameters: { type: 'object' } } }];
    expect(body({ reasoning_effort: 'high', tools, tool_choice: 'required' }).thinking).toBeUndefined();
    expect(body({ reasoning_effort: 'high', tools, tool_choice: { type: 'function', function: { name: 'f' } } }).thinking).toBeUndefined();
    expect(body({ reasoning_effort: 'high', tools, tool_choice: 'auto' }).thinking).toEqual({ type: 'enabled', budget_tokens: 16384 });
  });

  it('drops reasoning for a model the catalog does not mark as reasoning, or does not know', () => {
    const plain: CatalogModel = { provider: 'anthropic', model: 'claude-3-5-haiku', maxOutputTokens: 8192 };
    for (const model of [plain, null]) {
      const sent = body({ reasoning_effort: 'high', max_tokens: 100, temperature: 0.2 }, model);
      expect(sent.thinking).toBeUndefined();
      expect([sent.max_tokens, sent.temperature]).toEqual([100, 0.2]);
    }
  });

  it('property: any effort or budget and output gives a valid pair within the limit', () => {
    fc.assert(
      fc.property(
        fc.oneof(fc.constantFrom('minimal', 'low', 'medium', 'high', 'xhigh', 'max', 'other').map((effort) => ({ reasoning_effort: effort })), fc.integer({ min: 1, max: 200_000 }).map((n) => ({ reasoning: { max_tokens: n } }))),
        fc.integer({ min: 1, max: 64000 }),
        (reasoning, output) => {
          const sent = body({ ...reasoning, max_tokens: output });
          expect(sent.thinking.budget_tokens).toBeGreaterThanOrEqual(1024);
          expect(sent.max_tokens).toBeGreaterThan(sent.thinking.budget_tokens);
          expect(sent.max_tokens).toBeLessThanOrEqual(64000);
        },
      ),
    );
  });
});

describe('reasoning_details replayed to Anthropic', () => {
  const details = [
    { type: 'reasoning.text' as const, text: 'Weather needs a tool.', signature: 'EqQBCgIYAhIM1gbcDa9GJwZA2b3h', format: 'anthropic-claude-v1', index: 0 },
    { type: 'reasoning.encrypted' as const, data: 'EmwKAhgBEgy3va3pzix/LafPsn4a', format: 'anthropic-claude-v1', index: 1 },
  ];
  const turn: ChatMessage[] = [
    { role: 'user', content: 'Weather in Paris?' },
    { role: 'assistant', content: null, reasoning_details: details, tool_calls: [{ id: 'toolu_1', type: 'function', function: { name: 'weather', arguments: '{"city":"Paris"}' } }] },
    { role: 'tool', tool_call_id: 'toolu_1', content: '18°C' },
  ];

  it('puts the signed thinking and redacted thinking first, byte for byte, before the tool_use', () => {
    const sent = body({ messages: turn, reasoning_effort: 'low' });
    expect(sent.messages[1].content).toEqual([
      { type: 'thinking', thinking: 'Weather needs a tool.', signature: 'EqQBCgIYAhIM1gbcDa9GJwZA2b3h' },
      { type: 'redacted_thinking', data: 'EmwKAhgBEgy3va3pzix/LafPsn4a' },
      { type: 'tool_use', id: 'toolu_1', name: 'weather', input: { city: 'Paris' } },
    ]);
  });

  it('joins stream deltas of one index sent back as they came, and leaves out other formats and unsigned text', () => {
    const blocks = thinkingBlocksOf([
      { type: 'reasoning.text', text: 'Weather ', format: 'anthropic-claude-v1', index: 0 },
      { type: 'reasoning.text', text: 'needs a tool.', format: 'anthropic-claude-v1', index: 0 },
      { type: 'reasoning.text', text: '', signature: 'sig-A', format: 'anthropic-claude-v1', index: 0 },
      { type: 'reasoning.text', text: 'unsigned', format: 'anthropic-claude-v1', index: 1 },
      { type: 'reasoning.encrypted', data: 'gemini-sig', format: 'google-gemini-v1', index: 2, id: 'call_1' },
    ]);
    expect(blocks).toEqual([{ type: 'thinking', thinking: 'Weather needs a tool.', signature: 'sig-A' }]);
  });
});

describe('cache_control passed to Anthropic where the client put it', () => {
  it('on a system text part, a user text part, a whole message and a tool, with ttl 1h kept', () => {
    const sent = body({
      messages: [
        { role: 'system', content: [{ type: 'text', text: 'Long rules', cache_control: { type: 'ephemeral', ttl: '1h' } }] },
        { role: 'user', content: [{ type: 'text', text: 'Big document', cache_control: { type: 'ephemeral' } }, { type: 'text', text: 'Question?' }] },
        { role: 'assistant', content: 'Answer.', cache_control: { type: 'ephemeral' } },
        { role: 'user', content: 'Next' },
      ],
      tools: [
        { type: 'function', function: { name: 'a', parameters: { type: 'object' } } },
        { type: 'function', function: { name: 'b', parameters: { type: 'object' } }, cache_control: { type: 'ephemeral' } },
      ],
    });
    expect(sent.system).toEqual([{ type: 'text', text: 'Long rules', cache_control: { type: 'ephemeral', ttl: '1h' } }]);
    expect(sent.messages[0].content).toEqual([
      { type: 'text', text: 'Big document', cache_control: { type: 'ephemeral' } },
      { type: 'text', text: 'Question?' },
    ]);
    expect(sent.messages[1].content).toEqual([{ type: 'text', text: 'Answer.', cache_control: { type: 'ephemeral' } }]);
    expect(sent.tools.map((tool: Record<string, unknown>) => tool.cache_control)).toEqual([undefined, { type: 'ephemeral' }]);
  });

  it('keeps system a plain string when no breakpoint is in it', () => {
    expect(body({ messages: [{ role: 'system', content: 'Be brief.' }, ...hello] }).system).toBe('Be brief.');
  });
});
