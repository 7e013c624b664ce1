/**
 * Two router processes sharing PostgreSQL (monthly counts) and Redis (minute windows): concurrent
 * requests spread over both instances admit exactly the limit between them, and no more.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clusterSkipReason, startCluster, type Cluster } from './multi-instance-cluster.js';
import { admittedValues, burst, tally } from './router-harness.js';

if (clusterSkipReason) console.warn(clusterSkipReason);

const CONCURRENT = 40;
const MONTHLY = 15;
const PER_MINUTE = 12;
const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);

describe.skipIf(clusterSkipReason !== undefined)('limits shared by two router processes (PostgreSQL + Redis)', () => {
  let cluster: Cluster;
  const baseURLs = () => cluster.routers.map((router) => router.baseURL);

  beforeAll(async () => {
    cluster = await startCluster({
      plans: { free: { monthlyRequests: MONTHLY, requestsPerMinute: 1000 }, pro: { monthlyRequests: 1_000_000, requestsPerMinute: PER_MINUTE } },
    });
  }, 60_000);
  afterAll(async () => {
    await cluster?.close();
  });

  it('runs both instances on the shared store and the shared windows', async () => {
    for (const router of cluster.routers) {
      const ready = await fetch(`${router.url}/readyz`);
      expect(await ready.json()).toEqual({ status: 'ready', store: 'postgres', rateLimiter: { backend: 'redis' } });
    }
  });

  it(`admits exactly ${MONTHLY} of ${CONCURRENT} concurrent requests against a monthly quota of ${MONTHLY}`, async () => {
    cluster.fakes.reset();
    const { key, accountId } = await cluster.createAccount('free');
    const outcomes = await burst(baseURLs(), key, CONCURRENT);
    expect(tally(outcomes)).toEqual({ '200': MONTHLY, '429 monthly_quota_exceeded': CONCURRENT - MONTHLY });
    // One counter row serializes both instances: each admission saw its own count.
    expect(admittedValues(outcomes, (outcome) => outcome.quotaUsed)).toEqual(range(1, MONTHLY));
    expect(cluster.fakes.openai.requests).toHaveLength(MONTHLY);
    expect(await cluster.readQuota(accountId)).toBe(MONTHLY);
  });

  it(`admits exactly ${PER_MINUTE} of ${CONCURRENT} concurrent requests against ${PER_MINUTE} per minute`, async () => {
    cluster.fakes.reset();
    const { key, accountId } = await cluster.createAccount('pro');
    const outcomes = await burst(baseURLs(), key, CONCURRENT);
    expect(tally(outcomes)).toEqual({ '200': PER_MINUTE, '429 rate_limit_exceeded': CONCURRENT - PER_MINUTE });
    // One Redis window for both instances: the remaining counts of the admissions are all distinct.
    expect(admittedValues(outcomes, (outcome) => outcome.rateRemaining)).toEqual(range(0, PER_MINUTE - 1));
    const waits = outcomes.filter((outcome) => outcome.status === 429).map((outcome) => Number(outcome.retryAfter));
    expect(waits.every((seconds) => Number.isInteger(seconds) && seconds >= 1 && seconds <= 60)).toBe(true);
    expect(cluster.fakes.openai.requests).toHaveLength(PER_MINUTE);
    // Rate-limited requests gave their monthly count back on whichever instance rejected them.
    expect(await cluster.readQuota(accountId)).toBe(PER_MINUTE);
  });
});
