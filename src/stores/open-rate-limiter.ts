/**
 * Picks the requests-per-minute limiter from the `rateLimit` setting (config/server.yaml) and whether
 * this process is a cluster worker; Redis is imported only when used.
 */
import type { RateLimitConfig } from '../config/types.js';
import type { ClusterChannel } from './cluster/cluster-channel.js';
import { createPrimaryRateLimiter } from './cluster/create-primary-rate-limiter.js';
import { createMemoryRateLimiter } from './memory/create-memory-rate-limiter.js';
import type { RateLimiter } from './rate-limiter.js';

export interface OpenRateLimiterOptions {
  /** Called when a Redis limiter switches to its per-instance fallback (log it). */
  onUnavailable?: (reason: string) => void;
  /** In a cluster worker: the channel to the primary, which keeps the windows of every worker (memory backend). */
  primary?: ClusterChannel;
}

export async function openRateLimiter(config: RateLimitConfig, options: OpenRateLimiterOptions = {}): Promise<RateLimiter> {
  if (config.backend === 'memory') return options.primary ? createPrimaryRateLimiter({ channel: options.primary }) : createMemoryRateLimiter();
  if (!config.redisUrl) throw new Error('rateLimit.backend is redis but rateLimit.redisUrl is not set');
  const { createRedisRateLimiter } = await import('./redis/create-redis-rate-limiter.js');
  return createRedisRateLimiter({ url: config.redisUrl, keyPrefix: config.keyPrefix, onUnavailable: options.onUnavailable });
}
