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
  // An account idle for a whole window has nothing left in it, so forgetting it after 60 s loses nothing.
  const logs = createBoundedCache<string, SlidingWindowLog>({ entries: options.maxAccounts ?? 100_000, ttlMs: RATE_WINDOW_MS });

  function currentLog(accountId: string, limit: number, nowMs: number): SlidingWindowLog | undefined {
    const log = logs.get(accountId);
    log?.setCapacity(limit);
    log?.dropThrough(nowMs - RATE_WINDOW_MS);
    return log;
  }

  function decide(log: SlidingWindowLog | undefined, allowed: boolean, limit: number, nowMs: number): RateDecision {
    return rateDecision({ allowed, limit, count: log?.size ?? 0, oldestMs: log?.oldest ?? null, nowMs });
  }

  return {
    kind: 'memory',
    status: () => ({ backend: 'memory' }),
    async admit(accountId, limit, nowMs) {
      const log = currentLog(accountId, limit, nowMs) ?? new SlidingWindowLog(limit);
      const allowed = log.size < limit;
      if (allowed) {
        log.push(nowMs);
        logs.set(accountId, log);
      }
      return decide(log, allowed, limit, nowMs);
    },
    async peek(accountId, limit, nowMs) {
      const log = currentLog(accountId, limit, nowMs);
      return decide(log, (log?.size ?? 0) < limit, limit, nowMs);
    },
    async close() {
      logs.clear();
    },
  };
}
