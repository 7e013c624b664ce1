/**
 * Picks the in-flight limiter the way the per-minute limiter is picked (the `rateLimit` setting and
 * whether this process is a cluster worker): counted in this process, in the cluster's primary, or in
 * Redis for every instance. Redis is imported only when used.
 */
import type { RateLimitConfig } from '../config/types.js';
import type { ClusterChannel } from './cluster/cluster-channel.js';
import { createPrimaryConcurrencyLimiter } from './cluster/create-primary-concurrency-limiter.js';
import type { ConcurrencyLimiter } from './concurrency-limiter.js';
import { createMemoryConcurrencyLimiter } from './memory/create-memory-concurrency-limiter.js';

export interface OpenConcurrencyLimiterOptions {
  /** Called when the Redis limiter switches to counting per instance (log it). */
  onUnavailable?: (reason: string) => void;
  /** In a cluster worker: the channel to the primary, which counts every worker's requests (memory backend). */
  primary?: ClusterChannel;
}

export async function openConcurrencyLimiter(config: RateLimitConfig, options: OpenConcurrencyLimiterOptions = {}): Promise<ConcurrencyLimiter> {
  if (config.backend === 'memory') return options.primary ? createPrimaryConcurrencyLimiter({ channel: options.primary }) : createMemoryConcurrencyLimiter();
  if (!config.redisUrl) throw new Error('rateLimit.backend is redis but rateLimit.redisUrl is not set');
  const { createRedisConcurrencyLimiter } = await import('./redis/create-redis-concurrency-limiter.js');
  return createRedisConcurrencyLimiter({ url: config.redisUrl, keyPrefix: config.keyPrefix, onUnavailable: options.onUnavailable });
}
