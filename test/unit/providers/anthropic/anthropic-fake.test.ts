import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { ChatCompletionChunk, ChatRequest } from '../../../../src/formats/openai-chat.js';
import { type AdapterContext } from '../../../../src/providers/adapter.js';
import { UpstreamStreamError } from '../../../../src/upstream/upstream-failure.js';
import { systemClock } from '../../../../src/core/clock.js';
import { createAnthropicAdapter } from '../../../../src/providers/anthropic/index.js';
import type { SseEvent } from '../../../../src/upstream/sse-event.js';
import { ANTHROPIC_FAKE_TEXT, startAnthropicFake } from '../../../fakes/anthropic-fake.js';
import type { FakeProvider } from '../../../fakes/fake-provider.js';
import { anthropicContext } from './anthropic-test-context.js';

const anthropicAdapter = createAnthropicAdapter(systemClock);

let fake: FakeProvider;
beforeAll(async () => {
  fake = await startAnthropicFake();
});
afterAll(async () => {
  await fake.close();
});
beforeEach(() => fake.reset());

function context(stream: boolean): AdapterContext {
  return anthropicContext({ stream, provider: { baseUrl: fake.baseUrl } });
}

async function send(request: Partial<ChatRequest>, stream = false, signal?: AbortSignal): Promise<Response> {
  const built = anthropicAdapter.buildChatRequest({ model: 'router/frontier', messages: [{ role: 'user', content: 'Hi' }], ...request }, context(stream));
  return fetch(built.url, { method: 'POST', headers: built.headers, body: built.body, ...(signal ? { signal } : {}) });
}

async function sendRaw(headers: Record<string, string>, body: unknown): Promise<{ status: number; body: unknown }> {
  const response = await fetch(`${fake.baseUrl}/messages`, { method: 'POST', headers, body: JSON.stringify(body) });
  return { status: response.status, body: await response.json() };
}

/** Reads the whole body as raw byte chunks, the way the router's upstream client receives them. */
async function readChunks(response: Response): Promise<Uint8Array[]> {
  const chunks: Uint8Array[] = [];
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return chunks;
    chunks.push(value);
  }
}

function sseEvents(text: string): SseEvent[] {
  return text
    .split('\n\n')
    .filter((block) => block !== '')
    .map((block) => {
      const lines = block.split('\n');
      return {
        event: lines.find((line) => line.startsWith('event: '))?.slice(7),
        data: lines.filter((line) => line.startsWith('data: ')).map((line) => line.slice(6)).join('\n'),
      };
    });
}

function translate(events: SseEvent[]): ChatCompletionChunk[] {
  const translator = anthropicAdapter.createChatStreamTranslator(context(true));
  return [...events.flatMap((event) => translator.onEvent(event)), ...translator.onEnd()];
}

const toolTurn: Partial<ChatRequest> = {
  messages: [
    { role: 'system', content: 'Be brief.' },
    { role: 'user', content: 'Weather in Paris and Rome?' },
    {
      role: 'assistant',
      content: 'Checking.',
      tool_calls: [
        { id: 'call_1', type: 'function', function: { name: 'weather', arguments: '{"city":"Paris"}' } },
        { id: 'call_2', type: 'function', function: { name: 'weather', arguments: '{"city":"Rome"}' } },
      ],
    },
    { role: 'tool', tool_call_id: 'call_1', content: '18C' },
    { role: 'tool', tool_call_id: 'call_2', content: '24C' },
    { role: 'user', content: 'Which is warmer?' },
  ],
  tools: [{ type: 'function', function: { name: 'weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } } }],
  temperature: 1.5,
  seed: 3,
  n: 1,
};

describe('Anthropic fake with the adapter', () => {
  it('accepts a translated multi-turn tool conversation and answers with the default text', async () => {
    const response = await send(toolTurn);
    expect(response.status).toBe(200);
    const completion = anthropicAdapter.parseChatResponse(await response.json(), context(false));
    expect(completion.choices[0]?.message.content).toBe(ANTHROPIC_FAKE_TEXT);
    expect(completion.usage?.total_tokens).toBe(21);
    expect(fake.requests).toHaveLength(1);
    expect(fake.requests[0]?.path).toBe('/v1/messages');
    expect(fake.requests[0]?.headers['x-api-key']).toBe('sk-ant-test-credential');
  });

  it('streams byte by byte and the text survives characters split across reads', async () => {
    fake.setReply({ splitBytes: 1 });
    const chunks = await readChunks(await send({}, true));
    expect(chunks.length).toBeGreaterThan(1);
    const whole = Buffer.concat(chunks).toString('utf8');
    const decoder = new TextDecoder('utf-8');
    const streamed = chunks.map((chunk) => decoder.decode(chunk, { stream: true })).join('') + decoder.decode();
    expect(streamed).toBe(whole);
    const out = translate(sseEvents(whole));
    expect(out.map((chunk) => chunk.choices[0]?.delta.content ?? '').join('')).toBe(ANTHROPIC_FAKE_TEXT);
    expect(out.at(-2)?.choices[0]?.finish_reason).toBe('stop');
    expect(out.at(-1)?.usage).toMatchObject({ prompt_tokens: 12, completion_tokens: 9 });
  });

  it('streams tool calls whose argument fragments join to the full JSON', async () => {
    fake.setReply({ toolCalls: [{ name: 'weather', arguments: { city: 'Paris' } }, { name: 'time', arguments: {} }] });
    const out = translate(sseEvents(await (await send({}, true)).text()));
    const calls = out.flatMap((chunk) => chunk.choices[0]?.delta.tool_calls ?? []);
    const argumentsOf = (index: number): string => calls.filter((call) => call.index === index).map((call) => call.function?.arguments ?? '').join('');
    expect(calls.filter((call) => call.id !== undefined).map((call) => [call.index, call.function?.name])).toEqual([
      [0, 'weather'],
      [1, 'time'],
    ]);
    expect(JSON.parse(argumentsOf(0))).toEqual({ city: 'Paris' });
    expect(argumentsOf(1)).toBe('{}');
    expect(out.at(-2)?.choices[0]?.finish_reason).toBe('tool_calls');
  });
});

describe('Anthropic fake validation', () => {
  const headers = { 'x-api-key': 'k', 'anthropic-version': '2023-06-01', 'content-type': 'application/json' };
  const valid = { model: 'claude', max_tokens: 10, messages: [{ role: 'user', content: 'Hi' }] };
  const afterToolUse = [
    { role: 'user', content: 'Go' },
    { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'f', input: {} }] },
  ];

  it.each([
    ['missing max_tokens', { ...valid, max_tokens: undefined }, 'max_tokens: Field required'],
    ['an OpenAI-only field', { ...valid, n: 1 }, 'n: Extra inputs are not permitted'],
    ['temperature above 1', { ...valid, temperature: 1.2 }, 'temperature: Input should be less than or equal to 1'],
    ['a first assistant turn', { ...valid, messages: [{ role: 'assistant', content: 'x' }] }, 'messages: first message must use the "user" role'],
    ['an empty text block', { ...valid, messages: [{ role: 'user', content: [{ type: 'text', text: '' }] }] }, 'messages: text content blocks must be non-empty'],
    [
      'a tool result after text',
      { ...valid, messages: [...afterToolUse, { role: 'user', content: [{ type: 'text', text: 'x' }, { type: 'tool_result', tool_use_id: 'toolu_1' }] }] },
      'messages.1: `tool_use` ids were found without `tool_result` blocks immediately after: toolu_1. Each `tool_use` block must have a corresponding `tool_result` block in the next message.',
    ],
  ])('rejects %s with 400 invalid_request_error', async (_case, body, message) => {
    expect(await sendRaw(headers, body)).toEqual({ status: 400, body: { type: 'error', error: { type: 'invalid_request_error', message }, request_id: 'req_fake' } });
  });

  it('rejects repeated roles and needs x-api-key and anthropic-version', async () => {
    const repeated = await sendRaw(headers, { ...valid, messages: [{ role: 'user', content: 'a' }, { role: 'user', content: 'b' }] });
    expect(repeated.status).toBe(400);
    const noKey = await sendRaw({ 'anthropic-version': '2023-06-01' }, valid);
    expect(noKey).toMatchObject({ status: 401, body: { error: { type: 'authentication_error', message: 'x-api-key header is required' } } });
    const noVersion = await sendRaw({ 'x-api-key': 'k' }, valid);
    expect(noVersion).toMatchObject({ status: 400, body: { error: { message: 'anthropic-version: header is required' } } });
    expect((await sendRaw(headers, valid)).status).toBe(200);
  });
});

describe('Anthropic fake failures', () => {
  it('answers 529 overloaded_error, which the adapter maps to 503 overloaded', async () => {
    fake.failNext({ kind: 'status', status: 529 });
    const response = await send({});
    expect(response.status).toBe(529);
    const failure = anthropicAdapter.parseError(response.status, await response.text(), response.headers);
    expect([failure.status, failure.type, failure.code, failure.message]).toEqual([503, 'server_error', 'overloaded', 'Overloaded']);
    expect((await send({})).status).toBe(200);
  });

  it('sends retry-after with a 429 rate_limit_error and repeats failures the requested number of times', async () => {
    fake.failNext({ kind: 'status', status: 429, retryAfterSeconds: 7 }, 2);
    for (let i = 0; i < 2; i++) {
      const response = await send({});
      expect(response.headers.get('retry-after')).toBe('7');
      expect(anthropicAdapter.parseError(429, await response.text(), response.headers)).toMatchObject({ code: 'rate_limit_exceeded', retryAfterSeconds: 7 });
    }
    expect((await send({})).status).toBe(200);
  });

  it('fails every request with failAlways until reset', async () => {
    fake.failAlways({ kind: 'status', status: 401 });
    expect((await send({})).status).toBe(401);
    expect((await send({})).status).toBe(401);
    fake.reset();
    expect((await send({})).status).toBe(200);
  });

  it('sends an in-stream overloaded error after the given number of events', async () => {
    fake.failNext({ kind: 'mid-stream-error', afterEvents: 3 });
    const events = sseEvents(await (await send({}, true)).text());
    expect(events.map((event) => event.event)).toEqual(['message_start', 'content_block_start', 'ping', 'error']);
    expect(() => translate(events)).toThrow(UpstreamStreamError);
  });

  it('destroys the socket mid-stream without counting it as a client abort', async () => {
    fake.failNext({ kind: 'mid-stream-disconnect', afterEvents: 2 });
    const response = await send({}, true);
    await expect(response.text()).rejects.toThrow();
    expect(fake.abortedRequests).toBe(0);
  });

  it('counts a request the client abandons while the fake hangs', async () => {
    fake.failNext({ kind: 'hang' });
    await expect(send({}, false, AbortSignal.timeout(100))).rejects.toThrow();
    await expect.poll(() => fake.abortedRequests).toBe(1);
  });

  it('delays the first byte and honours the reply latency', async () => {
    fake.failNext({ kind: 'slow-first-byte', delayMs: 150 });
    let started = performance.now();
    expect((await send({})).status).toBe(200);
    expect(performance.now() - started).toBeGreaterThanOrEqual(140);
    fake.setReply({ latencyMs: 100 });
    started = performance.now();
    expect((await send({})).status).toBe(200);
    expect(performance.now() - started).toBeGreaterThanOrEqual(90);
  });
});
