/**
 * Per-process cap on requests in flight per account. Used alone for a single instance, by the cluster's
 * primary for its workers, and by the Redis limiter as its fallback while Redis is down.
 */
import { releaseOnce, type ConcurrencyLimiter } from '../concurrency-limiter.js';
import { InFlightCounts } from './in-flight-counts.js';

export function createMemoryConcurrencyLimiter(): ConcurrencyLimiter {
  const counts = new InFlightCounts();
  return {
    kind: 'memory',
    status: () => ({ backend: 'memory' }),
    acquire(accountId, limit) {
      const { allowed, inFlight } = counts.tryTake(accountId, limit);
      return allowed ? { allowed, limit, inFlight, release: releaseOnce(() => counts.give(accountId)) } : { allowed, limit, inFlight };
    },
    async close() {
      counts.clear();
    },
  };
}
