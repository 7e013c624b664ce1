/**
 * Picks the response cache's store: Redis (shared by every worker and instance) when the rate limits
 * are in Redis (rateLimit.backend redis, the same Redis and key prefix), else this process's memory.
 * Redis is imported only when used.
 */
import type { RateLimitConfig, ServerConfig } from '../config/types.js';
import { createMemoryResponseCache } from './memory/memory-response-cache.js';
import type { ResponseCacheStore } from './response-cache-store.js';

export async function openResponseCache(
  rateLimit: RateLimitConfig,
  bounds: ServerConfig['responseCache'],
  options: { now: () => number; onError?: (error: unknown) => void },
): Promise<ResponseCacheStore> {
  const sized = { maxBytes: bounds.maxBytes, maxEntryBytes: bounds.maxEntryBytes, maxEntries: bounds.maxEntries, now: options.now };
  if (rateLimit.backend !== 'redis' || !rateLimit.redisUrl) return createMemoryResponseCache(sized);
  const { createRedisResponseCache } = await import('./redis/redis-response-cache.js');
  return createRedisResponseCache({ ...sized, url: rateLimit.redisUrl, keyPrefix: rateLimit.keyPrefix, ...(options.onError ? { onError: options.onError } : {}) });
}
