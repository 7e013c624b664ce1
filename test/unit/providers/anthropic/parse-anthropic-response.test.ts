import { describe, expect, it } from 'vitest';
import { UpstreamStreamError } from '../../../../src/upstream/upstream-failure.js';
import { createAnthropicAdapter } from '../../../../src/providers/anthropic/index.js';
import { mapStopReason } from '../../../../src/providers/anthropic/map-stop-reason.js';
import { anthropicContext } from './anthropic-test-context.js';

const adapter = createAnthropicAdapter({ now: () => 1_760_000_000_500 });
const ctx = anthropicContext();

function message(overrides: Record<string, unknown>): Record<string, unknown> {
  return {
    id: 'msg_01XFDUDYJgAACzvnptvVoYEL',
    type: 'message',
    role: 'assistant',
    model: 'claude-sonnet-4-5-20250929',
    content: [{ type: 'text', text: 'Hi!' }],
    stop_reason: 'end_turn',
    stop_sequence: null,
    usage: { input_tokens: 10, output_tokens: 3, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
    ...overrides,
  };
}

describe('parseChatResponse', () => {
  it('turns a text message into a chat.completion with the message id, model and clock time', () => {
    expect(adapter.parseChatResponse(message({}), ctx)).toEqual({
      id: 'msg_01XFDUDYJgAACzvnptvVoYEL',
      object: 'chat.completion',
      created: 1_760_000_000,
      model: 'claude-sonnet-4-5-20250929',
      choices: [{ index: 0, message: { role: 'assistant', content: 'Hi!', refusal: null }, finish_reason: 'stop', logprobs: null }],
      usage: { prompt_tokens: 10, completion_tokens: 3, total_tokens: 13, prompt_tokens_details: { cached_tokens: 0, cache_write_tokens: 0 } },
    });
  });

  it('joins text blocks, returns tool_use blocks as tool_calls and thinking as reasoning_content and signed reasoning_details', () => {
    const completion = adapter.parseChatResponse(
      message({
        content: [
          { type: 'thinking', thinking: 'The user wants weather.', signature: 'sig' },
          { type: 'text', text: 'Let me ' },
          { type: 'text', text: 'check.' },
          { type: 'tool_use', id: 'toolu_01A', name: 'weather', input: { city: 'Paris', days: 2 } },
          { type: 'tool_use', id: 'toolu_01B', name: 'time', input: {} },
        ],
        stop_reason: 'tool_use',
      }),
      ctx,
    );
    expect(completion.choices[0]).toEqual({
      index: 0,
      message: {
        role: 'assistant',
        content: 'Let me check.',
        refusal: null,
        reasoning_content: 'The user wants weather.',
        reasoning_details: [{ type: 'reasoning.text', text: 'The user wants weather.', signature: 'sig', format: 'anthropic-claude-v1', index: 0 }],
        tool_calls: [
          { id: 'toolu_01A', type: 'function', function: { name: 'weather', arguments: '{"city":"Paris","days":2}' } },
          { id: 'toolu_01B', type: 'function', function: { name: 'time', arguments: '{}' } },
        ],
      },
      finish_reason: 'tool_calls',
      logprobs: null,
    });
  });

  it('returns null content when the model only called tools', () => {
    const completion = adapter.parseChatResponse(
      message({ content: [{ type: 'tool_use', id: 'toolu_1', name: 'f', input: {} }], stop_reason: 'tool_use' }),
      ctx,
    );
    expect(completion.choices[0]?.message.content).toBeNull();
  });

  it('counts cache writes and reads into the prompt and reports them separately', () => {
    const completion = adapter.parseChatResponse(
      message({ usage: { input_tokens: 20, output_tokens: 7, cache_creation_input_tokens: 300, cache_read_input_tokens: 1000 } }),
      ctx,
    );
    expect(completion.usage).toEqual({
      prompt_tokens: 1320,
      completion_tokens: 7,
      total_tokens: 1327,
      prompt_tokens_details: { cached_tokens: 1000, cache_write_tokens: 300 },
    });
  });

  it('refuses a body that is not an Anthropic message', () => {
    expect(() => adapter.parseChatResponse({ error: 'nope' }, ctx)).toThrow(UpstreamStreamError);
    expect(() => adapter.parseChatResponse('text', ctx)).toThrow(UpstreamStreamError);
  });
});

describe('mapStopReason', () => {
  it('maps every Anthropic stop reason to a chat finish reason', () => {
    expect(
      ['end_turn', 'stop_sequence', 'pause_turn', 'max_tokens', 'model_context_window_exceeded', 'tool_use', 'refusal', 'brand_new', null].map(
        mapStopReason,
      ),
    ).toEqual(['stop', 'stop', 'stop', 'length', 'length', 'tool_calls', 'content_filter', 'stop', 'stop']);
  });
});
