/**
 * Per-instance requests-per-minute limiter: an exact sliding-window log per account (docs/limits.md).
 * Used alone for a single instance, and by the Redis limiter as its fallback while Redis is down.
 */
import { createBoundedCache } from '../../core/bounded-cache.js';
import type { RateDecision, RateLimiter } from '../rate-limiter.js';
import { RATE_WINDOW_MS, rateDecision } from './rate-decision.js';
import { SlidingWindowLog } from './sliding-window-log.js';

export interface MemoryRateLimiterOptions {
  /** Accounts tracked at once; the least recently admitted is forgotten past this (default 100,000). */
  maxAccounts?: number;
}

export function createMemoryRateLimiter(options: MemoryRateLimiterOptions = {}): RateLimiter {
  // An account idle for a whole window has nothing left in it, so forgetting it after 60 s loses nothing
  // (a longer window's entries are kept for that window instead).
  const logs = createBoundedCache<string, SlidingWindowLog>({ entries: options.maxAccounts ?? 100_000, ttlMs: RATE_WINDOW_MS });

  function currentLog(accountId: string, limit: number, nowMs: number, windowMs: number): SlidingWindowLog | undefined {
    const log = logs.get(accountId);
    log?.setCapacity(limit);
    log?.dropThrough(nowMs - windowMs);
    return log;
  }

  function decide(log: SlidingWindowLog | undefined, allowed: boolean, limit: number, nowMs: number, windowMs: number): RateDecision {
    return rateDecision({ allowed, limit, count: log?.size ?? 0, oldestMs: log?.oldest ?? null, nowMs, windowMs });
  }

  return {
    kind: 'memory',
    status: () => ({ backend: 'memory' }),
    admit(accountId, limit, nowMs, windowMs = RATE_WINDOW_MS) {
      const log = currentLog(accountId, limit, nowMs, windowMs) ?? new SlidingWindowLog(limit);
      const allowed = log.size < limit;
      if (allowed) {
        log.push(nowMs);
        if (windowMs === RATE_WINDOW_MS) logs.set(accountId, log);
        else logs.set(accountId, log, { ttl: windowMs });
      }
      return decide(log, allowed, limit, nowMs, windowMs);
    },
    async peek(accountId, limit, nowMs, windowMs = RATE_WINDOW_MS) {
      const log = currentLog(accountId, limit, nowMs, windowMs);
      return decide(log, (log?.size ?? 0) < limit, limit, nowMs, windowMs);
    },
    async close() {
      logs.clear();
    },
  };
}
