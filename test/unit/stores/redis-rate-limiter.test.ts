import { randomBytes } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { createRedisRateLimiter } from '../../../src/stores/redis/create-redis-rate-limiter.js';
import { runRateLimiterContract } from '../../contracts/rate-limiter-contract.js';
import { deleteRedisKeys } from '../../support/service-cleanup.js';
import { startRelayFor } from '../../support/tcp-relay.js';

const url = process.env.ROUTER_TEST_REDIS_URL;
if (!url) console.warn('skipping Redis rate limiter tests: set ROUTER_TEST_REDIS_URL (e.g. redis://127.0.0.1:6379)');

// Every limiter gets its own key prefix under this run's, so test files never share windows.
const runPrefix = `rl:test:${randomBytes(4).toString('hex')}:`;
let limiters = 0;
const nextPrefix = (): string => `${runPrefix}${limiters++}:`;

async function until(condition: () => boolean, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe.skipIf(!url)('redis rate limiter', () => {
  const redisUrl = url ?? '';

  afterAll(() => deleteRedisKeys(redisUrl, runPrefix));

  runRateLimiterContract('redis', async () => createRedisRateLimiter({ url: redisUrl, keyPrefix: nextPrefix() }));

  it('two instances share one window exactly: 100 concurrent admissions at limit 30 admit 30', async () => {
    const keyPrefix = nextPrefix();
    const instances = [createRedisRateLimiter({ url: redisUrl, keyPrefix }), createRedisRateLimiter({ url: redisUrl, keyPrefix })];
    const decisions = await Promise.all(Array.from({ length: 100 }, (_, i) => instances[i % 2]!.admit('acct_shared', 30, 1_000_000)));
    expect(decisions.filter((decision) => decision.allowed)).toHaveLength(30);
    expect(instances.map((instance) => instance.status())).toEqual([{ backend: 'redis' }, { backend: 'redis' }]);
    await Promise.all(instances.map((instance) => instance.close()));
  });

  it('falls back to memory while Redis is away and returns to Redis when it is back', async () => {
    // Redis reached through a relay that can be cut and restored on the same port, to stage the outage.
    const relay = await startRelayFor(redisUrl);
    const reasons: string[] = [];
    const limiter = createRedisRateLimiter({ url: relay.url, keyPrefix: nextPrefix(), onUnavailable: (reason) => reasons.push(reason) });
    expect((await limiter.admit('acct_r', 2, 1_000_000)).allowed).toBe(true);
    expect(limiter.status()).toEqual({ backend: 'redis' });

    await relay.cut();
    await until(() => limiter.status().backend === 'memory-fallback');
    // The fallback enforces the limit per instance, from this instance's own log: the admission made in
    // Redis before the outage is in it, so one more fits and the next does not.
    const during = [];
    for (let i = 0; i < 3; i++) during.push((await limiter.admit('acct_r', 2, 1_001_000 + i)).allowed);
    expect(during).toEqual([true, false, false]);
    expect(reasons).toHaveLength(1);

    await relay.restore();
    await until(() => limiter.status().backend === 'redis');
    // Back on Redis, which may have come back empty: for one window the instance's own log (full: one
    // admission before the outage, one during it) must have room too, so this minute admits no more.
    expect(await limiter.admit('acct_r', 2, 1_002_000)).toMatchObject({ allowed: false, remaining: 0 });
    // A window later both have left the instance's log and Redis's window: Redis decides, one counted.
    expect(await limiter.admit('acct_r', 2, 1_061_500)).toMatchObject({ allowed: true, remaining: 1 });
    await limiter.close();
    await relay.cut();
    // Closing on purpose is not an outage.
    expect(reasons).toHaveLength(1);
  });
});

describe('redis rate limiter without a server', () => {
  it('decides from memory and says so when Redis is unreachable', async () => {
    const reasons: string[] = [];
    const limiter = createRedisRateLimiter({ url: 'redis://127.0.0.1:1', onUnavailable: (reason) => reasons.push(reason) });
    expect(await limiter.admit('acct_a', 1, 0)).toEqual({ allowed: true, limit: 1, remaining: 0, resetSeconds: 60, retryAfterSeconds: 0 });
    expect((await limiter.admit('acct_a', 1, 1)).allowed).toBe(false);
    expect(limiter.status()).toEqual({ backend: 'memory-fallback', reason: expect.stringContaining('ECONNREFUSED') });
    expect(reasons).toEqual([limiter.status().reason]);
    await limiter.close();
  });
});
