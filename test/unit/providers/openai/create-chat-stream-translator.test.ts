import { describe, expect, it } from 'vitest';
import { type ChatStreamTranslator } from '../../../../src/providers/adapter.js';
import { UpstreamStreamError } from '../../../../src/upstream/upstream-failure.js';
import type { ChatCompletionChunk } from '../../../../src/formats/openai-chat.js';
import { createChatStreamTranslator } from '../../../../src/providers/openai/create-chat-stream-translator.js';
import type { SseEvent } from '../../../../src/upstream/sse-event.js';
import { openaiContext } from './openai-context.js';

const base = { id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1_700_000_000, model: 'llama3' };

function data(json: unknown): SseEvent {
  return { event: undefined, data: JSON.stringify(json) };
}

function chunk(delta: Record<string, unknown>, finishReason: string | null = null, extra: Record<string, unknown> = {}): SseEvent {
  return data({ ...base, choices: [{ index: 0, delta, finish_reason: finishReason }], ...extra });
}

function translate(events: SseEvent[], translator: ChatStreamTranslator = createChatStreamTranslator(openaiContext())): ChatCompletionChunk[] {
  return [...events.flatMap((event) => translator.onEvent(event)), ...translator.onEnd()];
}

function caught(run: () => unknown): UpstreamStreamError {
  try {
    run();
  } catch (error) {
    if (error instanceof UpstreamStreamError) return error;
    throw error;
  }
  throw new Error('expected an UpstreamStreamError');
}

describe('createChatStreamTranslator', () => {
  it('passes standard chunks through and adds nothing when the stream finished properly', () => {
    const out = translate([chunk({ role: 'assistant', content: '' }), chunk({ content: 'Hi' }), chunk({}, 'stop'), { event: undefined, data: '[DONE]' }]);
    expect(out.map((c) => c.choices[0])).toEqual([
      { index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null },
      { index: 0, delta: { content: 'Hi' }, finish_reason: null },
      { index: 0, delta: {}, finish_reason: 'stop' },
    ]);
    expect(out[1]).toMatchObject(base);
  });

  it('keeps only the object choices of a host that sent others, numbering index-less ones by their place among those', () => {
    const out = translate([
      data({ ...base, choices: [null, 'text', { delta: { content: 'a' } }, 7, { index: 5, delta: { content: 'b' }, finish_reason: 'stop', logprobs: null }] }),
      data({ ...base, choices: [{ delta: { content: 'c' } }] }),
      data({ ...base, choices: 'not a list' }),
      chunk({}, 'stop'),
      { event: undefined, data: '[DONE]' },
    ]);
    expect(out.map((c) => c.choices)).toEqual([
      [
        { index: 0, delta: { content: 'a' }, finish_reason: null },
        { index: 5, delta: { content: 'b' }, finish_reason: 'stop', logprobs: null },
      ],
      [{ index: 0, delta: { content: 'c' }, finish_reason: null }],
      [],
      [{ index: 0, delta: {}, finish_reason: 'stop' }],
    ]);
  });

  it('ignores everything after [DONE]', () => {
    const translator = createChatStreamTranslator(openaiContext());
    expect(translator.onEvent({ event: undefined, data: '[DONE]' })).toEqual([]);
    expect(translator.onEvent(chunk({ content: 'late' }))).toEqual([]);
    expect(translator.onEvent({ event: undefined, data: 'not json' })).toEqual([]);
    expect(translator.onEnd()).toEqual([]);
  });

  it('throws upstream_stream_interrupted when the stream ends with neither a finish_reason nor [DONE], never inventing one', () => {
    const translator = createChatStreamTranslator(openaiContext());
    translator.onEvent(chunk({ role: 'assistant' }));
    translator.onEvent(chunk({ content: 'partial' }));
    expect(caught(() => translator.onEnd()).failure).toMatchObject({ status: 502, code: 'upstream_stream_interrupted' });
    expect(caught(() => translate([chunk({ role: 'assistant', content: '' })])).failure.code).toBe('upstream_stream_interrupted');
    expect(caught(() => translate([])).failure.code).toBe('upstream_stream_interrupted');
  });

  it('is complete when every choice finished, even without [DONE]', () => {
    expect(translate([chunk({ content: 'Hi' }), chunk({}, 'stop')]).at(-1)?.choices[0]?.finish_reason).toBe('stop');
  });

  it('quirk: closes the choices of a host that said [DONE] without a finish_reason (tool_calls when the output was a call)', () => {
    const DONE = { event: undefined, data: '[DONE]' };
    const out = translate([chunk({ role: 'assistant' }), chunk({ content: 'whole' }), DONE]);
    expect(out.at(-1)).toEqual({ ...base, choices: [{ index: 0, delta: {}, finish_reason: 'stop', logprobs: null }] });
    const call = translate([chunk({ tool_calls: [{ index: 0, id: 'call_1', type: 'function', function: { name: 'f', arguments: '{}' } }] }), DONE]);
    expect(call.at(-1)?.choices).toEqual([{ index: 0, delta: {}, finish_reason: 'tool_calls', logprobs: null }]);
    expect(translate([chunk({ role: 'assistant', content: '' }), DONE])).toHaveLength(1);
  });

  it('moves quirk(groq) x_groq.usage into usage and drops the vendor field', () => {
    const usage = { prompt_tokens: 5, completion_tokens: 3, total_tokens: 8 };
    const [out] = translate([chunk({}, 'stop', { x_groq: { id: 'req_1', usage } })]);
    expect(out?.usage).toEqual(usage);
    expect(out !== undefined && 'x_groq' in out).toBe(false);
  });

  it('keeps standard usage and the usage-only chunk with empty choices', () => {
    const usage = { prompt_tokens: 1, completion_tokens: 2, total_tokens: 3 };
    expect(translate([data({ ...base, choices: [], usage }), { event: undefined, data: '[DONE]' }])).toEqual([{ ...base, choices: [], usage }]);
  });

  it('splits quirk(ollama) parallel calls that all use index 0 and renumbers them densely', () => {
    const out = translate([
      chunk({ tool_calls: [{ index: 0, id: 'call_a', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }] }),
      chunk({ tool_calls: [{ index: 0, id: 'call_b', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Oslo"}' } }] }),
      chunk({}, 'tool_calls'),
    ]);
    expect(out.flatMap((c) => c.choices[0]?.delta.tool_calls ?? []).map((call) => [call.index, call.id])).toEqual([
      [0, 'call_a'],
      [1, 'call_b'],
    ]);
  });

  it('continues id-less fragments by index and index-less fragments on the open call', () => {
    const out = translate([
      chunk({ tool_calls: [{ index: 3, id: 'call_x', type: 'function', function: { name: 'f', arguments: '' } }] }),
      chunk({ tool_calls: [{ index: 3, function: { arguments: '{"a"' } }] }),
      chunk({ tool_calls: [{ index: 7, id: 'call_y', type: 'function', function: { name: 'g', arguments: '' } }] }),
      chunk({ tool_calls: [{ index: 3, function: { arguments: ':1}' } }] }),
      chunk({ tool_calls: [{ function: { arguments: '{}' } }] }),
      chunk({ tool_calls: [{ index: 7, id: 'call_y', function: { arguments: '' } }] }),
      chunk({}, 'tool_calls'),
    ]);
    expect(out.flatMap((c) => c.choices[0]?.delta.tool_calls ?? []).map((call) => call.index)).toEqual([0, 0, 1, 0, 0, 1]);
  });

  it('starts a new call when a different function name follows arguments on the same index', () => {
    const out = translate([
      chunk({ tool_calls: [{ index: 0, function: { name: 'a', arguments: '{}' } }] }),
      chunk({ tool_calls: [{ index: 0, function: { name: 'b', arguments: '{}' } }] }),
      chunk({}, 'tool_calls'),
    ]);
    expect(out.flatMap((c) => c.choices[0]?.delta.tool_calls ?? []).map((call) => call.index)).toEqual([0, 1]);
  });

  it('throws the mapped failure for an in-band error object', () => {
    const error = caught(() =>
      translate([chunk({ content: 'Hel' }), data({ error: { message: 'Rate limit reached', type: 'requests', param: null, code: 'rate_limit_exceeded' } })]),
    );
    expect(error.failure).toEqual({ status: 429, type: 'rate_limit_error', code: 'rate_limit_exceeded', message: 'Rate limit reached', param: null });
  });

  it('throws for an `event: error` even when its data is not JSON', () => {
    const error = caught(() => translate([{ event: 'error', data: 'upstream overloaded' }]));
    expect(error.failure.status).toBe(502);
    expect(error.failure.message).toBe('The upstream provider reported an error inside the stream.');
  });

  it('throws for a bare JSON error object outside any data line', () => {
    const raw = '{"error": {"code": 503, "message": "The model is overloaded.", "status": "UNAVAILABLE"}}';
    const error = caught(() => translate([{ event: undefined, data: '', raw }]));
    expect(error.failure).toMatchObject({ status: 503, message: 'The model is overloaded.', type: 'server_error' });
  });

  it('ignores raw lines that are not an error', () => {
    expect(translate([{ event: undefined, data: '', raw: 'garbage from a proxy' }, { event: undefined, data: '[DONE]' }])).toEqual([]);
  });

  it('throws a malformed-stream failure for data that is not JSON', () => {
    expect(caught(() => translate([{ event: undefined, data: '{"trunc' }])).failure).toMatchObject({ status: 502, code: 'invalid_upstream_response' });
  });
});
