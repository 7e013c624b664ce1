/**
 * The in-flight lease keeper (stores/redis/lease-keeper.ts) against a real Redis: a lease taken in a slow
 * round trip is given back with a confirmation, so the pipeline can hand the answer over only once Redis
 * has the slot back (docs/limits.md, "Slow, not down"); a lease taken fast is given back without anyone
 * waiting.
 */
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { CONFIRM_RELEASE_FROM_MS, keepLeases, leasesKey } from '../../../src/stores/redis/lease-keeper.js';
import { deleteRedisKeys } from '../../support/service-cleanup.js';

const url = process.env.ROUTER_TEST_REDIS_URL;
if (!url) console.warn('skipping Redis lease keeper tests: set ROUTER_TEST_REDIS_URL (e.g. redis://127.0.0.1:6379)');

const runPrefix = `rl:test:${randomBytes(4).toString('hex')}:`;

describe.skipIf(!url)('redis lease keeper', () => {
  const redisUrl = url ?? '';
  afterAll(() => deleteRedisKeys(redisUrl, runPrefix));

  async function withKeeper(run: (keeper: ReturnType<typeof keepLeases>, redis: Redis, key: string) => Promise<void>): Promise<void> {
    const redis = new Redis(redisUrl);
    const keeper = keepLeases(redis, 30_000);
    const key = leasesKey(runPrefix, `acct_${randomBytes(4).toString('hex')}`);
    try {
      await run(keeper, redis, key);
    } finally {
      await keeper.close();
      redis.disconnect();
    }
  }
  const take = (redis: Redis, key: string, member: string) => redis.zadd(key, Date.now() + 30_000, member);

  it('a lease taken in a slow round trip is gone from Redis once its give-back settles', async () => {
    await withKeeper(async (keeper, redis, key) => {
      await take(redis, key, 'slow');
      keeper.hold('slow', key, CONFIRM_RELEASE_FROM_MS);
      const confirmed = keeper.giveBack('slow');
      expect(confirmed).toBeInstanceOf(Promise);
      await confirmed;
      expect(await redis.zscore(key, 'slow')).toBeNull();
      // Given back once: a second call neither removes nor waits for anything.
      expect(keeper.giveBack('slow')).toBeUndefined();
      expect(keeper.size).toBe(0);
    });
  });

  it('a lease taken fast is given back without a confirmation to wait for', async () => {
    await withKeeper(async (keeper, redis, key) => {
      await take(redis, key, 'fast');
      keeper.hold('fast', key, CONFIRM_RELEASE_FROM_MS - 1);
      expect(keeper.giveBack('fast')).toBeUndefined();
      await expect.poll(() => redis.zscore(key, 'fast')).toBeNull();
    });
  });
});
