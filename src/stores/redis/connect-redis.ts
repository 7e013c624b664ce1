/**
 * One way to open Redis for the router's shared state (per-minute windows, the monthly quota gate): fail
 * fast rather than queue, and keep reconnecting in the background so Redis is used again once it is back.
 */
import { Redis } from 'ioredis';

export function connectRedis(url: string): Redis {
  return new Redis(url, {
    // Fail fast instead of queueing: a request must not wait for Redis to come back.
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    connectTimeout: 1000,
    commandTimeout: 1000,
    // Reconnect in the background, at most 2 s apart.
    retryStrategy: (attempt) => Math.min(attempt * 100, 2000),
  });
}

/** Resolves once the first connection attempt has succeeded or failed, so start-up requests are not misjudged. */
export function firstAttempt(redis: Redis): Promise<void> {
  return new Promise((resolve) => {
    const settle = (): void => {
      redis.off('ready', settle).off('error', settle).off('close', settle);
      resolve();
    };
    redis.on('ready', settle).on('error', settle).on('close', settle);
  });
}
