import OpenAI, { type APIError } from 'openai';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { PROVIDER_KEYS, frontierOrder, json, manualClock, pointProvidersAt, postV1, startFakes, startTestRouter, type Fakes, type TestRouter } from './router-harness.js';

const HELLO = { model: 'router/frontier', messages: [{ role: 'user' as const, content: 'Say hello' }] };
/** Circuits must not open while these tests refuse the same provider again and again. */
const NO_BREAKER = (doc: any) => void (doc.circuitBreaker = { failureThreshold: 1000, cooldownMs: 1000 });

describe('upstream refusals: every candidate rate-limited or out of credit', () => {
  let fakes: Fakes;
  let router: TestRouter;
  let key: string;
  let twoProviders: string;
  /** The router's: a throttled key rests for its provider's wait, which each test lets pass before the next. */
  const clock = manualClock();

  beforeAll(async () => {
    fakes = await startFakes();
    router = await startTestRouter({ clock, patch: { providers: pointProvidersAt(fakes.urls, NO_BREAKER), routes: frontierOrder(['openai', 'anthropic', 'gemini']) } });
    key = (await router.createAccount('pro', { providerKeys: { ...PROVIDER_KEYS } })).key;
    twoProviders = (await router.createAccount('pro', { providerKeys: { openai: PROVIDER_KEYS.openai, anthropic: PROVIDER_KEYS.anthropic } })).key;
  });
  afterEach(() => {
    fakes.reset();
    clock.advance(60_000);
  });
  afterAll(async () => {
    await router.close();
    await fakes.close();
  });

  it('answers 429 rate_limit_exceeded with the smallest upstream Retry-After when every candidate rate-limits', async () => {
    fakes.openai.failNext({ kind: 'status', status: 429, retryAfterSeconds: 20 });
    fakes.anthropic.failNext({ kind: 'status', status: 429, retryAfterSeconds: 7 });
    fakes.gemini.failNext({ kind: 'status', status: 429, retryAfterSeconds: 12 });
    const response = await postV1(router, key, '/chat/completions', HELLO);
    expect(response.status).toBe(429);
    expect(response.headers.get('retry-after')).toBe('7');
    expect(response.headers.get('x-should-retry')).toBe('true');
    expect(response.headers.get('x-router-retry-count')).toBe('2');
    const { error } = await json(response);
    expect([error.type, error.code]).toEqual(['rate_limit_error', 'rate_limit_exceeded']);
    expect(error.message).toMatch(/retry after 7 seconds/);
    expect(error.attempts.map((attempt: { status: number }) => attempt.status)).toEqual([429, 429, 429]);
  });

  it('gives the official SDK a RateLimitError it waits out', async () => {
    fakes.openai.failNext({ kind: 'status', status: 429, retryAfterSeconds: 3 });
    fakes.anthropic.failNext({ kind: 'status', status: 429, retryAfterSeconds: 2 });
    const client = new OpenAI({ apiKey: twoProviders, baseURL: router.baseURL, maxRetries: 0 });
    const error = (await client.chat.completions.create(HELLO).catch((caught: unknown) => caught)) as APIError;
    expect(error).toBeInstanceOf(OpenAI.RateLimitError);
    expect(error.headers?.get('retry-after')).toBe('2');
  });

  it('answers 429 insufficient_quota with x-should-retry: false when every candidate is out of credit (OpenAI 429, Anthropic 402)', async () => {
    fakes.openai.failNext({ kind: 'out-of-credit' });
    fakes.anthropic.failNext({ kind: 'out-of-credit' });
    const response = await postV1(router, twoProviders, '/chat/completions', HELLO);
    expect(response.status).toBe(429);
    expect(response.headers.get('x-should-retry')).toBe('false');
    expect(response.headers.get('retry-after')).toBeNull();
    const { error } = await json(response);
    expect([error.type, error.code]).toEqual(['insufficient_quota', 'insufficient_quota']);
    expect(error.message).toMatch(/Retrying will not help/);
    expect(JSON.stringify(error)).not.toMatch(/credit balance is too low|exceeded your current quota/);
  });

  it('answers 402 when every refusal was a billing 402', async () => {
    const { key: anthropicOnly } = await router.createAccount('pro', { providerKeys: { anthropic: PROVIDER_KEYS.anthropic } });
    fakes.anthropic.failNext({ kind: 'out-of-credit' });
    const response = await postV1(router, anthropicOnly, '/chat/completions', HELLO);
    expect(response.status).toBe(402);
    expect(response.headers.get('x-should-retry')).toBe('false');
    expect((await json(response)).error.code).toBe('insufficient_quota');
  });

  it('answers the rate limit when some candidates are rate-limited and others out of credit (waiting helps one)', async () => {
    fakes.openai.failNext({ kind: 'out-of-credit' });
    fakes.anthropic.failNext({ kind: 'status', status: 429, retryAfterSeconds: 4 });
    const response = await postV1(router, twoProviders, '/chat/completions', HELLO);
    expect(response.status).toBe(429);
    expect(response.headers.get('retry-after')).toBe('4');
    expect((await json(response)).error.code).toBe('rate_limit_exceeded');
  });

  it('keeps 502 all_upstreams_failed when any candidate failed otherwise', async () => {
    fakes.openai.failNext({ kind: 'status', status: 429 });
    fakes.anthropic.failNext({ kind: 'status', status: 500 });
    const response = await postV1(router, twoProviders, '/chat/completions', HELLO);
    expect(response.status).toBe(502);
    expect((await json(response)).error.code).toBe('all_upstreams_failed');
  });

  it('refunds the monthly count of a request every upstream refused', async () => {
    const { key: fresh } = await router.createAccount('pro', { providerKeys: { openai: PROVIDER_KEYS.openai, anthropic: PROVIDER_KEYS.anthropic } });
    expect((await postV1(router, fresh, '/chat/completions', HELLO)).headers.get('x-quota-used')).toBe('1');
    fakes.openai.failNext({ kind: 'out-of-credit' });
    fakes.anthropic.failNext({ kind: 'out-of-credit' });
    const refused = await postV1(router, fresh, '/chat/completions', HELLO);
    expect(refused.status).toBe(429);
    expect(refused.headers.get('x-quota-used')).toBe('1');
    expect((await postV1(router, fresh, '/chat/completions', HELLO)).headers.get('x-quota-used')).toBe('2');
  });

  it("keeps a Responses stream's insufficient_quota when the upstream fails it before any output", async () => {
    const { key: openaiOnly } = await router.createAccount('pro', { providerKeys: { openai: PROVIDER_KEYS.openai } });
    fakes.openai.failNext({ kind: 'out-of-credit', inStream: true });
    const response = await postV1(router, openaiOnly, '/responses', { model: 'router/frontier', input: 'Say hello', stream: true });
    expect(response.status).toBe(429);
    expect(response.headers.get('x-should-retry')).toBe('false');
    const { error } = await json(response);
    expect([error.type, error.code]).toEqual(['insufficient_quota', 'insufficient_quota']);
    expect(error.attempts).toEqual([expect.objectContaining({ provider: 'openai', status: 429, error: 'insufficient_quota' })]);
  });
});
