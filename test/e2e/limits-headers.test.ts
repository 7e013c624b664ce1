/**
 * The exact quota and rate-limit headers of every kind of authenticated /v1 response, under a clock the
 * test moves by hand. Plans are patched small (free: 5 a month, 3 a minute) so every limit is reachable.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  frontierOrder,
  json,
  limitHeadersOf,
  manualClock,
  planLimits,
  pointProvidersAt,
  postChat,
  PROVIDER_KEYS,
  readSse,
  startFakes,
  startTestRouter,
  type Fakes,
  type TestRouter,
} from './router-harness.js';

const UA = { 'user-agent': 'router-tests/1.0' };
const START = '2026-11-21T10:00:00.000Z';
/** Seconds from START to 2026-12-01T00:00:00Z: 9 days and 14 hours. */
const TO_DECEMBER = 9 * 86_400 + 14 * 3_600;
const NOVEMBER_SECONDS = 30 * 86_400;

/** Every header a free-plan response carries, from the numbers that decide them. */
function expected(q: { used: number; elapsedMs: number }, r: { remaining: number; reset: number }, retryAfter?: number) {
  const quotaRemaining = Math.max(0, 5 - q.used);
  const monthlyT = Math.ceil(TO_DECEMBER - q.elapsedMs / 1000);
  return {
    'x-quota-limit': '5',
    'x-quota-used': String(q.used),
    'x-quota-remaining': String(quotaRemaining),
    'x-quota-period': 'monthly',
    'x-quota-reset': '2026-12-01T00:00:00.000Z',
    'x-ratelimit-limit': '3',
    'x-ratelimit-remaining': String(r.remaining),
    'x-ratelimit-reset': String(r.reset),
    'ratelimit-policy': `"minute";q=3;w=60, "monthly";q=5;w=${NOVEMBER_SECONDS}`,
    ratelimit: `"minute";r=${r.remaining};t=${r.reset}, "monthly";r=${quotaRemaining};t=${monthlyT}`,
    ...(retryAfter === undefined ? {} : { 'retry-after': String(retryAfter) }),
  };
}

describe('limit headers on every authenticated /v1 response (manual clock)', () => {
  const clock = manualClock(START);
  let fakes: Fakes;
  let router: TestRouter;
  let key: string;
  const elapsed = () => clock.now() - Date.parse(START);
  const chat = (extra: Record<string, unknown> = {}) => postChat(router.baseURL, key, extra);

  beforeAll(async () => {
    fakes = await startFakes();
    router = await startTestRouter({
      clock,
      patch: {
        plans: planLimits({ free: { monthlyRequests: 5, requestsPerMinute: 3 } }),
        providers: pointProvidersAt(fakes.urls),
        routes: frontierOrder(['openai']),
      },
    });
  });
  afterAll(async () => {
    await router.close();
    await fakes.close();
  });
  beforeEach(async () => {
    clock.set(START);
    fakes.reset();
    ({ key } = await router.createAccount('free', { providerKeys: { openai: PROVIDER_KEYS.openai } }));
  });

  it('reports exact quota, window and IETF RateLimit values on successful requests', async () => {
    const first = await chat();
    expect(first.status).toBe(200);
    expect(limitHeadersOf(first)).toEqual(expected({ used: 1, elapsedMs: 0 }, { remaining: 2, reset: 60 }));
    clock.advance(15_000);
    const second = await chat();
    expect(second.status).toBe(200);
    // The window frees capacity when the first admission (15 s ago) leaves it.
    expect(limitHeadersOf(second)).toEqual(expected({ used: 2, elapsedMs: 15_000 }, { remaining: 1, reset: 45 }));
  });

  it('rate limits with 429 rate_limit_exceeded and an honest whole-second Retry-After, without counting monthly', async () => {
    for (const at of [0, 10_000, 20_400]) {
      clock.set(START);
      clock.advance(at);
      expect((await chat()).status).toBe(200);
    }
    clock.advance(10_000);
    const limited = await chat();
    expect(limited.status).toBe(429);
    expect((await json(limited)).error).toMatchObject({ type: 'rate_limit_error', code: 'rate_limit_exceeded' });
    // The oldest admission (at 0 s) leaves the window 29.6 s from now: rounded up to 30.
    expect(limitHeadersOf(limited)).toEqual(expected({ used: 3, elapsedMs: elapsed() }, { remaining: 0, reset: 30 }, 30));

    clock.advance(29_000);
    const early = await chat();
    expect(early.status).toBe(429);
    expect(early.headers.get('retry-after')).toBe('1');
    expect(early.headers.get('x-quota-used')).toBe('3');

    clock.advance(1_000);
    const admitted = await chat();
    expect(admitted.status).toBe(200);
    expect(limitHeadersOf(admitted)).toEqual(expected({ used: 4, elapsedMs: elapsed() }, { remaining: 0, reset: 10 }));
  });

  it('answers an exhausted monthly quota with 429 insufficient_quota, its links and no retry', async () => {
    for (let i = 0; i < 5; i++) {
      expect((await chat()).status).toBe(200);
      clock.advance(61_000);
    }
    expect((await chat()).status).toBe(429);
    clock.advance(5_000);
    const exhausted = await chat();
    expect(exhausted.status).toBe(429);
    expect(exhausted.headers.get('x-should-retry')).toBe('false');
    // The rejected request took no place in the minute window: nothing admitted in the last 60 s.
    expect(limitHeadersOf(exhausted)).toEqual(expected({ used: 5, elapsedMs: elapsed() }, { remaining: 3, reset: 0 }));
    const { error } = await json(exhausted);
    expect(error).toMatchObject({
      type: 'insufficient_quota',
      code: 'monthly_quota_exceeded',
      upgradeUrl: 'http://localhost:8787/app/checkout?plan=pro',
      billingUrl: 'http://localhost:8787/app/billing',
      supportUrl: 'http://localhost:8787/app/support',
    });
    expect(error.message).toContain('2026-12-01T00:00:00.000Z');
    expect(fakes.openai.requests).toHaveLength(5);
  });

  it('puts the limit headers on a streamed (SSE) response', async () => {
    const response = await chat({ stream: true });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain('text/event-stream');
    expect(limitHeadersOf(response)).toEqual(expected({ used: 1, elapsedMs: 0 }, { remaining: 2, reset: 60 }));
    const events = await readSse(response);
    expect(events.at(-1)?.data).toBe('[DONE]');
  });

  it('lists models with the headers, counting the call per minute but not monthly', async () => {
    expect((await chat()).status).toBe(200);
    clock.advance(1_000);
    const models = await fetch(`${router.baseURL}/models`, { headers: { ...UA, authorization: `Bearer ${key}` } });
    expect(models.status).toBe(200);
    expect(limitHeadersOf(models)).toEqual(expected({ used: 1, elapsedMs: 1_000 }, { remaining: 1, reset: 59 }));
    clock.advance(1_000);
    const next = await chat();
    expect(limitHeadersOf(next)).toEqual(expected({ used: 2, elapsedMs: 2_000 }, { remaining: 0, reset: 58 }));
  });

  it('carries the headers on client errors raised before the quota stage, which count nothing', async () => {
    const invalid = await chat({ messages: 'not a list' });
    expect(invalid.status).toBe(400);
    expect(limitHeadersOf(invalid)).toEqual(expected({ used: 0, elapsedMs: 0 }, { remaining: 3, reset: 0 }));
  });
});
