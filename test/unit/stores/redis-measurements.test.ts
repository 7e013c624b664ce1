import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import type { RouteProfileConfig } from '../../../src/config/types.js';
import { systemClock } from '../../../src/core/clock.js';
import { MeasuredOrder } from '../../../src/routing/measured-order.js';
import { RouteMeasurements } from '../../../src/routing/route-measurements.js';
import { shareMeasurementsThroughRedis } from '../../../src/stores/redis/share-measurements-redis.js';
import { deleteRedisKeys } from '../../support/service-cleanup.js';

const url = process.env.ROUTER_TEST_REDIS_URL;
if (!url) console.warn('skipping Redis measured-routing tests: set ROUTER_TEST_REDIS_URL (e.g. redis://127.0.0.1:6379)');

const target = (provider: string) => ({ provider, model: 'm', weight: 1 });
const ROUTE: RouteProfileConfig = { id: 'r', family: 'f', description: '', quotaWeight: 1, retryBudget: 2, order: 'measured', tiers: [[target('a'), target('b')]] };

describe.skipIf(!url)('measured routing shared through Redis', () => {
  const redisUrl = url ?? '';
  const keyPrefix = `rl:test:measured:${randomBytes(4).toString('hex')}:`;
  afterAll(() => deleteRedisKeys(redisUrl, keyPrefix));

  it('two instances end up with the same figures and leader, under one expiring key of the deployment prefix', async () => {
    const instances = [0, 1].map(() => {
      const measurements = new RouteMeasurements(systemClock);
      return { measurements, order: new MeasuredOrder(measurements), stop: shareMeasurementsThroughRedis(measurements, { url: redisUrl, keyPrefix, clock: systemClock, intervalMs: 20 }) };
    });
    const [one, other] = instances as [(typeof instances)[0], (typeof instances)[0]];
    one.measurements.record({ provider: 'a', model: 'm', ok: true, ttfbMs: 300 });
    one.measurements.record({ provider: 'b', model: 'm', ok: true, ttfbMs: 40 });
    expect(one.order.rank(ROUTE, ROUTE.tiers.flat())[0]!.provider).toBe('b');
    other.measurements.record({ provider: 'a', model: 'm', ok: true, ttfbMs: 280 });

    await expect.poll(() => other.measurements.figures('a', 'm')?.samples, { timeout: 5000, interval: 20 }).toBe(2);
    await expect.poll(() => JSON.stringify(one.measurements.snapshot()) === JSON.stringify(other.measurements.snapshot()), { timeout: 5000, interval: 20 }).toBe(true);
    expect(other.measurements.figures('b', 'm')).toMatchObject({ ttfbMs: 40, samples: 1 });
    expect(other.measurements.leaders()).toEqual([{ ranking: 'r\u0000latency\u0000a/m\u0001b/m', leader: 'b/m' }]);

    const redis = new Redis(redisUrl);
    try {
      expect(await redis.keys(`${keyPrefix}*`)).toEqual([`${keyPrefix}measured`]);
      const ttl = await redis.pttl(`${keyPrefix}measured`);
      expect(ttl).toBeGreaterThan(0);
      expect(ttl).toBeLessThanOrEqual(60 * 60_000);
    } finally {
      await redis.quit();
    }
    instances.forEach((instance) => instance.stop());
  });

  it('keeps what it measured while Redis cannot be reached', async () => {
    const measurements = new RouteMeasurements(systemClock);
    const unreachable = shareMeasurementsThroughRedis(measurements, { url: 'redis://127.0.0.1:1', keyPrefix, clock: systemClock, intervalMs: 20 });
    measurements.record({ provider: 'c', model: 'm', ok: true, ttfbMs: 70 });
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(measurements.figures('c', 'm')).toMatchObject({ ttfbMs: 70 });
    unreachable();
  });
});
