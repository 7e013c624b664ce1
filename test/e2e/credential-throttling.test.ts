/**
 * A throttled key (the account's own) is skipped for as long as its provider asked and no longer; a
 * request every candidate of which is throttled is a 429 with the soonest Retry-After, never a 502; a
 * per-day quota is insufficient_quota until Google's reset. Through the official SDK, on a manual clock
 * (the router's), against the fakes.
 */
import OpenAI, { type APIError } from 'openai';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  PROVIDER_KEYS,
  frontierOrder,
  json,
  manualClock,
  pointProvidersAt,
  sdkClient,
  startFakes,
  startTestRouter,
  type Fakes,
  type TestRouter,
} from './router-harness.js';

const HELLO = { model: 'router/frontier', messages: [{ role: 'user' as const, content: 'Say hello' }] };

/** What one SDK call came back with: the status (200 or the error's), the error code, the Retry-After. */
async function outcomeOf(client: OpenAI): Promise<{ status: number; code: string | null; retryAfter: string | null; shouldRetry: string | null }> {
  try {
    await client.chat.completions.create(HELLO);
    return { status: 200, code: null, retryAfter: null, shouldRetry: null };
  } catch (caught) {
    const error = caught as APIError;
    return { status: error.status ?? 0, code: error.code ?? null, retryAfter: error.headers?.get('retry-after') ?? null, shouldRetry: error.headers?.get('x-should-retry') ?? null };
  }
}

/** mulberry32: a small seeded generator, so the fake's throttling is the same on every run. */
function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

describe('a throttled key of one provider (BYOK, shipped circuit breaker: 5 in a row, 30 s)', () => {
  let fakes: Fakes;
  let router: TestRouter;
  const clock = manualClock();

  beforeAll(async () => {
    fakes = await startFakes();
    router = await startTestRouter({ clock, patch: { providers: pointProvidersAt(fakes.urls), routes: frontierOrder(['openai', 'gemini']) } });
  });
  afterEach(() => fakes.reset());
  afterAll(async () => {
    await router.close();
    await fakes.close();
  });

  it('is skipped from its first 429 for exactly the wait the provider named, answered 429 with the time left, then asked again', async () => {
    const client = sdkClient(router, (await router.createAccount('pro', { providerKeys: { openai: PROVIDER_KEYS.openai } })).key);
    fakes.openai.failNext({ kind: 'status', status: 429, retryAfterSeconds: 4 });
    expect(await outcomeOf(client)).toEqual({ status: 429, code: 'rate_limit_exceeded', retryAfter: '4', shouldRetry: 'true' });
    clock.advance(2500);
    // Not asked: the provider said 4 s, and 1.5 s of them are left (the client is told whole seconds).
    expect(await outcomeOf(client)).toEqual({ status: 429, code: 'rate_limit_exceeded', retryAfter: '2', shouldRetry: 'true' });
    expect(fakes.openai.requests).toHaveLength(1);
    clock.advance(1500);
    expect(await outcomeOf(client)).toMatchObject({ status: 200 });
    expect(fakes.openai.requests).toHaveLength(2);
  });

  it("is one account's: another account's key for the same provider is asked and serves meanwhile", async () => {
    const throttled = sdkClient(router, (await router.createAccount('pro', { providerKeys: { openai: PROVIDER_KEYS.openai } })).key);
    const other = sdkClient(router, (await router.createAccount('pro', { providerKeys: { openai: 'sk-test-openai-other-4321' } })).key);
    fakes.openai.failNext({ kind: 'status', status: 429, retryAfterSeconds: 30 });
    expect(await outcomeOf(throttled)).toMatchObject({ status: 429, retryAfter: '30' });
    expect(await outcomeOf(other)).toMatchObject({ status: 200 });
    expect(await outcomeOf(throttled)).toMatchObject({ status: 429, retryAfter: '30' });
    expect(fakes.openai.requests.map((request) => request.headers.authorization)).toEqual(['Bearer sk-test-openai-1234', 'Bearer sk-test-openai-other-4321']);
    clock.advance(30_000);
  });

  it('with the provider refusing 20 % of 200 requests as a rate limiter does: no 502, and no more 429s than the provider would give', async () => {
    const client = sdkClient(router, (await router.createAccount('pro', { providerKeys: { openai: PROVIDER_KEYS.openai } })).key);
    // The upstream is a fixed-window limiter: windows of 50 requests, 100 ms apart (5 s); in each, the
    // requests past a seeded limit of 36 to 44 are refused with a 429 whose Retry-After is the time left
    // in the window, as a provider's limiter says it. On average 10 of 50 are refused: 20 %.
    const random = seeded(30);
    const STEP_MS = 100;
    const WINDOW = 50;
    const REQUESTS = 200;
    const limits = Array.from({ length: REQUESTS / WINDOW }, () => 36 + Math.floor(random() * 9));
    const start = clock.now();
    let refusedByLimiter = 0;
    let upstreamCalls = 0;
    const outcomes: Array<Awaited<ReturnType<typeof outcomeOf>>> = [];
    for (let i = 0; i < REQUESTS; i++) {
      clock.set(new Date(start + i * STEP_MS).toISOString());
      const position = i % WINDOW;
      if (position >= limits[Math.floor(i / WINDOW)]!) {
        refusedByLimiter++;
        const leftMs = (WINDOW - position) * STEP_MS;
        fakes.openai.failAlways({ kind: 'status', status: 429, retryAfterSeconds: leftMs / 1000 });
      }
      outcomes.push(await outcomeOf(client));
      upstreamCalls += fakes.openai.requests.length;
      fakes.openai.reset();
    }
    const count = (status: number) => outcomes.filter((outcome) => outcome.status === status).length;
    expect(refusedByLimiter).toBeLessThanOrEqual(0.25 * REQUESTS);
    expect(count(502)).toBe(0);
    // The router refuses without asking only inside a wait the provider named, when the provider would
    // refuse too: the client sees exactly the limiter's refusals as 429s, each with a Retry-After.
    expect(count(429)).toBe(refusedByLimiter);
    expect(count(200)).toBe(REQUESTS - refusedByLimiter);
    for (const outcome of outcomes.filter((o) => o.status === 429)) expect(outcome).toMatchObject({ code: 'rate_limit_exceeded', shouldRetry: 'true', retryAfter: expect.stringMatching(/^[1-5]$/) });
    // One call per window is the refused one; the rest of each window's refusals cost the provider nothing.
    expect(upstreamCalls).toBe(REQUESTS - refusedByLimiter + limits.length);
    clock.advance(60_000);
  });
});

describe("Gemini's quotas (the account's own key)", () => {
  let fakes: Fakes;
  let router: TestRouter;
  const clock = manualClock('2026-11-21T10:00:00.000Z');

  beforeAll(async () => {
    fakes = await startFakes();
    router = await startTestRouter({ clock, patch: { providers: pointProvidersAt(fakes.urls), routes: frontierOrder(['gemini']) } });
  });
  afterEach(() => fakes.reset());
  afterAll(async () => {
    await router.close();
    await fakes.close();
  });

  it('a per-day quota is 429 insufficient_quota with x-should-retry: false and no Retry-After, and the key rests until Pacific midnight', async () => {
    const client = sdkClient(router, (await router.createAccount('pro', { providerKeys: { gemini: PROVIDER_KEYS.gemini } })).key);
    fakes.gemini.failNext({ kind: 'out-of-credit' });
    const refused = await outcomeOf(client);
    expect(refused).toEqual({ status: 429, code: 'insufficient_quota', retryAfter: null, shouldRetry: 'false' });
    // 10:00 UTC on Nov 21 is 02:00 in Los Angeles (PST): Google resets the quota at 08:00 UTC on Nov 22.
    clock.set('2026-11-22T07:59:59.000Z');
    expect(await outcomeOf(client)).toEqual(refused);
    expect(fakes.gemini.requests).toHaveLength(1);
    clock.set('2026-11-22T08:00:00.000Z');
    expect(await outcomeOf(client)).toMatchObject({ status: 200 });
    expect(fakes.gemini.requests).toHaveLength(2);
  });

  it('a per-minute quota stays a rate limit with the RetryInfo delay as Retry-After', async () => {
    const client = sdkClient(router, (await router.createAccount('pro', { providerKeys: { gemini: PROVIDER_KEYS.gemini } })).key);
    fakes.gemini.failNext({ kind: 'status', status: 429, retryAfterSeconds: 41 });
    expect(await outcomeOf(client)).toEqual({ status: 429, code: 'rate_limit_exceeded', retryAfter: '41', shouldRetry: 'true' });
    const raw = await fetch(`${router.baseURL}/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${client.apiKey}`, 'content-type': 'application/json', 'user-agent': 'router-tests/1.0' },
      body: JSON.stringify(HELLO),
    });
    expect(raw.status).toBe(429);
    expect((await json(raw)).error).toMatchObject({ type: 'rate_limit_error', code: 'rate_limit_exceeded', attempts: [{ provider: 'gemini', error: 'credential_throttled', skipped: true }] });
  });
});

describe('the public status page and the provider circuits: provider faults only, never a key', () => {
  const OPERATOR_KEY = 'sk-operator-openai-9999';
  let fakes: Fakes;
  let router: TestRouter;

  beforeAll(async () => {
    fakes = await startFakes();
    router = await startTestRouter({
      env: { OPENAI_API_KEY: OPERATOR_KEY },
      patch: {
        plans: (doc: any) => void (doc.plans.find((plan: { id: string }) => plan.id === 'pro').managedSpendCapUsd = 50),
        providers: pointProvidersAt(fakes.urls, (doc) => void (doc.managedAccess = { enabled: true })),
        routes: frontierOrder(['openai']),
      },
    });
  });
  afterAll(async () => {
    await router.close();
    await fakes.close();
  });

  const statusOf = async (provider: string) => {
    const status = await json(await fetch(`${router.url}/status`, { headers: { 'user-agent': 'router-tests/1.0' } }));
    return status.providers.find((entry: { provider: string }) => entry.provider === provider);
  };
  const statusPageSummary = async () => {
    const html = await (await fetch(`${router.url}/status`, { headers: { 'user-agent': 'router-tests/1.0', accept: 'text/html' } })).text();
    return html.match(/Last hour for OpenAI: ([^"]+)"/)?.[1];
  };

  it("one account's rejected and throttled key, and the operator's rejected managed key, leave openai operational for another account", async () => {
    const rejected = sdkClient(router, (await router.createAccount('pro', { providerKeys: { openai: 'sk-test-openai-revoked-0000' } })).key);
    const throttled = sdkClient(router, (await router.createAccount('pro', { providerKeys: { openai: 'sk-test-openai-busy-1111' } })).key);
    const managed = sdkClient(router, (await router.createAccount('pro')).key);
    const healthy = sdkClient(router, (await router.createAccount('pro', { providerKeys: { openai: PROVIDER_KEYS.openai } })).key);
    fakes.openai.rejectKey('sk-test-openai-revoked-0000');
    fakes.openai.rejectKey(OPERATOR_KEY);
    // More refusals than the provider circuit's threshold (5 in a row), of every kind a key can get.
    for (let i = 0; i < 6; i++) {
      expect(await outcomeOf(rejected)).toMatchObject({ status: 502 });
      expect(await outcomeOf(managed)).toMatchObject({ status: 502 });
    }
    fakes.openai.failNext({ kind: 'status', status: 429, retryAfterSeconds: 60 });
    expect(await outcomeOf(throttled)).toMatchObject({ status: 429 });
    for (let i = 0; i < 3; i++) expect(await outcomeOf(healthy)).toMatchObject({ status: 200 });
    expect(await statusOf('openai')).toMatchObject({ state: 'closed', recentSuccessRate: 1, recentRequests: 3 });
    expect(await statusPageSummary()).toMatch(/^1 healthy, 0 degraded, 0 down/);
  });
});
