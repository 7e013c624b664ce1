import { describe, expect, it } from 'vitest';
import type { ChatCompletionChunk } from '../../../../src/formats/openai-chat.js';
import { UpstreamStreamError } from '../../../../src/upstream/upstream-failure.js';
import { createGeminiAdapter } from '../../../../src/providers/gemini/index.js';
import type { SseEvent } from '../../../../src/upstream/sse-event.js';
import { fixedClock, geminiContext } from './gemini-test-context.js';

const data = (body: unknown): SseEvent => ({ event: undefined, data: JSON.stringify(body) });

function translator() {
  return createGeminiAdapter({ clock: fixedClock }).createChatStreamTranslator(geminiContext({ stream: true }));
}

function run(events: SseEvent[]): ChatCompletionChunk[] {
  const t = translator();
  return [...events.flatMap((event) => t.onEvent(event)), ...t.onEnd()];
}

const textEvent = (text: string, extra: Record<string, unknown> = {}, usage: Record<string, number> = { promptTokenCount: 7, totalTokenCount: 7 }) =>
  data({
    candidates: [{ content: { role: 'model', parts: [{ text }] }, index: 0, ...extra }],
    usageMetadata: usage,
    modelVersion: 'gemini-2.5-flash',
    responseId: 'resp-1',
  });

const base = { id: 'resp-1', object: 'chat.completion.chunk', created: 1_760_000_000, model: 'gemini-2.5-flash' };

describe('Gemini stream → chat chunks', () => {
  it('streams text deltas, a finish chunk, and one usage chunk at the end', () => {
    const chunks = run([
      textEvent('héllo '),
      textEvent('👋 '),
      textEvent('世界', { finishReason: 'STOP' }, { promptTokenCount: 7, candidatesTokenCount: 5, thoughtsTokenCount: 2, totalTokenCount: 14 }),
    ]);
    expect(chunks).toEqual([
      { ...base, choices: [{ index: 0, delta: { role: 'assistant', content: 'héllo ' }, finish_reason: null }] },
      { ...base, choices: [{ index: 0, delta: { content: '👋 ' }, finish_reason: null }] },
      { ...base, choices: [{ index: 0, delta: { content: '世界' }, finish_reason: null }] },
      { ...base, choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] },
      {
        ...base,
        choices: [],
        usage: {
          prompt_tokens: 7,
          completion_tokens: 7,
          total_tokens: 14,
          prompt_tokens_details: { cached_tokens: 0 },
          completion_tokens_details: { reasoning_tokens: 2 },
        },
      },
    ]);
  });

  it('emits each function call as one complete tool-call delta, its signature in reasoning_details, and finishes with tool_calls', () => {
    const chunks = run(
      [
        data({
          candidates: [
            {
              content: {
                role: 'model',
                parts: [
                  { functionCall: { name: 'get_weather', args: { city: 'Paris' } }, thoughtSignature: 'c2ln' },
                  { functionCall: { name: 'get_time', args: { tz: 'CET' } } },
                ],
              },
              finishReason: 'STOP',
              index: 0,
            },
          ],
          responseId: 'resp-1',
          modelVersion: 'gemini-2.5-flash',
        }),
      ],
    );
    expect(chunks).toHaveLength(2);
    const calls = chunks[0]!.choices[0]!.delta.tool_calls!;
    expect(chunks[0]!.choices[0]!.delta.role).toBe('assistant');
    expect(calls.map(({ index, type, function: fn }) => ({ index, type, fn }))).toEqual([
      { index: 0, type: 'function', fn: { name: 'get_weather', arguments: '{"city":"Paris"}' } },
      { index: 1, type: 'function', fn: { name: 'get_time', arguments: '{"tz":"CET"}' } },
    ]);
    expect(calls[0]!.id).toMatch(/^call_[0-9A-Za-z]{24}$/);
    expect(chunks[0]!.choices[0]!.delta.reasoning_details).toEqual([{ type: 'reasoning.encrypted', data: 'c2ln', id: calls[0]!.id, format: 'google-gemini-v1', index: 0 }]);
    expect(chunks[1]!.choices).toEqual([{ index: 0, delta: {}, finish_reason: 'tool_calls' }]);
  });

  it('numbers tool calls across events and sends thought text as reasoning_content', () => {
    const chunks = run([
      data({ candidates: [{ content: { parts: [{ text: 'thinking', thought: true }] } }] }),
      data({ candidates: [{ content: { parts: [{ functionCall: { name: 'a', args: {} } }] } }] }),
      data({ candidates: [{ content: { parts: [{ functionCall: { name: 'b', args: {} } }] }, finishReason: 'STOP' }] }),
    ]);
    expect(chunks[0]!.choices[0]!.delta).toEqual({ role: 'assistant', reasoning_content: 'thinking' });
    expect(chunks[1]!.choices[0]!.delta.tool_calls![0]!.index).toBe(0);
    expect(chunks[2]!.choices[0]!.delta.tool_calls![0]!.index).toBe(1);
    expect(chunks[3]!.choices[0]!.finish_reason).toBe('tool_calls');
    expect(chunks).toHaveLength(4);
  });

  it('throws upstream_stream_interrupted for a stream that ended without finishReason, never inventing a stop', () => {
    const t = translator();
    expect(t.onEvent(textEvent('partial')).map((chunk) => chunk.choices[0]?.finish_reason)).toEqual([null]);
    expect(() => t.onEnd()).toThrow(UpstreamStreamError);
    try {
      translator().onEnd();
    } catch (error) {
      expect((error as UpstreamStreamError).failure).toMatchObject({ status: 502, code: 'upstream_stream_interrupted' });
    }
  });

  it('reports a blocked prompt as content_filter', () => {
    const chunks = run([data({ promptFeedback: { blockReason: 'SAFETY' }, usageMetadata: { promptTokenCount: 3, totalTokenCount: 3 } })]);
    expect(chunks.map((chunk) => chunk.choices[0]?.finish_reason ?? 'usage')).toEqual(['content_filter', 'usage']);
  });

  it('throws an UpstreamStreamError for a bare JSON error object inside the 200 stream', () => {
    const t = translator();
    expect(t.onEvent(textEvent('hi'))).toHaveLength(1);
    const raw = JSON.stringify({ error: { code: 503, message: 'The model is overloaded. Please try again later.', status: 'UNAVAILABLE' } }, null, 2);
    let thrown: unknown;
    try {
      t.onEvent({ event: undefined, data: '', raw });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(UpstreamStreamError);
    expect((thrown as UpstreamStreamError).failure).toEqual({
      status: 503,
      type: 'server_error',
      code: 'overloaded',
      message: 'The model is overloaded. Please try again later.',
    });
  });

  it('throws an UpstreamStreamError for a data line carrying an error key', () => {
    const event = data({ error: { code: 429, message: 'Quota exceeded', status: 'RESOURCE_EXHAUSTED', details: [{ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '12s' }] } });
    expect(() => translator().onEvent(event)).toThrow(
      expect.objectContaining({ failure: { status: 429, type: 'rate_limit_error', code: 'rate_limit_exceeded', message: 'Quota exceeded', retryAfterSeconds: 12 } }),
    );
  });

  it('throws an UpstreamStreamError for a data line that is not JSON', () => {
    expect(() => translator().onEvent({ event: undefined, data: '{"candidates": [' })).toThrow(
      expect.objectContaining({ failure: expect.objectContaining({ status: 502, type: 'server_error' }) }),
    );
  });
});
