/**
 * Concurrent requests through real HTTP against one router on SQLite: exactly the limit is admitted,
 * never one more, and every admitted request is really served by the (fake) upstream. The in-flight cap
 * is lifted here so only the limit under test decides (limits-in-flight.test.ts tests that cap).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  admittedValues,
  burst,
  frontierOrder,
  manualClock,
  planLimits,
  pointProvidersAt,
  PROVIDER_KEYS,
  startFakes,
  startTestRouter,
  tally,
  type Fakes,
  type TestRouter,
} from './router-harness.js';

const CONCURRENT = 40;
const MONTHLY = 15;
const PER_MINUTE = 12;

const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);

describe(`${CONCURRENT} concurrent requests against one SQLite router`, () => {
  // A frozen clock: every request of a burst falls in the same window, whatever the machine's speed.
  const clock = manualClock('2026-11-21T10:00:00.000Z');
  let fakes: Fakes;
  let router: TestRouter;

  beforeAll(async () => {
    fakes = await startFakes();
    router = await startTestRouter({
      clock,
      patch: {
        plans: planLimits({ free: { monthlyRequests: MONTHLY, requestsPerMinute: 1000, maxConcurrentRequests: 1000 }, pro: { monthlyRequests: 1_000_000, requestsPerMinute: PER_MINUTE, maxConcurrentRequests: 1000 } }),
        providers: pointProvidersAt(fakes.urls),
        routes: frontierOrder(['openai']),
      },
    });
  });
  afterAll(async () => {
    await router.close();
    await fakes.close();
  });

  it(`admits exactly ${MONTHLY} against a monthly quota of ${MONTHLY}`, async () => {
    fakes.reset();
    const { key, accountId } = await router.createAccount('free', { providerKeys: { openai: PROVIDER_KEYS.openai } });
    const outcomes = await burst([router.baseURL], key, CONCURRENT);
    expect(tally(outcomes)).toEqual({ '200': MONTHLY, '429 monthly_quota_exceeded': CONCURRENT - MONTHLY });
    // Each admission saw its own count: the check-and-increment is one step.
    expect(admittedValues(outcomes, (outcome) => outcome.quotaUsed)).toEqual(range(1, MONTHLY));
    expect(outcomes.filter((outcome) => outcome.status === 429).every((outcome) => outcome.retryAfter === null)).toBe(true);
    expect(fakes.openai.requests).toHaveLength(MONTHLY);
    // The quota gate settles its admissions every second; settle() writes them now.
    await router.server.runtime.quota.settle();
    expect(await router.server.runtime.store.readQuota(accountId, '2026-11')).toBe(MONTHLY);
  });

  it(`admits exactly ${PER_MINUTE} against ${PER_MINUTE} requests per minute, charging the monthly quota only for those`, async () => {
    fakes.reset();
    const { key, accountId } = await router.createAccount('pro', { providerKeys: { openai: PROVIDER_KEYS.openai } });
    const outcomes = await burst([router.baseURL], key, CONCURRENT);
    expect(tally(outcomes)).toEqual({ '200': PER_MINUTE, '429 rate_limit_exceeded': CONCURRENT - PER_MINUTE });
    expect(admittedValues(outcomes, (outcome) => outcome.rateRemaining)).toEqual(range(0, PER_MINUTE - 1));
    // The clock is frozen, so the whole window is ahead: every rejection says 60 s.
    expect(new Set(outcomes.filter((outcome) => outcome.status === 429).map((outcome) => outcome.retryAfter))).toEqual(new Set(['60']));
    expect(fakes.openai.requests).toHaveLength(PER_MINUTE);
    await router.server.runtime.quota.settle();
    expect(await router.server.runtime.store.readQuota(accountId, '2026-11')).toBe(PER_MINUTE);
  });
});
