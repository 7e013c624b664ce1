/**
 * In-flight caps shared by every router instance through Redis: a lease per request in flight
 * (in-flight-lease-scripts.ts), taken atomically against the plan's cap, removed when the request ends,
 * and refreshed while it runs, so an instance that dies mid-request loses its slots within one lease
 * (30 s by default) instead of for good. When Redis cannot answer, each instance caps its own requests
 * (a per-instance memory limiter) and status() says so, as the per-minute limiter does.
 */
import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import { describeError } from '../../core/describe-error.js';
import { releaseOnce, type ConcurrencyLimiter, type ConcurrencyLimiterStatus, type InFlightDecision } from '../concurrency-limiter.js';
import { createMemoryConcurrencyLimiter } from '../memory/create-memory-concurrency-limiter.js';
import { connectRedis, firstAttempt, watchAvailability } from './connect-redis.js';
import { REFRESH_SLOT_SCRIPT, TAKE_SLOT_SCRIPT } from './in-flight-lease-scripts.js';

export interface RedisConcurrencyLimiterOptions {
  url: string;
  /** Prefix of the keys (default `rl:`); the account's leases are `<prefix>inflight:{<account id>}`. */
  keyPrefix?: string;
  /** How long a lease lives without a refresh (default 30 s); leases are refreshed every third of it. */
  leaseMs?: number;
  onUnavailable?: (reason: string) => void;
}

interface LeaseCommands {
  routerTakeSlot(key: string, limit: number, member: string, leaseMs: number): Promise<[allowed: number, inFlight: number]>;
  routerRefreshSlot(key: string, member: string, leaseMs: number): Promise<number>;
}

export function createRedisConcurrencyLimiter(options: RedisConcurrencyLimiterOptions): ConcurrencyLimiter {
  const keyPrefix = options.keyPrefix ?? 'rl:';
  const leaseMs = options.leaseMs ?? 30_000;
  const fallback = createMemoryConcurrencyLimiter();
  const instanceId = randomBytes(6).toString('hex');
  let sequence = 0;
  const redis = connectRedis(options.url) as Redis & LeaseCommands;
  redis.defineCommand('routerTakeSlot', { numberOfKeys: 1, lua: TAKE_SLOT_SCRIPT });
  redis.defineCommand('routerRefreshSlot', { numberOfKeys: 1, lua: REFRESH_SLOT_SCRIPT });
  const connected = firstAttempt(redis);
  const availability = watchAvailability(redis, (reason) => options.onUnavailable?.(reason));
  /** This instance's leases in Redis: member → the account's key. */
  const leases = new Map<string, string>();

  // One pipeline per interval for every lease this instance holds; a failed refresh is retried at the next.
  const refresher = setInterval(() => {
    if (leases.size === 0 || redis.status !== 'ready') return;
    const pipeline = redis.pipeline() as unknown as { routerRefreshSlot(key: string, member: string, leaseMs: number): void; exec(): Promise<unknown> };
    for (const [member, key] of leases) pipeline.routerRefreshSlot(key, member, leaseMs);
    pipeline.exec().catch(() => undefined);
  }, Math.max(10, Math.floor(leaseMs / 3)));
  refresher.unref();

  async function acquire(accountId: string, limit: number): Promise<InFlightDecision> {
    await connected;
    if (redis.status !== 'ready') {
      availability.down(`redis not connected (${redis.status})`);
      return fallback.acquire(accountId, limit);
    }
    const key = `${keyPrefix}inflight:{${accountId}}`;
    const member = `${instanceId}:${sequence++}`;
    try {
      const [allowed, inFlight] = await redis.routerTakeSlot(key, limit, member, leaseMs);
      availability.up();
      if (allowed !== 1) return { allowed: false, limit, inFlight };
      leases.set(member, key);
      return { allowed: true, limit, inFlight, release: releaseOnce(() => giveBack(member, key)) };
    } catch (error) {
      availability.down(`redis unavailable: ${describeError(error)}`);
      return fallback.acquire(accountId, limit);
    }
  }

  function giveBack(member: string, key: string): void {
    leases.delete(member);
    // A removal that fails (Redis away) is not retried: the lease, no longer refreshed, expires by itself.
    redis.zrem(key, member).catch(() => undefined);
  }

  return {
    kind: 'redis',
    status: (): ConcurrencyLimiterStatus =>
      availability.outage === undefined ? { backend: 'redis' } : { backend: 'memory-fallback', reason: availability.outage },
    acquire,
    async close() {
      clearInterval(refresher);
      availability.close();
      // Leases still held end with this instance: give them back rather than wait for them to expire.
      if (redis.status === 'ready' && leases.size > 0) {
        const pipeline = redis.pipeline();
        for (const [member, key] of leases) pipeline.zrem(key, member);
        await pipeline.exec().catch(() => undefined);
      }
      leases.clear();
      redis.disconnect();
      await fallback.close();
    },
  };
}
