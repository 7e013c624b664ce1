/** Picks the requests-per-minute limiter from the `rateLimit` setting (config/server.yaml); Redis is imported only when used. */
import type { RateLimitConfig } from '../config/types.js';
import { createMemoryRateLimiter } from './memory/create-memory-rate-limiter.js';
import type { RateLimiter } from './rate-limiter.js';

export interface OpenRateLimiterOptions {
  /** Called when a Redis limiter switches to its per-instance fallback (log it). */
  onUnavailable?: (reason: string) => void;
}

export async function openRateLimiter(config: RateLimitConfig, options: OpenRateLimiterOptions = {}): Promise<RateLimiter> {
  if (config.backend === 'memory') return createMemoryRateLimiter();
  if (!config.redisUrl) throw new Error('rateLimit.backend is redis but rateLimit.redisUrl is not set');
  const { createRedisRateLimiter } = await import('./redis/create-redis-rate-limiter.js');
  return createRedisRateLimiter({ url: config.redisUrl, keyPrefix: config.keyPrefix, onUnavailable: options.onUnavailable });
}
