import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { RouterError } from '../../../src/core/errors.js';
import type { ChatCompletionChunk } from '../../../src/formats/openai-chat.js';
import { ChatStreamEncoder } from '../../../src/http/encoders/chat-stream-encoder.js';
import { serveClientStream } from '../../../src/http/encoders/serve-client-stream.js';
import { FusionUsage } from '../../../src/http/fusion/fusion-report.js';
import { errorBody } from '../../../src/http/send-error.js';
import { FusionTrace, type FusionCall } from '../../../src/routing/fusion/index.js';
import { UpstreamStreamError } from '../../../src/upstream/upstream-failure.js';
import type { PriceBook } from '../../../src/usage/model-prices.js';
import { SERVED, SERVER, capturedResponse, committed, newRecord, parseSse, target } from './stream-encoders-harness.js';

const MODEL = 'router/frontier';
const NOT_STOPPED = new AbortController().signal;

function chunk(fields: Partial<ChatCompletionChunk> & Pick<ChatCompletionChunk, 'choices'>): ChatCompletionChunk {
  return { id: 'chatcmpl-up', object: 'chat.completion.chunk', created: 1_700_000_000, model: 'gpt-4.1', ...fields };
}

const USAGE = { prompt_tokens: 12, completion_tokens: 3, total_tokens: 15 };

/** Role, text, finish, then the upstream's usage chunk (choices: []), as an OpenAI-compatible upstream streams them. */
function answer(text: string): ChatCompletionChunk[] {
  return [
    chunk({ choices: [{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }] }),
    chunk({ choices: [{ index: 0, delta: { content: text }, finish_reason: null }] }),
    chunk({ choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] }),
    chunk({ choices: [], usage: { ...USAGE } }),
  ];
}

describe('ChatStreamEncoder through serveClientStream', () => {
  it('sends the routing headers, each chunk as one data frame with the client’s model, then [DONE], and fills the record', async () => {
    const response = capturedResponse();
    const record = newRecord();
    const stream = committed(answer('Hi').slice(0, 1), answer('Hi').slice(1));
    await serveClientStream(new ChatStreamEncoder(target(response, record), { model: MODEL, includeUsage: false }), async () => ({ value: stream, meta: SERVED }), { stopped: NOT_STOPPED });

    expect(response.status()).toBe(200);
    expect(response.headers()).toMatchObject({ 'x-router-upstream': 'openai', 'x-router-model': 'gpt-4.1', 'x-router-retry-count': '1', 'content-type': 'text/event-stream; charset=utf-8' });
    const { events } = parseSse(response.body());
    // Usage was not asked for: no usage field, and the upstream's usage chunk is not sent.
    expect(events.map((e) => e.data)).toEqual([...answer('Hi').slice(0, 3).map((c) => JSON.stringify({ ...c, model: MODEL })), '[DONE]']);
    expect(record).toMatchObject({ served: SERVED, firstByteAt: 1_700_000_000_000, finishReason: 'stop', usage: { prompt: 12, completion: 3, reasoning: 0, cached: 0 } });
    expect(record.errorCode).toBeUndefined();
    expect(stream.released()).toBe(true);
  });

  it('with include_usage: `usage: null` on every chunk and the usage chunk last', async () => {
    const response = capturedResponse();
    const stream = committed(answer('Hi'), []);
    await serveClientStream(new ChatStreamEncoder(target(response, newRecord()), { model: MODEL, includeUsage: true }), async () => ({ value: stream, meta: SERVED }), { stopped: NOT_STOPPED });
    const sent = parseSse(response.body()).events.map((e) => e.data);
    expect(sent.at(-1)).toBe('[DONE]');
    const chunks = sent.slice(0, -1).map((data) => JSON.parse(data) as ChatCompletionChunk);
    expect(chunks.map((c) => c.usage)).toEqual([null, null, null, USAGE]);
  });

  it('ends a stream whose upstream fails mid-way with the error frame, then [DONE], and records the code', async () => {
    const failure = { status: 429, type: 'rate_limit_error', code: 'rate_limit_exceeded', message: 'Slow down.' };
    const response = capturedResponse();
    const record = newRecord();
    const stream = committed(answer('Hi').slice(0, 1), answer('Hi').slice(1, 2), new UpstreamStreamError(failure));
    await serveClientStream(new ChatStreamEncoder(target(response, record), { model: MODEL, includeUsage: false }), async () => ({ value: stream, meta: SERVED }), { stopped: NOT_STOPPED });
    const sent = parseSse(response.body()).events.map((e) => e.data);
    expect(sent.slice(-2)).toEqual([JSON.stringify({ error: { message: 'Slow down.', type: 'rate_limit_error', code: 'rate_limit_exceeded', param: null } }), '[DONE]']);
    expect(record.errorCode).toBe('rate_limit_exceeded');
    expect(stream.released()).toBe(true);
  });

  it('reports an unexplained mid-stream failure as upstream_stream_interrupted', async () => {
    const response = capturedResponse();
    const record = newRecord();
    await serveClientStream(new ChatStreamEncoder(target(response, record), { model: MODEL, includeUsage: false }), async () => ({ value: committed(answer('Hi').slice(0, 1), [], new Error('socket hang up')), meta: SERVED }), { stopped: NOT_STOPPED });
    expect(JSON.parse(parseSse(response.body()).events.at(-2)!.data)).toMatchObject({ error: { code: 'upstream_stream_interrupted', type: 'upstream_error' } });
    expect(record.errorCode).toBe('upstream_stream_interrupted');
  });

  it('throws a failure before the commit point without writing anything (the pipeline answers it)', async () => {
    const response = capturedResponse();
    const refused = new RouterError('all_upstreams_failed', 'No upstream answered.');
    const serving = serveClientStream(new ChatStreamEncoder(target(response, newRecord()), { model: MODEL, includeUsage: false }), () => Promise.reject(refused), { stopped: NOT_STOPPED });
    await expect(serving).rejects.toBe(refused);
    expect(response.status()).toBeUndefined();
    expect(response.body()).toBe('');
  });

  it('model text can never add or split an event: every chunk comes back whole, in order', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.string({ unit: 'binary' }), { maxLength: 8 }), async (texts) => {
        const response = capturedResponse();
        const chunks = texts.map((text) => chunk({ choices: [{ index: 0, delta: { content: text }, finish_reason: null }] }));
        await serveClientStream(new ChatStreamEncoder(target(response, newRecord()), { model: MODEL, includeUsage: false }), async () => ({ value: committed([], chunks.map((c) => ({ ...c }))), meta: SERVED }), { stopped: NOT_STOPPED });
        const sent = parseSse(response.body()).events.map((e) => e.data);
        expect(sent).toEqual([...chunks.map((c) => JSON.stringify({ ...c, model: MODEL })), '[DONE]']);
      }),
      { numRuns: 100 },
    );
  });
});

describe('ChatStreamEncoder for fusion', () => {
  const writerCall: FusionCall = { label: 'writer', role: 'writer', provider: null, model: null, status: 'ok', error: null, usage: null, latencyMs: 5, retryCount: 0, attempts: [], credentialSource: null, used: true } as FusionCall;
  const prices = { priceOf: () => undefined } as unknown as PriceBook;

  it('drops the writer’s usage chunk and ends with one summary chunk (every call’s usage, the router object), recording the writer’s tokens', async () => {
    const trace = new FusionTrace();
    const panel: FusionCall = { ...writerCall, label: 'panel:1', role: 'panel', usage: { prompt: 100, completion: 10, reasoning: 0, cached: 0 } } as FusionCall;
    trace.calls.push(panel);
    const main: FusionCall = { ...writerCall };
    trace.calls.push(main);
    const fusion = { trace, main };
    const response = capturedResponse();
    const record = newRecord();
    const encoder = new ChatStreamEncoder(target(response, record, new FusionUsage(record, fusion, prices, false)), { model: 'router/fusion', includeUsage: true });
    await serveClientStream(encoder, async () => ({ value: committed(answer('Hi'), []), meta: SERVED }), { stopped: NOT_STOPPED, keepAliveMs: 60_000 });

    const sent = parseSse(response.body()).events.map((e) => e.data);
    expect(sent.at(-1)).toBe('[DONE]');
    const chunks = sent.slice(0, -1).map((data) => JSON.parse(data) as ChatCompletionChunk & { router?: { calls: unknown[] } });
    expect(chunks.slice(0, 3).every((c) => !('usage' in c) && c.model === 'router/fusion')).toBe(true);
    const summary = chunks.at(-1)!;
    expect(summary).toMatchObject({ id: 'chatcmpl-up', created: 1_700_000_000, choices: [], usage: { prompt_tokens: 112, completion_tokens: 13, total_tokens: 125 } });
    expect(summary.router?.calls).toHaveLength(2);
    expect(chunks).toHaveLength(4);
    expect(main.usage).toEqual({ prompt: 12, completion: 3, reasoning: 0, cached: 0 });
    expect(record.usage).toBe(main.usage);
  });

  it('sends keep-alive comments while the plan runs, opening the stream without routing headers', async () => {
    const response = capturedResponse();
    const record = newRecord();
    const fusion = { trace: new FusionTrace() };
    const encoder = new ChatStreamEncoder(target(response, record, new FusionUsage(record, fusion, prices, false)), { model: 'router/fusion', includeUsage: false });
    const slow = new Promise<void>((resolve) => setTimeout(resolve, 60));
    await serveClientStream(encoder, async () => (await slow, { value: committed(answer('Hi'), []), meta: SERVED }), { stopped: NOT_STOPPED, keepAliveMs: 10 });
    const { comments, events } = parseSse(response.body());
    expect(comments.length).toBeGreaterThan(0);
    expect(comments.every((c) => c === 'keep-alive')).toBe(true);
    expect(response.body().startsWith(': keep-alive\n\n')).toBe(true);
    expect(response.headers()).not.toHaveProperty('x-router-upstream');
    expect(events.at(-1)?.data).toBe('[DONE]');
  });

  it('reports a plan that fails after keep-alives opened the stream in-band (error frame, [DONE]) and re-throws it', async () => {
    const response = capturedResponse();
    const record = newRecord();
    const encoder = new ChatStreamEncoder(target(response, record, new FusionUsage(record, { trace: new FusionTrace() }, prices, false)), { model: 'router/fusion', includeUsage: false });
    const refused = new RouterError('all_upstreams_failed', 'No panel member answered.');
    const failing = new Promise<never>((_resolve, reject) => setTimeout(() => reject(refused), 40));
    await expect(serveClientStream(encoder, () => failing, { stopped: NOT_STOPPED, keepAliveMs: 10 })).rejects.toBe(refused);
    const sent = parseSse(response.body()).events.map((e) => e.data);
    expect(sent).toEqual([JSON.stringify(errorBody(refused, SERVER)), '[DONE]']);
    expect(record.errorCode).toBe('all_upstreams_failed');
  });
});
