import { describe, expect, it } from 'vitest';
import type { ChatCompletionChunk } from '../../../../src/formats/openai-chat.js';
import { UpstreamStreamError } from '../../../../src/upstream/upstream-failure.js';
import { createAnthropicAdapter } from '../../../../src/providers/anthropic/index.js';
import type { SseEvent } from '../../../../src/upstream/sse-event.js';
import { anthropicContext } from './anthropic-test-context.js';

const adapter = createAnthropicAdapter({ now: () => 1_760_000_000_000 });
const CREATED = 1_760_000_000;
const MODEL = 'claude-sonnet-4-5-20250929';

/** Splits a recorded stream into events (the fixtures are well-formed; the router's decoder is tested elsewhere). */
function events(recorded: string): SseEvent[] {
  return recorded
    .trim()
    .split(/\n\n+/)
    .map((block) => {
      const lines = block.split('\n');
      const name = lines.find((line) => line.startsWith('event: '))?.slice('event: '.length);
      const data = lines.filter((line) => line.startsWith('data: ')).map((line) => line.slice('data: '.length)).join('\n');
      return { event: name, data };
    });
}

function translate(recorded: SseEvent[]): ChatCompletionChunk[] {
  const translator = adapter.createChatStreamTranslator(anthropicContext({ stream: true }));
  return [...recorded.flatMap((event) => translator.onEvent(event)), ...translator.onEnd()];
}

function chunk(delta: object, finishReason: string | null = null): ChatCompletionChunk {
  return {
    id: 'msg_01HGVjx4g6aQc9RhMBFQfZXp',
    object: 'chat.completion.chunk',
    created: CREATED,
    model: MODEL,
    choices: [{ index: 0, delta, finish_reason: finishReason }],
  } as ChatCompletionChunk;
}

const TEXT_TURN = `
event: message_start
data: {"type":"message_start","message":{"id":"msg_01HGVjx4g6aQc9RhMBFQfZXp","type":"message","role":"assistant","model":"${MODEL}","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":25,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"output_tokens":1}}}

event: content_block_start
data: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}

event: ping
data: {"type": "ping"}

event: content_block_delta
data: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hello"}}

event: content_block_delta
data: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":" 👋 世界"}}

event: content_block_stop
data: {"type":"content_block_stop","index":0}

event: message_delta
data: {"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":15}}

event: message_stop
data: {"type":"message_stop"}
`;

const TOOL_TURN = `
event: message_start
data: {"type":"message_start","message":{"id":"msg_01HGVjx4g6aQc9RhMBFQfZXp","type":"message","role":"assistant","model":"${MODEL}","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":40,"cache_creation_input_tokens":100,"cache_read_input_tokens":2000,"output_tokens":1}}}

event: content_block_start
data: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}

event: content_block_delta
data: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Checking Paris."}}

event: content_block_stop
data: {"type":"content_block_stop","index":0}

event: content_block_start
data: {"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"toolu_01T1x1fJ34qAmk2tNTrN7Up6","name":"get_weather","input":{}}}

event: content_block_delta
data: {"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":""}}

event: content_block_delta
data: {"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"{\\"city\\": \\"Par"}}

event: content_block_delta
data: {"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"is\\"}"}}

event: content_block_stop
data: {"type":"content_block_stop","index":1}

event: content_block_start
data: {"type":"content_block_start","index":2,"content_block":{"type":"text","text":""}}

event: content_block_delta
data: {"type":"content_block_delta","index":2,"delta":{"type":"text_delta","text":"And Rome."}}

event: content_block_stop
data: {"type":"content_block_stop","index":2}

event: content_block_start
data: {"type":"content_block_start","index":3,"content_block":{"type":"tool_use","id":"toolu_01ABCDEFghijklmnopqrstuv","name":"get_weather","input":{}}}

event: content_block_delta
data: {"type":"content_block_delta","index":3,"delta":{"type":"input_json_delta","partial_json":"{\\"city\\": \\"Rome\\"}"}}

event: content_block_stop
data: {"type":"content_block_stop","index":3}

event: message_delta
data: {"type":"message_delta","delta":{"stop_reason":"tool_use","stop_sequence":null},"usage":{"output_tokens":89}}

event: message_stop
data: {"type":"message_stop"}
`;

describe('Anthropic stream translation', () => {
  it('translates a text turn into role, content, finish and usage chunks', () => {
    expect(translate(events(TEXT_TURN))).toEqual([
      chunk({ role: 'assistant', content: '' }),
      chunk({ content: 'Hello' }),
      chunk({ content: ' 👋 世界' }),
      chunk({}, 'stop'),
      {
        id: 'msg_01HGVjx4g6aQc9RhMBFQfZXp',
        object: 'chat.completion.chunk',
        created: CREATED,
        model: MODEL,
        choices: [],
        usage: { prompt_tokens: 25, completion_tokens: 15, total_tokens: 40, prompt_tokens_details: { cached_tokens: 0, cache_write_tokens: 0 } },
      },
    ]);
  });

  it('falls back to data.type when the event name is missing', () => {
    const unnamed = events(TEXT_TURN).map((event) => ({ ...event, event: undefined }));
    expect(translate(unnamed)).toEqual(translate(events(TEXT_TURN)));
  });

  it('numbers tool calls over tool blocks only, with interleaved text', () => {
    const chunks = translate(events(TOOL_TURN));
    expect(chunks.slice(0, -1)).toEqual([
      chunk({ role: 'assistant', content: '' }),
      chunk({ content: 'Checking Paris.' }),
      chunk({ tool_calls: [{ index: 0, id: 'toolu_01T1x1fJ34qAmk2tNTrN7Up6', type: 'function', function: { name: 'get_weather', arguments: '' } }] }),
      chunk({ tool_calls: [{ index: 0, function: { arguments: '{"city": "Par' } }] }),
      chunk({ tool_calls: [{ index: 0, function: { arguments: 'is"}' } }] }),
      chunk({ content: 'And Rome.' }),
      chunk({ tool_calls: [{ index: 1, id: 'toolu_01ABCDEFghijklmnopqrstuv', type: 'function', function: { name: 'get_weather', arguments: '' } }] }),
      chunk({ tool_calls: [{ index: 1, function: { arguments: '{"city": "Rome"}' } }] }),
      chunk({}, 'tool_calls'),
    ]);
    expect(chunks.at(-1)?.usage).toEqual({
      prompt_tokens: 2140,
      completion_tokens: 89,
      total_tokens: 2229,
      prompt_tokens_details: { cached_tokens: 2000, cache_write_tokens: 100 },
    });
  });

  it('passes thinking deltas on as reasoning_content', () => {
    const translator = adapter.createChatStreamTranslator(anthropicContext({ stream: true }));
    const out = translator.onEvent({
      event: 'content_block_delta',
      data: '{"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"Let me think"}}',
    });
    expect(out.map((c) => c.choices[0]?.delta)).toEqual([{ reasoning_content: 'Let me think' }]);
  });

  it('throws the mapped failure when an error event arrives inside the stream', () => {
    const translator = adapter.createChatStreamTranslator(anthropicContext({ stream: true }));
    const [start] = events(TEXT_TURN);
    translator.onEvent(start as SseEvent);
    const error = { event: 'error', data: '{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}' };
    let thrown: unknown;
    try {
      translator.onEvent(error);
    } catch (caught) {
      thrown = caught;
    }
    expect(thrown).toBeInstanceOf(UpstreamStreamError);
    expect((thrown as UpstreamStreamError).failure).toEqual({ status: 503, type: 'server_error', code: 'overloaded', message: 'Overloaded' });
  });

  it('ignores ping and unknown events, and everything after message_stop', () => {
    const translator = adapter.createChatStreamTranslator(anthropicContext({ stream: true }));
    expect(translator.onEvent({ event: 'ping', data: '{"type": "ping"}' })).toEqual([]);
    expect(translator.onEvent({ event: 'content_block_magic', data: 'not even json' })).toEqual([]);
    for (const event of events(TEXT_TURN)) translator.onEvent(event);
    expect(translator.onEvent({ event: 'content_block_delta', data: '{"index":0,"delta":{"type":"text_delta","text":"late"}}' })).toEqual([]);
    expect(translator.onEnd()).toEqual([]);
  });

  it('closes with a usage chunk when the upstream ends after the stop reason but before message_stop', () => {
    const withoutStop = events(TEXT_TURN).slice(0, -1);
    const chunks = translate(withoutStop);
    expect(chunks.at(-2)?.choices[0]?.finish_reason).toBe('stop');
    expect(chunks.at(-1)?.choices).toEqual([]);
    expect(chunks.at(-1)?.usage?.completion_tokens).toBe(15);
  });

  it('fails a stream that ends before any stop reason, or sends an unreadable event', () => {
    const truncated = events(TEXT_TURN).slice(0, 4);
    expect(() => translate(truncated)).toThrow(UpstreamStreamError);
    const translator = adapter.createChatStreamTranslator(anthropicContext({ stream: true }));
    try {
      translator.onEvent({ event: 'content_block_delta', data: '{"index":0,' });
      expect.unreachable();
    } catch (error) {
      expect((error as UpstreamStreamError).failure.status).toBe(502);
    }
  });
});
