import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { RouterError } from '../../../src/core/errors.js';
import type { MessagesStreamEvent } from '../../../src/formats/anthropic-messages.js';
import { MessagesStreamEncoder } from '../../../src/http/encoders/messages-stream-encoder.js';
import { ResponsesStreamEncoder } from '../../../src/http/encoders/responses-stream-encoder.js';
import { serveClientStream } from '../../../src/http/encoders/serve-client-stream.js';
import { FusionUsage } from '../../../src/http/fusion/fusion-report.js';
import { messagesErrorBody } from '../../../src/http/send-messages-error.js';
import { FusionTrace } from '../../../src/routing/fusion/index.js';
import type { ResponsesOutEvent } from '../../../src/routing/responses-attempts.js';
import { UpstreamStreamError } from '../../../src/upstream/upstream-failure.js';
import type { PriceBook } from '../../../src/usage/model-prices.js';
import { SERVED, SERVER, capturedResponse, committed, newRecord, parseSse, target } from './stream-encoders-harness.js';

const NOT_STOPPED = new AbortController().signal;

/** A committed stream with the `fail` every typed stream has; records what it was asked to fail with. */
function failingStream<Event, Failure>(head: Event[], tail: Event[], error: Error | undefined, failEvents: (failure: Failure) => Event[]) {
  const asked: Failure[] = [];
  const stream = committed(head, tail, error);
  return {
    asked,
    stream: {
      ...stream,
      fail(failure: Failure): Event[] {
        asked.push(failure);
        return failEvents(failure);
      },
    },
  };
}

describe('ResponsesStreamEncoder', () => {
  const completed = (): ResponsesOutEvent => ({
    type: 'response.incomplete',
    sequence_number: 2,
    response: { status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' }, usage: { input_tokens: 20, output_tokens: 7, total_tokens: 27, output_tokens_details: { reasoning_tokens: 2 } } },
  });

  it('writes typed events and records the final response’s usage and end', async () => {
    const response = capturedResponse();
    const record = newRecord();
    const events: ResponsesOutEvent[] = [{ type: 'response.created', sequence_number: 0 }, { type: 'response.output_text.delta', sequence_number: 1 }, completed()];
    const { stream } = failingStream(events.slice(0, 1), events.slice(1), undefined, () => []);
    await serveClientStream(new ResponsesStreamEncoder(target(response, record)), async () => ({ value: stream, meta: SERVED }), { stopped: NOT_STOPPED });
    expect(parseSse(response.body()).events).toEqual(events.map((e) => ({ event: e.type, data: JSON.stringify(e) })));
    expect(record).toMatchObject({ finishReason: 'incomplete:max_output_tokens', usage: { prompt: 20, completion: 7, reasoning: 2 }, served: SERVED });
  });

  it('ends a failed stream with the stream’s own response.failed, keeping the codes Codex acts on, and nothing after it', async () => {
    const response = capturedResponse();
    const record = newRecord();
    const failure = { status: 429, type: 'rate_limit_error', code: 'rate_limit_exceeded', message: 'Slow down.', retryAfterSeconds: 3 };
    const { stream, asked } = failingStream<ResponsesOutEvent, { code: string }>([{ type: 'response.created', sequence_number: 0 }], [], new UpstreamStreamError(failure), ({ code }) => [{ type: 'response.failed', sequence_number: 1, response: { status: 'failed', error: { code } } }]);
    await serveClientStream(new ResponsesStreamEncoder(target(response, record)), async () => ({ value: stream, meta: SERVED }), { stopped: NOT_STOPPED });
    expect(asked).toEqual([{ code: 'rate_limit_exceeded', message: 'Slow down.', retryAfterSeconds: 3 }]);
    expect(parseSse(response.body()).events.map((e) => e.event)).toEqual(['response.created', 'response.failed']);
    expect(record.errorCode).toBe('rate_limit_exceeded');
  });

  it('says server_shutting_down when the drain deadline stopped the stream, server_error for codes Codex does not act on', async () => {
    for (const [stopped, code, expected] of [
      [AbortSignal.abort(), 'anything', 'server_shutting_down'],
      [NOT_STOPPED, 'upstream_stream_interrupted', 'server_error'],
    ] as const) {
      const { stream, asked } = failingStream<ResponsesOutEvent, { code: string }>([], [], new UpstreamStreamError({ status: 502, type: 'upstream_error', code, message: 'Gone.' }), () => []);
      await serveClientStream(new ResponsesStreamEncoder(target(capturedResponse(), newRecord())), async () => ({ value: stream, meta: SERVED }), { stopped });
      expect(asked[0]?.code).toBe(expected);
    }
  });

  it('puts fusion’s summed usage and router object on the final response', async () => {
    const response = capturedResponse();
    const record = newRecord();
    const fusion = { trace: new FusionTrace() };
    const report = new FusionUsage(record, fusion, { priceOf: () => undefined } as unknown as PriceBook, false);
    const { stream } = failingStream([completed()], [], undefined, () => []);
    await serveClientStream(new ResponsesStreamEncoder(target(response, record, report)), async () => ({ value: stream, meta: SERVED }), { stopped: NOT_STOPPED });
    const final = JSON.parse(parseSse(response.body()).events[0]!.data) as { response: { usage: unknown; router: unknown } };
    expect(final.response.usage).toMatchObject({ input_tokens: 0, output_tokens: 0, total_tokens: 0 });
    expect(final.response.router).toEqual({ fusion: { analysis: fusion.trace.analysis, tool_runs: 0 }, calls: [] });
    expect(record.usage).toMatchObject({ prompt: 20, completion: 7 });
  });

  it('event data round-trips whatever the event carries', async () => {
    const eventName = fc.stringMatching(/^[a-z][a-z_.]{0,30}$/);
    await fc.assert(
      fc.asyncProperty(fc.array(fc.record({ type: eventName, text: fc.string({ unit: 'binary' }) }), { maxLength: 6 }), async (items) => {
        const response = capturedResponse();
        const events: ResponsesOutEvent[] = items.map((item, index) => ({ ...item, sequence_number: index }));
        const { stream } = failingStream([], events.map((e) => ({ ...e })), undefined, () => []);
        await serveClientStream(new ResponsesStreamEncoder(target(response, newRecord())), async () => ({ value: stream, meta: SERVED }), { stopped: NOT_STOPPED });
        expect(parseSse(response.body()).events).toEqual(events.map((e) => ({ event: e.type, data: JSON.stringify(e) })));
      }),
      { numRuns: 100 },
    );
  });
});

describe('MessagesStreamEncoder', () => {
  const events = (): MessagesStreamEvent[] => [
    { type: 'message_start', message: { id: 'msg_1', usage: { input_tokens: 30, cache_read_input_tokens: 5, output_tokens: 1 } } },
    { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Hi' } },
    { type: 'message_delta', delta: { stop_reason: 'end_turn' }, usage: { output_tokens: 9 } },
    { type: 'message_stop' },
  ];

  it('records message_start’s prompt with message_delta’s cumulative output, and the stop reason', async () => {
    const response = capturedResponse();
    const record = newRecord();
    const { stream } = failingStream(events().slice(0, 1), events().slice(1), undefined, () => []);
    await serveClientStream(new MessagesStreamEncoder(target(response, record)), async () => ({ value: stream, meta: SERVED }), { stopped: NOT_STOPPED });
    expect(parseSse(response.body()).events).toEqual(events().map((e) => ({ event: e.type, data: JSON.stringify(e) })));
    expect(record).toMatchObject({ finishReason: 'end_turn', usage: { prompt: 35, completion: 9, cached: 5 } });
  });

  it('ends a failed stream with Anthropic’s in-stream error of the failure’s type', async () => {
    const response = capturedResponse();
    const record = newRecord();
    const { stream, asked } = failingStream<MessagesStreamEvent, { type: string; message: string }>(events().slice(0, 1), [], new UpstreamStreamError({ status: 529, type: 'upstream_error', code: 'overloaded', message: 'Busy.' }), (failure) => [{ type: 'error', error: failure }]);
    await serveClientStream(new MessagesStreamEncoder(target(response, record)), async () => ({ value: stream, meta: SERVED }), { stopped: NOT_STOPPED });
    expect(asked).toEqual([{ type: 'overloaded_error', message: 'Busy.' }]);
    expect(parseSse(response.body()).events.map((e) => e.event)).toEqual(['message_start', 'error']);
    expect(record.errorCode).toBe('overloaded');
  });

  it('reports a fusion plan failing behind keep-alives as Anthropic’s error event, with no terminator', async () => {
    const response = capturedResponse();
    const record = newRecord();
    const report = new FusionUsage(record, { trace: new FusionTrace() }, { priceOf: () => undefined } as unknown as PriceBook, false, true);
    const refused = new RouterError('all_upstreams_failed', 'No panel member answered.');
    const failing = new Promise<never>((_resolve, reject) => setTimeout(() => reject(refused), 40));
    await expect(serveClientStream(new MessagesStreamEncoder(target(response, record, report)), () => failing, { stopped: NOT_STOPPED, keepAliveMs: 10 })).rejects.toBe(refused);
    expect(parseSse(response.body()).events).toEqual([{ event: 'error', data: JSON.stringify({ type: 'error', error: messagesErrorBody(refused, SERVER, 'req_1').error }) }]);
    expect(record.errorCode).toBe('all_upstreams_failed');
  });
});
