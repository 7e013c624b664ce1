/**
 * Two router processes sharing PostgreSQL (durable monthly counts) and Redis (minute windows and the
 * monthly quota gate): concurrent requests spread over both instances admit exactly the limit between
 * them, and no more, and PostgreSQL ends up with the exact count.
 */
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clusterSkipReason, startCluster, type Cluster } from './multi-instance-cluster.js';
import { MAX_RESERVATION } from '../../src/stores/redis/create-redis-quota-gate.js';
import { admittedValues, burst, postChat, tally } from './router-harness.js';

if (clusterSkipReason) console.warn(clusterSkipReason);

const CONCURRENT = 40;
const MONTHLY = 15;
const PER_MINUTE = 12;
const IN_FLIGHT = 7;
const postChatStatus = async (baseURL: string, key: string) => (await postChat(baseURL, key)).status;
const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);

// Each test spawns CLI processes and sends a burst through two routers: 20 s was not enough on a loaded CI machine.
describe.skipIf(clusterSkipReason !== undefined)('limits shared by two router processes (PostgreSQL + Redis)', { timeout: 60_000 }, () => {
  let cluster: Cluster;
  const baseURLs = () => cluster.routers.map((router) => router.baseURL);

  beforeAll(async () => {
    cluster = await startCluster({
      plans: {
        free: { monthlyRequests: MONTHLY, requestsPerMinute: 1000, maxConcurrentRequests: 1000 },
        pro: { monthlyRequests: 1_000_000, requestsPerMinute: PER_MINUTE, maxConcurrentRequests: 1000 },
        max: { monthlyRequests: 1_000_000, requestsPerMinute: 100_000, maxConcurrentRequests: IN_FLIGHT },
      },
    });
  }, 60_000);
  afterAll(async () => {
    await cluster?.close();
  });

  it('runs both instances on the shared store and the shared windows', async () => {
    for (const router of cluster.routers) {
      const ready = await fetch(`${router.url}/readyz`);
      expect(await ready.json()).toMatchObject({
        status: 'ready',
        store: 'postgres',
        quota: { backend: 'redis-gate' },
        rateLimiter: { backend: 'redis' },
        concurrency: { backend: 'redis' },
        ledger: { state: 'ok', dropped: 0 },
      });
    }
  });

  it(`admits exactly ${MONTHLY} of ${CONCURRENT} concurrent requests against a monthly quota of ${MONTHLY}`, async () => {
    cluster.fakes.reset();
    const { key, accountId } = await cluster.createAccount('free');
    const outcomes = await burst(baseURLs(), key, CONCURRENT);
    expect(tally(outcomes)).toEqual({ '200': MONTHLY, '429 monthly_quota_exceeded': CONCURRENT - MONTHLY });
    // One Redis counter serializes both instances: each admission saw its own count.
    expect(admittedValues(outcomes, (outcome) => outcome.quotaUsed)).toEqual(range(1, MONTHLY));
    expect(cluster.fakes.openai.requests).toHaveLength(MONTHLY);
    // PostgreSQL holds every admitted unit from before it was used, and ends with the exact count.
    expect(await cluster.readQuotaCommitted(accountId)).toBe(MONTHLY);
    expect(await cluster.settledQuota(accountId, MONTHLY)).toBe(MONTHLY);
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
    expect(await cluster.settledQuota(accountId, PER_MINUTE)).toBe(PER_MINUTE);
    // The rest of what the gates reserved stays held for the next requests: here one block per instance at most.
    const committed = await cluster.readQuotaCommitted(accountId);
    expect(committed).toBeGreaterThanOrEqual(PER_MINUTE);
    expect(committed).toBeLessThanOrEqual(PER_MINUTE + 2 * MAX_RESERVATION);
  });

  it(`admits exactly ${IN_FLIGHT} of ${CONCURRENT} slow requests in flight at once between both instances, and frees every slot`, async () => {
    cluster.fakes.reset();
    cluster.fakes.openai.setReply({ latencyMs: 800 });
    const { key, accountId } = await cluster.createAccount('max');
    const outcomes = await burst(baseURLs(), key, CONCURRENT);
    expect(tally(outcomes)).toEqual({ '200': IN_FLIGHT, '429 concurrency_limit_exceeded': CONCURRENT - IN_FLIGHT });
    expect(cluster.fakes.openai.requests).toHaveLength(IN_FLIGHT);
    // Every lease was removed as its request ended: nothing is left in Redis, and the next burst gets the whole cap.
    const redis = new Redis(process.env.ROUTER_TEST_REDIS_URL ?? '');
    expect(await redis.zcard(`${cluster.keyPrefix}inflight:{${accountId}}`)).toBe(0);
    redis.disconnect();
    expect(tally(await burst(baseURLs(), key, CONCURRENT))).toEqual({ '200': IN_FLIGHT, '429 concurrency_limit_exceeded': CONCURRENT - IN_FLIGHT });
    cluster.fakes.openai.setReply({});
  });

  it('never admits past the quota when Redis loses the quota gate mid-month: it starts again from PostgreSQL', async () => {
    cluster.fakes.reset();
    const { key, accountId } = await cluster.createAccount('free');
    const [first, second] = baseURLs() as [string, string];
    for (let i = 0; i < 5; i++) expect((await postChatStatus(i % 2 === 0 ? first : second, key))).toBe(200);

    const redis = new Redis(process.env.ROUTER_TEST_REDIS_URL ?? '');
    const gateKeys = await redis.keys(`${cluster.keyPrefix}quota*{${accountId}}*`);
    expect(gateKeys.length).toBeGreaterThanOrEqual(2);
    await redis.del(...gateKeys);
    await redis.quit();

    const outcomes = await burst(baseURLs(), key, CONCURRENT);
    expect(tally(outcomes)).toEqual({ '200': MONTHLY - 5, '429 monthly_quota_exceeded': CONCURRENT - (MONTHLY - 5) });
    expect(admittedValues(outcomes, (outcome) => outcome.quotaUsed)).toEqual(range(6, MONTHLY));
    expect(cluster.fakes.openai.requests).toHaveLength(MONTHLY);
    expect(await cluster.settledQuota(accountId, MONTHLY)).toBe(MONTHLY);
  });
});
