/**
 * Requests-per-minute limiter shared by every router instance through Redis. When Redis cannot answer,
 * decisions fall back to a per-instance memory limiter (limits then hold per instance, not globally)
 * and status() says so, so the operator sees it in /readyz; it returns to Redis once Redis answers.
 * The memory limiter is also this instance's own log of what it admitted in Redis, so an outage starts
 * from it rather than from nothing, and for one window after an outage it must have room too (Redis
 * may have come back empty): any minute around a restart admits at most the limit per instance.
 */
import type { MaybePromise } from '../../core/maybe-promise.js';
import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import { createMemoryRateLimiter } from '../memory/create-memory-rate-limiter.js';
import { RATE_WINDOW_MS, rateDecision } from '../memory/rate-decision.js';
import type { RateDecision, RateLimiter, RateLimiterStatus } from '../rate-limiter.js';
import { connectRedis, firstAttempt, watchAvailability } from './connect-redis.js';
import { SLIDING_WINDOW_SCRIPT } from './sliding-window-script.js';

/**
 * The window of `id` (an account id, `key:<key id>`, a sign-in throttle's key). The id is the hash tag,
 * as in every other key of the account, so the quota gate's one admission script may touch it too.
 */
export const windowKey = (keyPrefix: string, id: string): string => `${keyPrefix}{${id}}`;

export interface RedisRateLimiterOptions {
  /** `redis://…` or `rediss://…`. */
  url: string;
  /** Prefix of the per-account window keys (default `rl:`). */
  keyPrefix?: string;
  /** Called once each time decisions switch to the memory fallback, with a reason free of secrets. */
  onUnavailable?: (reason: string) => void;
}

type WindowReply = [allowed: number, count: number, oldest?: string];

interface SlidingWindowCommand {
  routerSlidingWindow(key: string, nowMs: number, windowMs: number, limit: number, member: string, count: '0' | '1'): Promise<WindowReply>;
}

export function createRedisRateLimiter(options: RedisRateLimiterOptions): RateLimiter {
  const keyPrefix = options.keyPrefix ?? 'rl:';
  const fallback = createMemoryRateLimiter();
  const instanceId = randomBytes(6).toString('hex');
  let sequence = 0;
  const redis = connectRedis(options.url) as Redis & SlidingWindowCommand;
  redis.defineCommand('routerSlidingWindow', { numberOfKeys: 1, lua: SLIDING_WINDOW_SCRIPT });
  const connected = firstAttempt(redis);
  const availability = watchAvailability(redis, (reason) => options.onUnavailable?.(reason));

  async function decide(accountId: string, limit: number, nowMs: number, windowMs: number, count: boolean): Promise<RateDecision> {
    await connected;
    if (redis.status !== 'ready') {
      availability.down(`redis not connected (${redis.status})`);
      return decideInMemory(accountId, limit, nowMs, windowMs, count);
    }
    if (count && availability.returnedWithin(windowMs)) {
      // Redis may have come back empty: for one window after an outage this instance's own log (every
      // admission it made, in Redis or without it) must have room too, so no minute admits more than
      // the limit per instance.
      const own = await fallback.peek(accountId, limit, nowMs, windowMs);
      if (!own.allowed) return own;
    }
    try {
      // Members must be unique per admission: two requests in the same millisecond both count.
      const member = `${nowMs}:${instanceId}:${sequence++}`;
      const reply = await redis.routerSlidingWindow(windowKey(keyPrefix, accountId), nowMs, windowMs, limit, member, count ? '1' : '0');
      availability.up();
      const [allowed, inWindow, oldest] = reply;
      if (count && allowed === 1) void fallback.admit(accountId, limit, nowMs, windowMs);
      return rateDecision({ allowed: allowed === 1, limit, count: inWindow, oldestMs: oldest === undefined ? null : Number(oldest), nowMs, windowMs });
    } catch (error) {
      availability.failed(error);
      return decideInMemory(accountId, limit, nowMs, windowMs, count);
    }
  }

  function decideInMemory(accountId: string, limit: number, nowMs: number, windowMs: number, count: boolean): MaybePromise<RateDecision> {
    return count ? fallback.admit(accountId, limit, nowMs, windowMs) : fallback.peek(accountId, limit, nowMs, windowMs);
  }

  return {
    kind: 'redis',
    status: (): RateLimiterStatus =>
      availability.outage === undefined ? { backend: 'redis' } : { backend: 'memory-fallback', reason: availability.outage },
    admit: (accountId, limit, nowMs, windowMs = RATE_WINDOW_MS) => decide(accountId, limit, nowMs, windowMs, true),
    recordAdmitted: (accountId, limit, nowMs) => void fallback.admit(accountId, limit, nowMs),
    peek: (accountId, limit, nowMs, windowMs = RATE_WINDOW_MS) => decide(accountId, limit, nowMs, windowMs, false),
    async close() {
      availability.close();
      redis.disconnect();
      await fallback.close();
    },
  };
}
