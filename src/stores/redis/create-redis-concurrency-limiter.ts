/**
 * In-flight caps shared by every router instance through Redis: a lease per request in flight
 * (in-flight-lease-scripts.ts), taken atomically against the plan's cap, removed when the request ends,
 * and refreshed while it runs, so an instance that dies mid-request loses its slots within one lease
 * (30 s by default) instead of for good. When Redis cannot answer, each instance caps its own requests
 * (a per-instance memory limiter) and status() says so, as the per-minute limiter does.
 */
import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import { releaseOnce, type ConcurrencyLimiter, type ConcurrencyLimiterStatus, type InFlightDecision } from '../concurrency-limiter.js';
import { createMemoryConcurrencyLimiter } from '../memory/create-memory-concurrency-limiter.js';
import { connectRedis, firstAttempt, watchAvailability } from './connect-redis.js';
import { TAKE_SLOT_SCRIPT } from './in-flight-lease-scripts.js';
import { keepLeases, leasesKey } from './lease-keeper.js';

export interface RedisConcurrencyLimiterOptions {
  url: string;
  /** Prefix of the keys (default `rl:`); the account's leases are `<prefix>inflight:{<account id>}`. */
  keyPrefix?: string;
  /** How long a lease lives without a refresh (default 30 s); leases are refreshed every third of it. */
  leaseMs?: number;
  onUnavailable?: (reason: string) => void;
}

interface TakeSlotCommand {
  routerTakeSlot(key: string, limit: number, member: string, leaseMs: number): Promise<[allowed: number, inFlight: number]>;
}

export function createRedisConcurrencyLimiter(options: RedisConcurrencyLimiterOptions): ConcurrencyLimiter {
  const keyPrefix = options.keyPrefix ?? 'rl:';
  const leaseMs = options.leaseMs ?? 30_000;
  const fallback = createMemoryConcurrencyLimiter();
  const instanceId = randomBytes(6).toString('hex');
  let sequence = 0;
  const redis = connectRedis(options.url) as Redis & TakeSlotCommand;
  redis.defineCommand('routerTakeSlot', { numberOfKeys: 1, lua: TAKE_SLOT_SCRIPT });
  const connected = firstAttempt(redis);
  const availability = watchAvailability(redis, (reason) => options.onUnavailable?.(reason));
  const leases = keepLeases(redis, leaseMs);

  async function acquire(accountId: string, limit: number): Promise<InFlightDecision> {
    await connected;
    if (redis.status !== 'ready') {
      availability.down(`redis not connected (${redis.status})`);
      return fallback.acquire(accountId, limit);
    }
    const key = leasesKey(keyPrefix, accountId);
    const member = `${instanceId}:${sequence++}`;
    try {
      const asked = Date.now();
      const [allowed, inFlight] = await redis.routerTakeSlot(key, limit, member, leaseMs);
      availability.up();
      if (allowed !== 1) return { allowed: false, limit, inFlight };
      leases.hold(member, key, Date.now() - asked);
      return { allowed: true, limit, inFlight, release: releaseOnce(() => leases.giveBack(member)) };
    } catch (error) {
      // A slot taken by a script whose answer came too late would fill the account's cap for a whole lease.
      redis.zrem(key, member).catch(() => undefined);
      availability.failed(error);
      return fallback.acquire(accountId, limit);
    }
  }

  return {
    kind: 'redis',
    status: (): ConcurrencyLimiterStatus =>
      availability.outage === undefined ? { backend: 'redis' } : { backend: 'memory-fallback', reason: availability.outage },
    acquire,
    async close() {
      availability.close();
      // Leases still held end with this instance: give them back rather than wait for them to expire.
      await leases.close();
      redis.disconnect();
      await fallback.close();
    },
  };
}
