import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startOpenAIFake, type OpenAIFake } from '../../../fakes/openai-fake.js';
import { createOpenAIAdapter } from '../../../../src/providers/openai/index.js';
import { systemClock } from '../../../../src/core/clock.js';
import { UpstreamStreamError } from '../../../../src/upstream/upstream-failure.js';
import { createSseDecoder } from '../../../../src/upstream/sse-decoder.js';
import type { SseEvent } from '../../../../src/upstream/sse-event.js';
import { openaiContext } from './openai-context.js';

const openaiAdapter = createOpenAIAdapter(systemClock);
const DEFAULT_TEXT = 'Hello from openai-fake: héllo 👋 世界';
let fake: OpenAIFake;
let client: OpenAI;

beforeAll(async () => {
  fake = await startOpenAIFake();
  client = new OpenAI({ apiKey: 'sk-fake-key', baseURL: fake.baseUrl, maxRetries: 0 });
});
afterAll(() => fake.close());
beforeEach(() => fake.reset());

function post(path: string, body: unknown, headers: Record<string, string> = { authorization: 'Bearer sk-fake-key' }): Promise<Response> {
  return fetch(`${fake.baseUrl}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
}

/** Reads a streamed body through the project's decoder, counting the network reads it took. */
async function readEvents(response: Response): Promise<{ events: SseEvent[]; reads: number }> {
  const decoder = createSseDecoder();
  const events: SseEvent[] = [];
  let reads = 0;
  for await (const bytes of response.body as unknown as AsyncIterable<Uint8Array>) {
    reads += 1;
    events.push(...decoder.push(bytes));
  }
  return { events: [...events, ...decoder.end()], reads };
}

const chatStream = { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Hi' }], stream: true, stream_options: { include_usage: true } };

describe('openai fake streamed through the decoder and the adapter', () => {
  it('reassembles the exact text when every byte arrives in its own write', async () => {
    fake.setReply({ splitBytes: 1 });
    const { events, reads } = await readEvents(await post('/chat/completions', chatStream));
    expect(reads).toBeGreaterThan(100);
    const translator = openaiAdapter.createChatStreamTranslator(openaiContext({}, { stream: true }));
    const chunks = [...events.flatMap((event) => translator.onEvent(event)), ...translator.onEnd()];
    expect(chunks.map((chunk) => chunk.choices[0]?.delta.content ?? '').join('')).toBe(DEFAULT_TEXT);
    expect(chunks.at(-1)).toMatchObject({ choices: [], usage: { prompt_tokens: 10, completion_tokens: 20, total_tokens: 30 } });
    expect(events.at(-1)?.data).toBe('[DONE]');
  });

  it('frames the responses stream with event lines and increasing sequence numbers', async () => {
    fake.setReply({ splitBytes: 3 });
    const { events } = await readEvents(await post('/responses', { model: 'gpt-4o', input: 'Hi', stream: true }));
    const parsed = events.map((event) => JSON.parse(event.data) as { type: string; sequence_number: number; delta?: string });
    expect(events.map((event) => event.event)).toEqual(parsed.map((event) => event.type));
    expect(parsed.map((event) => event.sequence_number)).toEqual(parsed.map((_, i) => i));
    expect(parsed[0]?.type).toBe('response.created');
    expect(parsed.at(-1)?.type).toBe('response.completed');
    expect(parsed.flatMap((event) => (event.type === 'response.output_text.delta' ? [event.delta] : [])).join('')).toBe(DEFAULT_TEXT);
  });
});

describe('openai fake through the official SDK', () => {
  it('answers a chat completion and records the request with its credential', async () => {
    const completion = await client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Hi' }] });
    expect(completion.choices[0]?.message.content).toBe(DEFAULT_TEXT);
    expect(completion.usage?.total_tokens).toBe(30);
    expect(fake.requests).toHaveLength(1);
    expect(fake.requests[0]).toMatchObject({ method: 'POST', path: '/v1/chat/completions', body: { model: 'gpt-4o-mini' } });
    expect(fake.lastHeaders()?.authorization).toBe('Bearer sk-fake-key');
  });

  it('streams tool calls as fragments the SDK assembles', async () => {
    fake.setReply({ toolCalls: [{ name: 'get_weather', arguments: { city: 'Zürich' } }, { name: 'get_time', arguments: { zone: 'Europe/Zurich' } }] });
    const stream = client.chat.completions.stream({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Weather?' }] });
    const final = await stream.finalChatCompletion();
    expect(final.choices[0]?.finish_reason).toBe('tool_calls');
    expect(final.choices[0]?.message.tool_calls?.map((call) => call.type === 'function' && [call.function.name, call.function.arguments])).toEqual([
      ['get_weather', '{"city":"Zürich"}'],
      ['get_time', '{"zone":"Europe/Zurich"}'],
    ]);
  });

  it('serves native Responses, JSON and streamed', async () => {
    const response = await client.responses.create({ model: 'gpt-4o', input: 'Hi' });
    expect(response.output_text).toBe(DEFAULT_TEXT);
    expect(response.usage?.total_tokens).toBe(30);
    const stream = client.responses.stream({ model: 'gpt-4o', input: 'Hi' });
    expect((await stream.finalResponse()).output_text).toBe(DEFAULT_TEXT);
  });

  it('lists models', async () => {
    const page = await client.models.list();
    expect(page.data.map((model) => model.id)).toEqual(['gpt-4o-mini', 'gpt-4o', 'gpt-4.1']);
  });

  it('rejects a request without a bearer credential with OpenAI\'s 401 body', async () => {
    const response = await post('/chat/completions', chatStream, {});
    expect(response.status).toBe(401);
    expect(((await response.json()) as { error: { type: string; code: null } }).error).toMatchObject({ type: 'invalid_request_error', code: null });
    const wrongScheme = await post('/chat/completions', chatStream, { authorization: 'Basic abc' });
    expect(((await wrongScheme.json()) as { error: { code: string } }).error.code).toBe('invalid_api_key');
  });
});

describe('openai fake refuses tool-call history as OpenAI does', () => {
  const call = (id: string) => ({ role: 'assistant', content: null, tool_calls: [{ id, type: 'function', function: { name: 'f', arguments: '{}' } }] });
  const result = (id: string) => ({ role: 'tool', tool_call_id: id, content: 'ok' });
  const chat = (messages: unknown[]) => post('/chat/completions', { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Go' }, ...messages] });

  it('a call id over 40 characters', async () => {
    const long = `call_${'a'.repeat(36)}`;
    const response = await chat([call(long), result(long)]);
    expect(response.status).toBe(400);
    expect(((await response.json()) as any).error).toMatchObject({ code: 'string_above_max_length', param: 'messages[1].tool_calls[0].id' });
    expect((await chat([call(long.slice(1)), result(long.slice(1))])).status).toBe(200);
  });

  it('a tool message answering no call, and a call left unanswered before the next turn', async () => {
    expect((await chat([call('call_a'), result('call_b')])).status).toBe(400);
    const unanswered = await chat([call('call_a'), { role: 'user', content: 'and?' }]);
    expect(unanswered.status).toBe(400);
    expect(((await unanswered.json()) as any).error.message).toContain('did not have response messages: call_a');
  });
});

describe('openai fake failure modes', () => {
  it('fails the next requests with real error bodies and retry-after, then recovers', async () => {
    fake.failNext({ kind: 'status', status: 429, retryAfterSeconds: 7 }, 2);
    for (let i = 0; i < 2; i += 1) {
      const response = await post('/chat/completions', { ...chatStream, stream: false });
      expect(response.status).toBe(429);
      expect(response.headers.get('retry-after')).toBe('7');
      const failure = openaiAdapter.parseError(response.status, await response.text(), response.headers);
      expect(failure).toMatchObject({ status: 429, type: 'rate_limit_error', code: 'rate_limit_exceeded', retryAfterSeconds: 7 });
    }
    expect((await post('/chat/completions', { ...chatStream, stream: false })).status).toBe(200);
  });

  it('answers 502 with an HTML proxy page that parseError does not echo', async () => {
    fake.failAlways({ kind: 'status', status: 502 });
    const response = await post('/chat/completions', chatStream);
    expect(response.headers.get('content-type')).toBe('text/html');
    const text = await response.text();
    expect(text).toContain('<title>502 Bad Gateway</title>');
    expect(openaiAdapter.parseError(502, text, response.headers).message).toBe('The upstream provider answered HTTP 502 without a readable error.');
    expect((await post('/chat/completions', chatStream)).status).toBe(502);
    fake.reset();
    expect((await post('/chat/completions', chatStream)).status).toBe(200);
  });

  it('sends an in-band error after the given number of events', async () => {
    fake.failNext({ kind: 'mid-stream-error', afterEvents: 2 });
    const { events } = await readEvents(await post('/chat/completions', chatStream));
    expect(events).toHaveLength(3);
    const translator = openaiAdapter.createChatStreamTranslator(openaiContext({}, { stream: true }));
    expect(translator.onEvent(events[1] as SseEvent)[0]?.choices[0]?.delta.content).toBe('Hello');
    expect(() => translator.onEvent(events[2] as SseEvent)).toThrowError(UpstreamStreamError);
  });

  it('ends a responses stream with response.failed on a mid-stream error', async () => {
    fake.failNext({ kind: 'mid-stream-error', afterEvents: 3 });
    const { events } = await readEvents(await post('/responses', { model: 'gpt-4o', input: 'Hi', stream: true }));
    expect(events.map((event) => event.event)).toEqual(['response.created', 'response.in_progress', 'response.output_item.added', 'response.failed']);
    expect(JSON.parse(events[3]?.data ?? '')).toMatchObject({ sequence_number: 3, response: { status: 'failed', error: { code: 'server_error' } } });
  });

  it('drops the connection mid-stream without counting it as a client abort', async () => {
    fake.failNext({ kind: 'mid-stream-disconnect', afterEvents: 2 });
    const response = await post('/chat/completions', chatStream);
    await expect(readEvents(response)).rejects.toThrow();
    expect(fake.abortedRequests).toBe(0);
  });

  it('counts a client that gives up on a hanging request as aborted', async () => {
    fake.failNext({ kind: 'hang' });
    const controller = new AbortController();
    const request = fetch(`${fake.baseUrl}/chat/completions`, {
      method: 'POST',
      headers: { authorization: 'Bearer sk-fake-key' },
      body: JSON.stringify(chatStream),
      signal: controller.signal,
    }).catch((error: Error) => error.name);
    await waitFor(() => fake.requests.length === 1);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(fake.abortedRequests).toBe(0);
    controller.abort();
    expect(await request).toBe('AbortError');
    await waitFor(() => fake.abortedRequests === 1);
    expect(fake.abortedRequests).toBe(1);
  });

  it('counts a client that leaves in the middle of a stream as aborted', async () => {
    fake.setReply({ splitBytes: 1 });
    const response = await post('/chat/completions', chatStream);
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    await reader.read();
    await reader.cancel();
    await waitFor(() => fake.abortedRequests === 1);
    expect(fake.abortedRequests).toBe(1);
  });

  it('answers unknown paths with OpenAI\'s invalid URL error', async () => {
    const response = await post('/completions/legacy', {});
    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({
      error: { message: 'Invalid URL (POST /v1/completions/legacy)', type: 'invalid_request_error', param: null, code: null },
    });
  });

  it('delays the first byte when asked, and every answer by the reply latency', async () => {
    fake.failNext({ kind: 'slow-first-byte', delayMs: 150 });
    let started = performance.now();
    expect((await post('/chat/completions', { ...chatStream, stream: false })).status).toBe(200);
    expect(performance.now() - started).toBeGreaterThanOrEqual(140);
    fake.setReply({ latencyMs: 60 });
    started = performance.now();
    expect((await post('/chat/completions', { ...chatStream, stream: false })).status).toBe(200);
    expect(performance.now() - started).toBeGreaterThanOrEqual(55);
  });
});

async function waitFor(condition: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !condition(); i += 1) await new Promise((resolve) => setTimeout(resolve, 5));
}
