/**
 * What the monthly count keeps and gives back: a request no upstream served is refunded, a rate-limited
 * one never costs a monthly request, and an upstream's own rejection of the request stays counted.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  frontierOrder,
  json,
  manualClock,
  planLimits,
  pointProvidersAt,
  postChat,
  PROVIDER_KEYS,
  startFakes,
  startTestRouter,
  type Fakes,
  type TestRouter,
} from './router-harness.js';

const PERIOD = '2026-11';

describe('monthly refunds (manual clock, three failing fakes)', () => {
  const clock = manualClock('2026-11-21T10:00:00.000Z');
  let fakes: Fakes;
  let router: TestRouter;
  let account: { accountId: string; key: string };
  const chat = (extra: Record<string, unknown> = {}) => postChat(router.baseURL, account.key, extra);
  /** The store's count once the quota gate has settled what it admitted. */
  const stored = async () => {
    await router.server.runtime.quota.settle();
    return router.server.runtime.store.readQuota(account.accountId, PERIOD);
  };
  const failEverywhere = () => {
    for (const fake of [fakes.openai, fakes.anthropic, fakes.gemini]) fake.failAlways({ kind: 'status', status: 503 });
  };

  beforeAll(async () => {
    fakes = await startFakes();
    router = await startTestRouter({
      clock,
      patch: {
        plans: planLimits({ free: { monthlyRequests: 10, requestsPerMinute: 4 } }),
        // Breakers that never open: every request must really try every upstream.
        providers: pointProvidersAt(fakes.urls, (doc) => void (doc.circuitBreaker = { failureThreshold: 1000, cooldownMs: 0 })),
        routes: frontierOrder(['openai', 'anthropic', 'gemini']),
      },
    });
  });
  afterAll(async () => {
    await router.close();
    await fakes.close();
  });
  beforeEach(async () => {
    clock.advance(120_000);
    fakes.reset();
    account = await router.createAccount('free', { providerKeys: { ...PROVIDER_KEYS } });
  });

  it('gives the monthly request back when every upstream failed', async () => {
    expect((await chat()).headers.get('x-quota-used')).toBe('1');
    failEverywhere();
    const failed = await chat();
    expect(failed.status).toBe(502);
    expect((await json(failed)).error.code).toBe('all_upstreams_failed');
    expect(failed.headers.get('x-router-retry-count')).toBe('2');
    expect([fakes.openai.requests.length, fakes.anthropic.requests.length, fakes.gemini.requests.length]).toEqual([2, 1, 1]);
    // The failed request's own headers already show the refund.
    expect(failed.headers.get('x-quota-used')).toBe('1');
    expect(await stored()).toBe(1);

    fakes.reset();
    const next = await chat();
    expect(next.status).toBe(200);
    expect([next.headers.get('x-quota-used'), next.headers.get('x-quota-remaining')]).toEqual(['2', '8']);
  });

  it('gives the monthly request back when a stream found no upstream before its first byte', async () => {
    failEverywhere();
    const failed = await chat({ stream: true });
    expect(failed.status).toBe(502);
    expect(failed.headers.get('x-quota-used')).toBe('0');
    expect(await stored()).toBe(0);
  });

  it('never charges a rate-limited request to the monthly quota', async () => {
    for (let i = 1; i <= 4; i++) expect((await chat()).headers.get('x-quota-used')).toBe(String(i));
    for (let i = 0; i < 3; i++) {
      const limited = await chat();
      expect(limited.status).toBe(429);
      expect(limited.headers.get('x-quota-used')).toBe('4');
    }
    expect(await stored()).toBe(4);
    expect(fakes.openai.requests).toHaveLength(4);
  });

  it('keeps counting a request an upstream answered with its own client error', async () => {
    fakes.openai.failNext({ kind: 'status', status: 400 });
    const rejected = await chat();
    expect(rejected.status).toBe(400);
    // The upstream's own error is passed on as it was (the fake's 400 is a context-length error).
    expect((await json(rejected)).error).toMatchObject({ type: 'invalid_request_error', code: 'context_length_exceeded' });
    expect(rejected.headers.get('x-quota-used')).toBe('1');
    expect(await stored()).toBe(1);
  });
});
