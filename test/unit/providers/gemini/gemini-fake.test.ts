import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { ChatCompletionChunk, ChatMessage, ChatRequest } from '../../../../src/formats/openai-chat.js';
import { type AdapterContext } from '../../../../src/providers/adapter.js';
import { UpstreamStreamError } from '../../../../src/upstream/upstream-failure.js';
import { createGeminiAdapter } from '../../../../src/providers/gemini/index.js';
import type { SseEvent } from '../../../../src/upstream/sse-event.js';
import type { FakeProvider } from '../../../fakes/fake-provider.js';
import { startGeminiFake } from '../../../fakes/gemini-fake.js';
import { geminiProvider } from './gemini-test-context.js';

const DEFAULT_TEXT = 'Hello from gemini-fake: héllo 👋 世界';

let fake: FakeProvider;
beforeAll(async () => {
  fake = await startGeminiFake();
});
afterAll(async () => {
  await fake.close();
});
beforeEach(() => fake.reset());

function context(stream: boolean): AdapterContext {
  return { provider: geminiProvider(fake.baseUrl), upstreamModel: 'gemini-3-flash', credential: 'fake-key', stream };
}

async function send(adapter = createGeminiAdapter(), messages: ChatMessage[] = [{ role: 'user', content: 'hi' }], stream = false, signal?: AbortSignal) {
  const request: ChatRequest = { model: 'router/frontier', messages };
  const upstream = adapter.buildChatRequest(request, context(stream));
  return fetch(upstream.url, { method: 'POST', headers: upstream.headers, body: upstream.body, signal });
}

/** A minimal SSE reader for the test: blank-line separated events; non-field lines land in `raw`. */
function sseEvents(text: string): SseEvent[] {
  return text
    .split(/\r\n\r\n|\n\n/)
    .filter((block) => block.trim() !== '')
    .map((block) => {
      const lines = block.split(/\r\n|\n/);
      const data = lines.filter((line) => line.startsWith('data: ')).map((line) => line.slice(6));
      const raw = lines.filter((line) => !line.startsWith('data: '));
      return raw.length > 0 ? { event: undefined, data: data.join('\n'), raw: raw.join('\n') } : { event: undefined, data: data.join('\n') };
    });
}

async function streamChunks(adapter: ReturnType<typeof createGeminiAdapter>, response: Response): Promise<ChatCompletionChunk[]> {
  const translator = adapter.createChatStreamTranslator(context(true));
  const text = await response.text();
  return [...sseEvents(text).flatMap((event) => translator.onEvent(event)), ...translator.onEnd()];
}

describe('Gemini adapter against the fake Gemini server', () => {
  it('answers a text request and records the request with the API key header', async () => {
    const adapter = createGeminiAdapter();
    const response = await send(adapter);
    expect(response.status).toBe(200);
    const completion = adapter.parseChatResponse(await response.json(), context(false));
    expect(completion.choices[0]!.message.content).toBe(DEFAULT_TEXT);
    expect(completion.usage).toMatchObject({ prompt_tokens: 8, completion_tokens: 12, total_tokens: 20 });
    expect(fake.requests).toHaveLength(1);
    expect(fake.requests[0]!.path).toBe('/v1beta/models/gemini-3-flash:generateContent');
    expect(fake.requests[0]!.headers['x-goog-api-key']).toBe('fake-key');
    expect(fake.requests[0]!.body).toEqual({ contents: [{ role: 'user', parts: [{ text: 'hi' }] }] });
  });

  it('streams multi-byte text split byte by byte without corrupting it', async () => {
    fake.setReply({ splitBytes: 1, usage: { inputTokens: 3, outputTokens: 4 } });
    const adapter = createGeminiAdapter();
    const response = await send(adapter, undefined, true);
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    const chunks = await streamChunks(adapter, response);
    const text = chunks.map((chunk) => chunk.choices[0]?.delta.content ?? '').join('');
    expect(text).toBe(DEFAULT_TEXT);
    expect(chunks.filter((chunk) => chunk.choices[0]?.delta.content !== undefined).length).toBe(3);
    expect(chunks.at(-2)!.choices[0]!.finish_reason).toBe('stop');
    expect(chunks.at(-1)!.usage).toMatchObject({ prompt_tokens: 3, completion_tokens: 4, total_tokens: 7 });
  });

  it('completes a tool round trip: the fake accepts the replayed thought signature', async () => {
    const adapter = createGeminiAdapter();
    fake.setReply({ toolCalls: [{ name: 'get_weather', arguments: { city: 'Paris' } }, { name: 'get_time', arguments: {} }] });
    const first = adapter.parseChatResponse(await (await send(adapter)).json(), context(false));
    const calls = first.choices[0]!.message.tool_calls!;
    expect(first.choices[0]!.finish_reason).toBe('tool_calls');
    expect(first.choices[0]!.message.reasoning_details).toHaveLength(1);

    fake.setReply({ text: 'It is sunny.' });
    const history: ChatMessage[] = [
      { role: 'user', content: 'hi' },
      { role: 'assistant', content: null, tool_calls: calls, reasoning_details: first.choices[0]!.message.reasoning_details! },
      { role: 'tool', tool_call_id: calls[0]!.id, content: 'sunny' },
      { role: 'tool', tool_call_id: calls[1]!.id, content: '{"time":"12:00"}' },
    ];
    const second = await send(adapter, history);
    expect(second.status).toBe(200);
    expect(adapter.parseChatResponse(await second.json(), context(false)).choices[0]!.message.content).toBe('It is sunny.');
  });

  it('gets foreign tool history past the Gemini 3 check with the skip value', async () => {
    const history: ChatMessage[] = [
      { role: 'user', content: 'hi' },
      { role: 'assistant', content: null, tool_calls: [{ id: 'call_from_elsewhere', type: 'function', function: { name: 'f', arguments: '{}' } }] },
      { role: 'tool', tool_call_id: 'call_from_elsewhere', content: 'done' },
    ];
    expect((await send(createGeminiAdapter(), history)).status).toBe(200);
  });

  it('rejects function-call history without a thought signature the way Gemini 3 does', async () => {
    const body = {
      contents: [
        { role: 'user', parts: [{ text: 'hi' }] },
        { role: 'model', parts: [{ functionCall: { name: 'f', args: {} } }] },
        { role: 'user', parts: [{ functionResponse: { name: 'f', response: { content: 'done' } } }] },
      ],
    };
    const response = await fetch(`${fake.baseUrl}/models/gemini-3-flash:generateContent`, {
      method: 'POST',
      headers: { 'x-goog-api-key': 'k', 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    expect(response.status).toBe(400);
    const failure = createGeminiAdapter().parseError(400, await response.text(), response.headers);
    expect(failure.type).toBe('invalid_request_error');
    expect(failure.message).toContain('Function call is missing a thought_signature');
  });

  it('answers 403 PERMISSION_DENIED when no API key is sent, like the real API', async () => {
    const response = await fetch(`${fake.baseUrl}/models/m:generateContent`, { method: 'POST', body: '{"contents":[]}' });
    expect(response.status).toBe(403);
    expect(await response.json()).toMatchObject({ error: { code: 403, status: 'PERMISSION_DENIED' } });
  });

  it('sends 429 with a RetryInfo delay the adapter turns into retryAfterSeconds', async () => {
    fake.failNext({ kind: 'status', status: 429, retryAfterSeconds: 17 });
    const response = await send();
    const failure = createGeminiAdapter().parseError(response.status, await response.text(), response.headers);
    expect(failure).toMatchObject({ status: 429, code: 'rate_limit_exceeded', retryAfterSeconds: 17 });
    expect((await send()).status).toBe(200);
  });

  it.each([
    [400, 'invalid_request_error', null],
    [401, 'authentication_error', 'invalid_api_key'],
    [403, 'permission_error', 'permission_denied'],
    [500, 'server_error', null],
    [502, 'server_error', null],
    [503, 'server_error', 'overloaded'],
    [504, 'server_error', 'timeout'],
  ] as const)('serves a Google-shaped %i the adapter maps', async (status, type, code) => {
    fake.failNext({ kind: 'status', status });
    const response = await send();
    expect(response.status).toBe(status);
    expect(createGeminiAdapter().parseError(status, await response.text(), response.headers)).toMatchObject({ status, type, code });
  });

  it('fails every request with failAlways until reset, and failNext counts down', async () => {
    fake.failAlways({ kind: 'status', status: 503 });
    expect([(await send()).status, (await send()).status]).toEqual([503, 503]);
    fake.reset();
    fake.failNext({ kind: 'status', status: 500 }, 2);
    expect([(await send()).status, (await send()).status, (await send()).status]).toEqual([500, 500, 200]);
  });

  it('puts a bare JSON error into a 200 stream after N events, which the translator raises', async () => {
    fake.failNext({ kind: 'mid-stream-error', afterEvents: 1 });
    const adapter = createGeminiAdapter();
    const response = await send(adapter, undefined, true);
    expect(response.status).toBe(200);
    await expect(streamChunks(adapter, response)).rejects.toSatisfy(
      (error: unknown) => error instanceof UpstreamStreamError && error.failure.status === 503 && error.failure.code === 'overloaded',
    );
  });

  it('drops the connection mid-stream', async () => {
    fake.failNext({ kind: 'mid-stream-disconnect', afterEvents: 1 });
    const response = await send(undefined, undefined, true);
    expect(response.status).toBe(200);
    await expect(response.text()).rejects.toThrow();
    expect(fake.abortedRequests).toBe(0);
  });

  it('counts a request the client aborted while the fake hung', async () => {
    fake.failNext({ kind: 'hang' });
    const controller = new AbortController();
    const pending = send(undefined, undefined, false, controller.signal);
    await waitFor(() => fake.requests.length === 1);
    controller.abort();
    await expect(pending).rejects.toThrow();
    await waitFor(() => fake.abortedRequests === 1);
    expect(fake.abortedRequests).toBe(1);
  });

  it('delays the first byte and applies reply latency', async () => {
    fake.failNext({ kind: 'slow-first-byte', delayMs: 150 });
    let started = Date.now();
    expect((await send()).status).toBe(200);
    expect(Date.now() - started).toBeGreaterThanOrEqual(140);
    fake.setReply({ latencyMs: 100 });
    started = Date.now();
    expect((await send()).status).toBe(200);
    expect(Date.now() - started).toBeGreaterThanOrEqual(90);
  });
});

async function waitFor(condition: () => boolean, timeoutMs = 2000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}
