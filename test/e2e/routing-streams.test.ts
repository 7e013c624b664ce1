import OpenAI, { type APIError } from 'openai';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { FakeFailure } from '../fakes/fake-provider.js';
import {
  PROVIDER_KEYS,
  frontierOrder,
  pointProvidersAt,
  postV1,
  readSse,
  sdkClient,
  startFakes,
  startTestRouter,
  type Fakes,
  type ProviderId,
  type TestRouter,
} from './router-harness.js';

const NO_BREAKER = (doc: any) => void (doc.circuitBreaker = { failureThreshold: 1000, cooldownMs: 1000 });

/**
 * Per upstream: its answer, and how many of its events carry some text (so the router has committed
 * and sent bytes before the failure). The fallback candidate is the next provider in ORDER.
 */
const CASES = [
  {
    provider: 'openai',
    text: 'Hello from openai-fake: héllo 👋 世界',
    afterEvents: 3,
    fallback: 'anthropic',
    // OpenAI's in-stream error carries no code; the router names what happened.
    inStream: { message: 'The server had an error while processing your request. Sorry about that!', type: 'server_error', code: 'upstream_stream_interrupted' },
  },
  {
    provider: 'anthropic',
    text: 'Hello from the Anthropic fake: héllo 👋 世界',
    afterEvents: 5,
    fallback: 'gemini',
    inStream: { message: 'Overloaded', type: 'server_error', code: 'overloaded' },
  },
  {
    provider: 'gemini',
    text: 'Hello from gemini-fake: héllo 👋 世界',
    afterEvents: 1,
    fallback: 'openai',
    inStream: { message: 'The model is overloaded. Please try again later.', type: 'server_error', code: 'overloaded' },
  },
] as const;

const DISCONNECTED = { message: 'The upstream connection failed mid-stream.', type: 'upstream_error', code: 'upstream_stream_interrupted' };

const ORDER: Record<ProviderId, ProviderId[]> = {
  openai: ['openai', 'anthropic', 'gemini'],
  anthropic: ['anthropic', 'gemini', 'openai'],
  gemini: ['gemini', 'openai', 'anthropic'],
};

describe.each(CASES)('a $provider stream that fails after its first bytes', ({ provider, text, afterEvents, fallback, inStream }) => {
  let fakes: Fakes;
  let router: TestRouter;
  let client: OpenAI;
  let key: string;
  const post = (path: string, body: object) => postV1(router, key, path, body);
  const chatBody = { model: 'router/frontier', messages: [{ role: 'user', content: 'Say hello' }], stream: true };

  beforeAll(async () => {
    fakes = await startFakes();
    router = await startTestRouter({ patch: { providers: pointProvidersAt(fakes.urls, NO_BREAKER), routes: frontierOrder(ORDER[provider]) } });
    key = (await router.createAccount('pro', { providerKeys: { ...PROVIDER_KEYS } })).key;
    client = sdkClient(router, key);
  });
  afterEach(() => {
    // Never a second answer: the fallback candidate was not asked.
    expect(fakes[fallback].requests).toHaveLength(0);
    fakes.reset();
  });
  afterAll(async () => {
    await router.close();
    await fakes.close();
  });

  const failures: FakeFailure[] = [
    { kind: 'mid-stream-error', afterEvents },
    { kind: 'mid-stream-disconnect', afterEvents },
  ];
  const expectedError = (failure: FakeFailure) => (failure.kind === 'mid-stream-error' ? inStream : DISCONNECTED);

  it.each(failures)('ends a chat stream with an in-band error the SDK throws ($kind)', async (failure) => {
    fakes[provider].failNext(failure);
    const { data: stream, response } = await client.chat.completions
      .create({ model: 'router/frontier', messages: [{ role: 'user', content: 'Say hello' }], stream: true })
      .withResponse();
    expect(response.status).toBe(200);
    expect(response.headers.get('x-router-upstream')).toBe(provider);
    let received = '';
    const error = await (async () => {
      for await (const chunk of stream) received += chunk.choices[0]?.delta.content ?? '';
    })().catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OpenAI.APIError);
    expect((error as APIError).message).toBe(expectedError(failure).message);
    expect((error as APIError).code).toBe(expectedError(failure).code);
    expect(received.length).toBeGreaterThan(0);
    expect(text.startsWith(received)).toBe(true);
    expect(received).not.toBe(text);
  });

  it.each(failures)('frames the chat error as a data event followed by [DONE] ($kind)', async (failure) => {
    fakes[provider].failNext(failure);
    const response = await post('/chat/completions', chatBody);
    expect(response.status).toBe(200);
    const events = await readSse(response);
    expect(events.at(-1)).toEqual({ data: '[DONE]' });
    expect(JSON.parse(events.at(-2)!.data)).toEqual({ error: { ...expectedError(failure), param: null } });
    expect(events.filter((event) => event.data === '[DONE]')).toHaveLength(1);
    const content = events.slice(0, -2).map((event) => JSON.parse(event.data).choices[0]?.delta.content ?? '');
    expect(text.startsWith(content.join(''))).toBe(true);
  });

  it.each(failures)('ends a /v1/responses stream with response.failed ($kind)', async (failure) => {
    fakes[provider].failNext(failure);
    const response = await post('/responses', { model: 'router/frontier', input: 'Say hello', stream: true });
    expect(response.status).toBe(200);
    const events = (await readSse(response)).map((event) => ({ event: event.event, data: JSON.parse(event.data) }));
    expect(events.map((event) => event.event).slice(0, 2)).toEqual(['response.created', 'response.in_progress']);
    const last = events.at(-1)!;
    expect(last.event).toBe('response.failed');
    expect(last.data.response.status).toBe('failed');
    expect(last.data.response.model).toBe('router/frontier');
    expect(last.data.response.error).toEqual({ code: 'server_error', message: expectedError(failure).message });
    expect(last.data.response.id).toBe(events[0]!.data.response.id);
    expect(events.map((event) => event.data.sequence_number)).toEqual(events.map((_, i) => i));
    expect(events.filter((event) => event.event === 'response.completed')).toHaveLength(0);
  });
});

/** Per upstream: how many of its events carry no output yet (the router has not committed after them). */
const BEFORE_OUTPUT = [
  { provider: 'openai', afterEvents: 1 }, // the bare role chunk
  { provider: 'anthropic', afterEvents: 3 }, // message_start, content_block_start, ping
  { provider: 'gemini', afterEvents: 0 }, // the 200 and its headers only
] as const;

describe.each(BEFORE_OUTPUT)('the commit point of a $provider stream', ({ provider, afterEvents }) => {
  let fakes: Fakes;
  let router: TestRouter;
  let client: OpenAI;
  const fallback = ORDER[provider][1]!;
  const fallbackText = CASES.find((entry) => entry.provider === fallback)!.text;

  beforeAll(async () => {
    fakes = await startFakes();
    router = await startTestRouter({ patch: { providers: pointProvidersAt(fakes.urls, NO_BREAKER), routes: frontierOrder(ORDER[provider]) } });
    client = sdkClient(router, (await router.createAccount('pro', { providerKeys: { ...PROVIDER_KEYS } })).key);
  });
  afterEach(() => fakes.reset());
  afterAll(async () => {
    await router.close();
    await fakes.close();
  });

  it.each<FakeFailure>([
    { kind: 'mid-stream-error', afterEvents },
    { kind: 'mid-stream-disconnect', afterEvents },
  ])('still fails over when the upstream fails before any output ($kind): nothing reached the client', async (failure) => {
    fakes[provider].failNext(failure);
    const { data: stream, response } = await client.chat.completions
      .create({ model: 'router/frontier', messages: [{ role: 'user', content: 'Say hello' }], stream: true })
      .withResponse();
    expect(response.headers.get('x-router-upstream')).toBe(fallback);
    expect(response.headers.get('x-router-retry-count')).toBe('1');
    // A stream carries the limit headers like any other /v1 response.
    expect(response.headers.get('x-quota-limit')).toBe('50000');
    expect(Number(response.headers.get('x-quota-used'))).toBeGreaterThan(0);
    expect(response.headers.get('x-request-id')).toMatch(/^req_/);
    let text = '';
    for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
    expect(text).toBe(fallbackText);
  });

  it('fails a /v1/responses stream over the same way, with one response.created', async () => {
    // Native OpenAI streams commit at their first item: response.created alone is not output.
    fakes[provider].failNext({ kind: 'mid-stream-error', afterEvents: provider === 'openai' ? 1 : afterEvents });
    const { data: stream, response } = await client.responses.create({ model: 'router/frontier', input: 'Say hello', stream: true }).withResponse();
    expect(response.headers.get('x-router-upstream')).toBe(fallback);
    const types: string[] = [];
    for await (const event of stream) types.push(event.type);
    expect(types.filter((type) => type === 'response.created')).toHaveLength(1);
    expect(types.at(-1)).toBe('response.completed');
  });

  it('answers a stream request whose every candidate fails before output with a JSON 502, not a stream', async () => {
    fakes[provider].failNext({ kind: 'mid-stream-error', afterEvents });
    for (const other of ORDER[provider].slice(1)) fakes[other].failNext({ kind: 'status', status: 503 });
    const error = await client.chat.completions
      .create({ model: 'router/frontier', messages: [{ role: 'user', content: 'Say hello' }], stream: true })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OpenAI.InternalServerError);
    expect((error as APIError).status).toBe(502);
    expect((error as APIError).code).toBe('all_upstreams_failed');
    expect((error as APIError).headers?.get('content-type')).toBe('application/json');
    expect((error as APIError).headers?.get('x-router-retry-count')).toBe('2');
  });
});
