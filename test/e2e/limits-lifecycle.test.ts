/**
 * How the limits move over time and across an account: month rollover, plan changes, several keys, and
 * requests that must never be counted (authentication failures, the router's own rejections).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  frontierOrder,
  json,
  limitHeadersOf,
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

const UA = { 'user-agent': 'router-tests/1.0' };
const OPENAI = { providerKeys: { openai: PROVIDER_KEYS.openai } };

describe('limits over time and across an account (manual clock)', () => {
  const clock = manualClock();
  let fakes: Fakes;
  let router: TestRouter;
  const chat = (key: string, extra: Record<string, unknown> = {}) => postChat(router.baseURL, key, extra);
  const quota = (response: Response) => [response.headers.get('x-quota-used'), response.headers.get('x-quota-remaining')];
  const window = (response: Response) => [response.headers.get('x-ratelimit-limit'), response.headers.get('x-ratelimit-remaining')];

  beforeAll(async () => {
    fakes = await startFakes();
    router = await startTestRouter({
      clock,
      patch: {
        plans: planLimits({ free: { monthlyRequests: 5, requestsPerMinute: 3 }, pro: { monthlyRequests: 50, requestsPerMinute: 10 } }),
        providers: pointProvidersAt(fakes.urls),
        routes: frontierOrder(['openai']),
      },
    });
  });
  afterAll(async () => {
    await router.close();
    await fakes.close();
  });

  it('resets the count at 00:00:00Z on the first of the month and moves X-Quota-Reset a month on', async () => {
    clock.set('2026-11-30T23:55:00.000Z');
    const { key, accountId } = await router.createAccount('free', OPENAI);
    for (let i = 0; i < 5; i++) {
      expect((await chat(key)).status).toBe(200);
      clock.advance(61_000);
    }
    clock.set('2026-11-30T23:59:59.999Z');
    const last = await chat(key);
    expect(last.status).toBe(429);
    expect((await json(last)).error.code).toBe('monthly_quota_exceeded');
    expect(last.headers.get('x-quota-reset')).toBe('2026-12-01T00:00:00.000Z');
    expect(last.headers.get('ratelimit')).toMatch(/"monthly";r=0;t=1$/);

    clock.set('2026-12-01T00:00:00.000Z');
    const fresh = await chat(key);
    expect(fresh.status).toBe(200);
    expect(limitHeadersOf(fresh)).toMatchObject({
      'x-quota-limit': '5',
      'x-quota-used': '1',
      'x-quota-remaining': '4',
      'x-quota-reset': '2027-01-01T00:00:00.000Z',
      'ratelimit-policy': '"minute";q=3;w=60, "monthly";q=5;w=2678400',
    });
    expect(fresh.headers.get('ratelimit')).toMatch(/"monthly";r=4;t=2678400$/);
    await router.server.runtime.quota.settle();
    expect(await router.server.runtime.store.readQuota(accountId, '2026-11')).toBe(5);
    expect(await router.server.runtime.store.readQuota(accountId, '2026-12')).toBe(1);
  });

  it('applies a plan change to the very next request, both limits, upgrade and downgrade', async () => {
    clock.set('2026-11-21T10:00:00.000Z');
    const { key, accountId } = await router.createAccount('free', OPENAI);
    for (let i = 0; i < 3; i++) expect((await chat(key)).status).toBe(200);
    expect((await chat(key)).status).toBe(429);

    await router.server.runtime.store.setAccountPlan(accountId, 'pro', 'test');
    const upgraded = await chat(key);
    expect(upgraded.status).toBe(200);
    expect(limitHeadersOf(upgraded)).toMatchObject({ 'x-quota-limit': '50', 'x-quota-used': '4', 'x-quota-remaining': '46' });
    expect(window(upgraded)).toEqual(['10', '6']);
    expect(upgraded.headers.get('ratelimit-policy')).toBe('"minute";q=10;w=60, "monthly";q=50;w=2592000');

    await router.server.runtime.store.setAccountPlan(accountId, 'free', 'test');
    const downgraded = await chat(key);
    // Four admissions in the window now exceed free's three: rejected, and the monthly count given back.
    expect(downgraded.status).toBe(429);
    expect((await json(downgraded)).error.code).toBe('rate_limit_exceeded');
    expect(limitHeadersOf(downgraded)).toMatchObject({ 'x-quota-limit': '5', 'x-quota-used': '4', 'x-ratelimit-limit': '3', 'x-ratelimit-remaining': '0' });
  });

  it('never counts requests rejected by authentication or at the edge', async () => {
    clock.set('2026-11-21T11:00:00.000Z');
    const { key, accountId } = await router.createAccount('free', OPENAI);
    const { key: revoked, record } = await router.server.runtime.keys.issue(accountId, 'old', 'test');
    await router.server.runtime.keys.revoke(record.id, 'test');
    const typo = key.slice(0, -1) + (key.endsWith('a') ? 'b' : 'a');
    for (const authorization of [`Bearer ${revoked}`, `Bearer ${typo}`, '', 'Basic eDp5']) {
      for (let i = 0; i < 4; i++) {
        const response = await fetch(`${router.baseURL}/chat/completions`, {
          method: 'POST',
          headers: { ...UA, authorization, 'content-type': 'application/json' },
          body: JSON.stringify({ model: 'router/frontier', messages: [{ role: 'user', content: 'hi' }] }),
        });
        expect(response.status).toBe(401);
        expect(response.headers.get('x-quota-used')).toBeNull();
      }
    }
    const noAgent = await fetch(`${router.baseURL}/models`, { headers: { authorization: `Bearer ${key}`, 'user-agent': '' } });
    expect(noAgent.status).toBe(403);

    const first = await chat(key);
    expect(first.status).toBe(200);
    expect(quota(first)).toEqual(['1', '4']);
    expect(window(first)).toEqual(['3', '2']);
  });

  it('shares one quota and one window between all keys of an account', async () => {
    clock.set('2026-11-21T12:00:00.000Z');
    const { key: laptop, accountId } = await router.createAccount('free', OPENAI);
    const { key: server } = await router.server.runtime.keys.issue(accountId, 'server', 'test');
    const sequence = [
      [laptop, 200, '1', '2'],
      [server, 200, '2', '1'],
      [laptop, 200, '3', '0'],
      [server, 429, '3', '0'],
    ] as const;
    for (const [key, status, used, windowLeft] of sequence) {
      const response = await chat(key);
      expect([response.status, response.headers.get('x-quota-used'), response.headers.get('x-ratelimit-remaining')]).toEqual([status, used, windowLeft]);
    }
    clock.advance(60_000);
    expect(quota(await chat(server))).toEqual(['4', '1']);
    expect(quota(await chat(laptop))).toEqual(['5', '0']);
    const exhausted = await chat(server);
    expect(exhausted.status).toBe(429);
    expect((await json(exhausted)).error.code).toBe('monthly_quota_exceeded');
  });

  it('does not count requests the router refuses itself: unknown profile, profile outside the plan', async () => {
    clock.set('2026-11-21T13:00:00.000Z');
    const { key } = await router.createAccount('free', OPENAI);
    const unknown = await chat(key, { model: 'router/nope' });
    expect(unknown.status).toBe(404);
    expect(quota(unknown)).toEqual(['0', '5']);
    const fusion = await chat(key, { model: 'router/fusion' });
    expect(fusion.status).toBe(403);
    expect(quota(fusion)).toEqual(['0', '5']);
    // Both still took a place in the minute window: every /v1 call counts per minute.
    const served = await chat(key);
    expect([quota(served), window(served)]).toEqual([['1', '4'], ['3', '0']]);
  });
});
