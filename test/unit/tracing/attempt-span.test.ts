/**
 * An upstream attempt's client span: how its outcome is classified (as the failover loop treats the
 * error), and a served stream's span ended exactly once with the stream (completed, cut, or left by the
 * client), carrying the model, finish reasons and usage its chunks reported.
 */
import { SpanStatusCode } from '@opentelemetry/api';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { describe, expect, it } from 'vitest';
import { RouterError } from '../../../src/core/errors.js';
import type { ChatCompletionChunk } from '../../../src/formats/openai-chat.js';
import { UpstreamStreamError } from '../../../src/upstream/upstream-failure.js';
import { attemptServed, attemptThrew, finishWithStream, sendInAttemptSpan, startAttemptSpan } from '../../../src/routing/attempt-span.js';
import type { UpstreamClient } from '../../../src/upstream/upstream-client.js';
import type { CommittedStream } from '../../../src/routing/chat-attempts.js';
import { AttemptFailed, CandidateUnfit, type Candidate } from '../../../src/routing/failover.js';
import { UpstreamTransportError } from '../../../src/upstream/upstream-client.js';
import { memoryTracing } from './tracing-rig.js';

const candidate = {
  provider: { id: 'openai', format: 'openai', baseUrl: 'http://127.0.0.1:1/v1' },
  target: { provider: 'openai', model: 'gpt-4.1' },
  credential: 'unused',
  credentialSource: 'byok',
} as unknown as Candidate;

const live = new AbortController().signal;
const failure = (status: number, code: string | null = null) => ({ status, type: 'upstream_error', code, message: 'the provider said something' });

function outcomeOf(error: unknown, signal = live): ReadableSpan {
  const { tracing, spans } = memoryTracing();
  const { span } = startAttemptSpan(tracing.startRequest({}, 'POST /v1/chat/completions', {}).server, candidate, 1);
  attemptThrew(span, error, signal);
  const [ended] = spans();
  expect(ended!.status.code).toBe(SpanStatusCode.ERROR);
  return ended!;
}

describe('an attempt that threw', () => {
  it('a 5xx fails over, with the reason and the status', () => {
    expect(outcomeOf(new AttemptFailed(failure(503, 'overloaded'))).attributes).toMatchObject({
      'router.attempt.outcome': 'failed',
      'router.failover.reason': 'overloaded',
      'error.type': 'overloaded',
      'http.response.status_code': 503,
    });
  });

  it('a 4xx that is the request’s fault is rejected, no failover reason', () => {
    const span = outcomeOf(new AttemptFailed(failure(400, 'context_length_exceeded')));
    expect(span.attributes).toMatchObject({ 'router.attempt.outcome': 'rejected', 'error.type': 'context_length_exceeded', 'http.response.status_code': 400 });
    expect(span.attributes['router.failover.reason']).toBeUndefined();
  });

  it('a transport failure fails over without a status', () => {
    const span = outcomeOf(AttemptFailed.fromTransport(new UpstreamTransportError('first_byte_timeout')));
    expect(span.attributes).toMatchObject({ 'router.attempt.outcome': 'failed', 'router.failover.reason': 'first_byte_timeout' });
    expect(span.attributes['http.response.status_code']).toBeUndefined();
    expect(outcomeOf(new UpstreamTransportError('connection_error')).attributes).toMatchObject({ 'router.attempt.outcome': 'failed', 'error.type': 'connection_error' });
  });

  it('an error in the stream before the commit point is classified like a failed answer', () => {
    expect(outcomeOf(new UpstreamStreamError(failure(529, 'Overloaded Error'))).attributes).toMatchObject({ 'router.attempt.outcome': 'failed', 'router.failover.reason': 'overloaded_error' });
  });

  it('unfit, refused by the router, aborted by the client, and anything else', () => {
    expect(outcomeOf(new CandidateUnfit('empty_answer', 'nothing came')).attributes).toMatchObject({ 'router.attempt.outcome': 'unfit', 'router.failover.reason': 'empty_answer' });
    expect(outcomeOf(new RouterError('unsupported_parameter', 'no')).attributes).toMatchObject({ 'router.attempt.outcome': 'refused', 'error.type': 'unsupported_parameter' });
    const aborted = new AbortController();
    aborted.abort();
    expect(outcomeOf(new AttemptFailed(failure(503)), aborted.signal).attributes).toMatchObject({ 'router.attempt.outcome': 'aborted', 'error.type': 'aborted' });
    expect(outcomeOf(new TypeError('bug')).attributes).toMatchObject({ 'router.attempt.outcome': 'error', 'error.type': 'TypeError' });
  });

  it('never copies the upstream’s message into the span', () => {
    const span = outcomeOf(new AttemptFailed(failure(500, 'x')));
    expect(JSON.stringify(span.attributes)).not.toContain('the provider said something');
  });
});

const chunk = (fields: Partial<ChatCompletionChunk> & { finish?: string | null }): ChatCompletionChunk =>
  ({ id: 'c', object: 'chat.completion.chunk', created: 0, model: 'gpt-4.1-2025', choices: fields.finish === undefined ? [] : [{ index: 0, delta: {}, finish_reason: fields.finish }], ...fields }) as ChatCompletionChunk;

async function* upstream(chunks: ChatCompletionChunk[], failAtEnd?: Error): AsyncGenerator<ChatCompletionChunk> {
  for (const item of chunks) yield item;
  if (failAtEnd) throw failAtEnd;
}

/** A served attempt inside a request, its stream wrapped as the routing engine does. */
function servedStream(tail: AsyncIterator<ChatCompletionChunk>) {
  const { tracing, spans } = memoryTracing();
  const request = tracing.startRequest({}, 'POST /v1/chat/completions', {});
  const scope = startAttemptSpan(request.server, candidate, 1);
  attemptServed(scope);
  const stream = finishWithStream(request, scope.span, { head: [chunk({ finish: null })], tail } as CommittedStream<ChatCompletionChunk>);
  const attempt = () => spans().filter((span) => span.name === 'chat gpt-4.1');
  return { stream, attempt, request };
}

describe('a served stream’s attempt span', () => {
  it('ends when the stream completes, with its model, finish reasons and usage', async () => {
    const { stream, attempt, request } = servedStream(upstream([chunk({ finish: 'stop' }), chunk({ usage: { prompt_tokens: 7, completion_tokens: 3, total_tokens: 10 } })]));
    expect(attempt()).toHaveLength(0);
    while (!(await stream.tail.next()).done);
    expect(attempt()).toHaveLength(1);
    expect(attempt()[0]!.attributes).toMatchObject({
      'router.attempt.outcome': 'served',
      'gen_ai.response.model': 'gpt-4.1-2025',
      'gen_ai.response.finish_reasons': ['stop'],
      'gen_ai.usage.input_tokens': 7,
      'gen_ai.usage.output_tokens': 3,
    });
    // The request's end does not end it a second time.
    request.finishAll({ usage: null });
    expect(attempt()).toHaveLength(1);
  });

  it('ends as an error when the upstream cuts the stream', async () => {
    const { stream, attempt } = servedStream(upstream([chunk({ finish: null })], new UpstreamStreamError(failure(500))));
    await expect(async () => {
      while (!(await stream.tail.next()).done);
    }).rejects.toThrow(UpstreamStreamError);
    expect(attempt()).toHaveLength(1);
    expect(attempt()[0]!.status.code).toBe(SpanStatusCode.ERROR);
  });

  it('ends when the client leaves (the relay lets go of the stream), and the upstream stream is closed', async () => {
    let closed = false;
    const tail: AsyncIterator<ChatCompletionChunk> = {
      next: async () => ({ done: false, value: chunk({ finish: null }) }),
      return: async () => {
        closed = true;
        return { done: true, value: undefined };
      },
    };
    const { stream, attempt } = servedStream(tail);
    await stream.tail.next();
    await stream.tail.return!();
    expect(closed).toBe(true);
    expect(attempt()).toHaveLength(1);
    expect(attempt()[0]!.attributes['router.attempt.outcome']).toBe('served');
  });

  it('ends with the request when nobody read the stream to its end', () => {
    const { attempt, request } = servedStream(upstream([]));
    expect(attempt()).toHaveLength(0);
    request.finishAll({ usage: { prompt: 1, completion: 2, reasoning: 0, cached: 0 } });
    expect(attempt()).toHaveLength(1);
    expect(attempt()[0]!.attributes['gen_ai.usage.output_tokens']).toBe(2);
  });
});

describe('an upstream call in its attempt span', () => {
  it('sends the span’s traceparent and the client’s tracestate, leaves the request’s own headers alone, and records host, status and time to first byte', async () => {
    const { tracing, spans } = memoryTracing();
    const traceId = 'a'.repeat(32);
    const request = tracing.startRequest({ traceparent: `00-${traceId}-${'b'.repeat(16)}-01`, tracestate: 'client=1' }, 'POST /v1/chat/completions', {});
    const scope = startAttemptSpan(request.server, candidate, 1);
    const sent: Array<Record<string, string>> = [];
    const client = {
      send: async (_provider: unknown, upstream: { headers: Record<string, string> }) => {
        sent.push(upstream.headers);
        return { status: 429, headers: {}, text: async () => '', body: (async function* () {})() };
      },
      close: async () => undefined,
    } as unknown as UpstreamClient;
    const headers = { 'content-type': 'application/json' };
    const response = await sendInAttemptSpan(client, scope, candidate.provider, { url: 'http://127.0.0.1:1/v1/chat/completions', method: 'POST', headers, body: '{}' } as never, live);
    expect(response.status).toBe(429);
    expect(sent[0]).toMatchObject({ 'content-type': 'application/json', traceparent: `00-${traceId}-${scope.span.spanContext().spanId}-01`, tracestate: 'client=1' });
    expect(headers).toEqual({ 'content-type': 'application/json' });
    scope.span.end();
    const [ended] = spans();
    expect(ended!.attributes).toMatchObject({ 'server.address': '127.0.0.1', 'server.port': 1, 'http.response.status_code': 429 });
    expect(ended!.attributes['router.attempt.time_to_first_byte_ms']).toEqual(expect.any(Number));
  });
});
