import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import OpenAI, { type APIError } from 'openai';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  PROVIDER_KEYS,
  frontierOrder,
  json,
  manualClock,
  pointProvidersAt,
  postV1,
  sdkClient,
  startFakes,
  startTestRouter,
  type Fakes,
  type TestRouter,
} from './router-harness.js';

const ANTHROPIC_TEXT = 'Hello from the Anthropic fake: héllo 👋 世界';
const GEMINI_TEXT = 'Hello from gemini-fake: héllo 👋 世界';
const HELLO = { model: 'router/frontier', messages: [{ role: 'user' as const, content: 'Say hello' }] };
/** Circuits must not open while these tests fail the same provider again and again. */
const NO_BREAKER = (doc: any) => void (doc.circuitBreaker = { failureThreshold: 1000, cooldownMs: 1000 });

describe('failover between upstreams (openai, then anthropic, then gemini)', () => {
  let fakes: Fakes;
  let router: TestRouter;
  let client: OpenAI;
  let key: string;
  const post = (path: string, body: object, apiKey = key) => postV1(router, apiKey, path, body);
  /** The router's: a 429 rests the key for its provider's Retry-After, which each test lets pass before the next. */
  const clock = manualClock();

  beforeAll(async () => {
    fakes = await startFakes();
    router = await startTestRouter({ clock, patch: { providers: pointProvidersAt(fakes.urls, NO_BREAKER), routes: frontierOrder(['openai', 'anthropic', 'gemini']) } });
    key = (await router.createAccount('pro', { providerKeys: { ...PROVIDER_KEYS } })).key;
    client = sdkClient(router, key);
  });
  afterEach(() => {
    fakes.reset();
    clock.advance(60_000);
  });
  afterAll(async () => {
    await router.close();
    await fakes.close();
  });

  it.each([401, 404, 429, 500, 502, 503, 504])('fails over a non-stream request when the first upstream answers %i', async (status) => {
    fakes.openai.failNext({ kind: 'status', status });
    const { data, response } = await client.chat.completions.create(HELLO).withResponse();
    expect(response.status).toBe(200);
    expect(response.headers.get('x-router-retry-count')).toBe('1');
    expect(response.headers.get('x-router-upstream')).toBe('anthropic');
    expect(data.choices[0]!.message.content).toBe(ANTHROPIC_TEXT);
    expect([fakes.openai.requests.length, fakes.anthropic.requests.length, fakes.gemini.requests.length]).toEqual([1, 1, 0]);
  });

  it.each([401, 404, 429, 500, 502, 503, 504])('fails over a stream before its first byte when the first upstream answers %i', async (status) => {
    fakes.openai.failNext({ kind: 'status', status });
    const { data: stream, response } = await client.chat.completions.create({ ...HELLO, stream: true }).withResponse();
    expect(response.headers.get('x-router-retry-count')).toBe('1');
    expect(response.headers.get('x-router-upstream')).toBe('anthropic');
    let text = '';
    for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
    expect(text).toBe(ANTHROPIC_TEXT);
  });

  it("fails over on Anthropic's 529 overloaded", async () => {
    const { key: anthropicFirst } = await router.createAccount('pro', { providerKeys: { anthropic: PROVIDER_KEYS.anthropic, gemini: PROVIDER_KEYS.gemini } });
    fakes.anthropic.failNext({ kind: 'status', status: 529 });
    const { data, response } = await sdkClient(router, anthropicFirst).chat.completions.create(HELLO).withResponse();
    expect(response.headers.get('x-router-retry-count')).toBe('1');
    expect(response.headers.get('x-router-upstream')).toBe('gemini');
    expect(data.choices[0]!.message.content).toBe(GEMINI_TEXT);
  });

  it('fails over when the first upstream never answers (first-byte timeout)', async () => {
    fakes.openai.failNext({ kind: 'hang' });
    const startedAt = Date.now();
    const { data, response } = await client.chat.completions.create(HELLO).withResponse();
    expect(Date.now() - startedAt).toBeGreaterThanOrEqual(1400);
    expect(response.headers.get('x-router-retry-count')).toBe('1');
    expect(response.headers.get('x-router-upstream')).toBe('anthropic');
    expect(data.choices[0]!.message.content).toBe(ANTHROPIC_TEXT);
  });

  it('fails a /v1/responses stream over before its first byte too', async () => {
    fakes.openai.failNext({ kind: 'status', status: 503 });
    const { data: stream, response } = await client.responses.create({ model: 'router/frontier', input: 'Say hello', stream: true }).withResponse();
    expect(response.headers.get('x-router-retry-count')).toBe('1');
    expect(response.headers.get('x-router-upstream')).toBe('anthropic');
    const types: string[] = [];
    for await (const event of stream) types.push(event.type);
    expect(types[0]).toBe('response.created');
    expect(types.at(-1)).toBe('response.completed');
  });

  it("does not fail over a 400: the client gets the upstream's message, retry count 0", async () => {
    fakes.openai.failNext({ kind: 'status', status: 400 });
    const response = await post('/chat/completions', HELLO);
    expect(response.status).toBe(400);
    expect(response.headers.get('x-router-retry-count')).toBe('0');
    expect(response.headers.get('x-router-upstream')).toBeNull();
    const { error } = await json(response);
    expect(error).toMatchObject({
      type: 'invalid_request_error',
      code: 'context_length_exceeded',
      param: 'messages',
      message: "This model's maximum context length is 128000 tokens. However, your messages resulted in 130017 tokens. Please reduce the length of the messages.",
    });
    expect(fakes.anthropic.requests).toHaveLength(0);
  });

  it('reports the retries made before an upstream rejected the request as the client’s fault', async () => {
    fakes.openai.failNext({ kind: 'status', status: 503 });
    fakes.anthropic.failNext({ kind: 'status', status: 400 });
    const response = await post('/chat/completions', HELLO);
    expect(response.status).toBe(400);
    expect(response.headers.get('x-router-retry-count')).toBe('1');
    // Anthropic's 400 has no code of OpenAI's kind: the router names its own, which docsUrl explains.
    expect((await json(response)).error).toMatchObject({
      type: 'invalid_request_error',
      code: 'upstream_rejected_request',
      message: 'Invalid request.',
      docsUrl: expect.stringMatching(/\/errors#upstream_rejected_request$/),
    });
    expect(fakes.gemini.requests).toHaveLength(0);
  });

  it.each(['openai', 'anthropic'] as const)('fails over a non-stream answer that %s cut off before it was complete', async (provider) => {
    const { key: account } = await router.createAccount('pro', {
      providerKeys: provider === 'openai' ? { ...PROVIDER_KEYS } : { anthropic: PROVIDER_KEYS.anthropic, gemini: PROVIDER_KEYS.gemini },
    });
    // OpenAI's fake drops the connection; Anthropic's sends half of the JSON body first.
    fakes[provider].failNext({ kind: 'mid-stream-disconnect', afterEvents: 0 });
    const { data, response } = await sdkClient(router, account).chat.completions.create(HELLO).withResponse();
    expect(response.headers.get('x-router-retry-count')).toBe('1');
    expect(data.choices[0]!.message.content).toBe(provider === 'openai' ? ANTHROPIC_TEXT : GEMINI_TEXT);
  });

  it('reports a non-stream body cut off half-way as a dropped connection, not as an upstream 502', async () => {
    const { key: anthropicOnly } = await router.createAccount('pro', { providerKeys: { anthropic: PROVIDER_KEYS.anthropic } });
    fakes.anthropic.failNext({ kind: 'mid-stream-disconnect', afterEvents: 0 });
    const response = await post('/chat/completions', HELLO, anthropicOnly);
    expect(response.status).toBe(502);
    expect((await json(response)).error.attempts).toEqual([{ provider: 'anthropic', model: 'claude-sonnet-4-5', status: null, error: 'connection_error', latencyMs: expect.any(Number) }]);
  });

  it('answers 502 all_upstreams_failed with a per-attempt summary and no upstream bodies when every candidate fails', async () => {
    fakes.openai.failNext({ kind: 'status', status: 500 });
    fakes.anthropic.failNext({ kind: 'status', status: 529 });
    fakes.gemini.failNext({ kind: 'status', status: 429 });
    const response = await post('/chat/completions', HELLO);
    expect(response.status).toBe(502);
    expect(response.headers.get('x-router-retry-count')).toBe('2');
    expect(response.headers.get('x-router-upstream')).toBeNull();
    const { error } = await json(response);
    expect(error.type).toBe('upstream_error');
    expect(error.code).toBe('all_upstreams_failed');
    expect(error.attempts.map((attempt: { provider: string; status: number }) => [attempt.provider, attempt.status])).toEqual([
      ['openai', 500],
      ['anthropic', 503],
      ['gemini', 429],
    ]);
    for (const attempt of error.attempts) expect(Object.keys(attempt).sort()).toEqual(['error', 'latencyMs', 'model', 'provider', 'status']);
    expect(error.message).toBe(
      'No upstream could serve router/frontier. Tried: openai (500 server_error), anthropic (503 overloaded), gemini (429 rate_limit_exceeded). Retry in a few seconds; if it persists, see the status page.',
    );
    expect(error.skipped).toEqual([]);
    const text = JSON.stringify(error);
    expect(text).not.toMatch(/Sorry about that|Overloaded|exceeded your current quota/);
  });

  it('gives the SDK an APIError carrying the status and the retry count', async () => {
    fakes.openai.failNext({ kind: 'status', status: 503 });
    fakes.anthropic.failNext({ kind: 'status', status: 503 });
    fakes.gemini.failNext({ kind: 'status', status: 503 });
    const error = await client.chat.completions.create(HELLO).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OpenAI.InternalServerError);
    expect((error as APIError).status).toBe(502);
    expect((error as APIError).code).toBe('all_upstreams_failed');
    expect((error as APIError).headers?.get('x-router-retry-count')).toBe('2');
  });

  it('answers 504 when every candidate timed out', async () => {
    const { key: twoProviders } = await router.createAccount('pro', { providerKeys: { openai: PROVIDER_KEYS.openai, anthropic: PROVIDER_KEYS.anthropic } });
    fakes.openai.failNext({ kind: 'hang' });
    fakes.anthropic.failNext({ kind: 'hang' });
    const response = await post('/chat/completions', HELLO, twoProviders);
    expect(response.status).toBe(504);
    expect(response.headers.get('x-router-retry-count')).toBe('1');
    const { error } = await json(response);
    expect(error.code).toBe('all_upstreams_failed');
    expect(error.message).toBe(
      'No upstream could serve router/frontier. Tried: openai (first_byte_timeout), anthropic (first_byte_timeout). Skipped: gemini (no key for it on this account). Retry in a few seconds; if it persists, see the status page.',
    );
    expect(error.skipped).toEqual([{ provider: 'gemini', reason: 'no_credential' }]);
    expect(error.attempts.map((attempt: { provider: string; status: number | null }) => [attempt.provider, attempt.status])).toEqual([
      ['openai', null],
      ['anthropic', null],
    ]);
  });

  it('answers the 404 when every host lacks the model (no 502 to retry at once), and refunds it', async () => {
    const { key: fresh } = await router.createAccount('pro', { providerKeys: { ...PROVIDER_KEYS } });
    for (const fake of [fakes.openai, fakes.anthropic, fakes.gemini]) fake.failNext({ kind: 'status', status: 404 });
    const response = await post('/chat/completions', HELLO, fresh);
    expect(response.status).toBe(404);
    expect(response.headers.get('x-router-retry-count')).toBe('2');
    expect(response.headers.get('x-quota-used')).toBe('0');
    expect((await json(response)).error.type).toBe('not_found_error');
    expect([fakes.openai.requests.length, fakes.anthropic.requests.length, fakes.gemini.requests.length]).toEqual([1, 1, 1]);
  });

  it('refunds the monthly count of a request no upstream served', async () => {
    const { key: fresh } = await router.createAccount('pro', { providerKeys: { ...PROVIDER_KEYS } });
    const first = await post('/chat/completions', HELLO, fresh);
    expect(first.status).toBe(200);
    expect(first.headers.get('x-quota-used')).toBe('1');
    fakes.openai.failNext({ kind: 'status', status: 503 });
    fakes.anthropic.failNext({ kind: 'status', status: 503 });
    fakes.gemini.failNext({ kind: 'status', status: 503 });
    const failed = await post('/chat/completions', HELLO, fresh);
    expect(failed.status).toBe(502);
    expect(failed.headers.get('x-quota-used')).toBe('1');
    expect(failed.headers.get('x-quota-remaining')).toBe('49999');
    const next = await post('/chat/completions', HELLO, fresh);
    expect(next.status).toBe(200);
    expect(next.headers.get('x-quota-used')).toBe('2');
  });
});

describe('failover limits', () => {
  let fakes: Fakes;
  let router: TestRouter;
  let key: string;
  let refusedUrl: string;

  beforeAll(async () => {
    fakes = await startFakes();
    refusedUrl = await closedPortUrl();
    router = await startTestRouter({
      patch: { providers: pointProvidersAt({ ...fakes.urls, openai: refusedUrl }, NO_BREAKER), routes: frontierOrder(['openai', 'anthropic', 'gemini'], 1) },
    });
    key = (await router.createAccount('pro', { providerKeys: { ...PROVIDER_KEYS } })).key;
  });
  afterEach(() => fakes.reset());
  afterAll(async () => {
    await router.close();
    await fakes.close();
  });

  it('fails over when the first upstream refuses the connection', async () => {
    const { data, response } = await sdkClient(router, key).chat.completions.create(HELLO).withResponse();
    expect(response.headers.get('x-router-retry-count')).toBe('1');
    expect(response.headers.get('x-router-upstream')).toBe('anthropic');
    expect(data.choices[0]!.message.content).toBe(ANTHROPIC_TEXT);
  });

  it('stops at the retry budget: budget 1 means two attempts even with a third candidate', async () => {
    fakes.anthropic.failNext({ kind: 'status', status: 503 });
    const response = await postV1(router, key, '/chat/completions', HELLO);
    expect(response.status).toBe(502);
    expect(response.headers.get('x-router-retry-count')).toBe('1');
    const { error } = await json(response);
    expect(error.attempts.map((attempt: { provider: string; status: number | null }) => [attempt.provider, attempt.status])).toEqual([
      ['openai', null],
      ['anthropic', 503],
    ]);
    expect(fakes.anthropic.requests).toHaveLength(1);
    expect(fakes.gemini.requests).toHaveLength(0);
  });
});

/** A URL on 127.0.0.1 where nothing listens (the port was just freed). */
async function closedPortUrl(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}/v1`;
}
