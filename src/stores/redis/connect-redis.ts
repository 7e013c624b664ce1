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

/**
 * Whether Redis is answering, as the limiter and the quota gate each report it: an outage starts with the
 * first failure (its reason is kept: later ones are mostly echoes of it, and the owner hears of it once)
 * and ends when the connection is ready again or a command succeeds.
 */
export interface RedisAvailability {
  /** The reason of the outage under way, or undefined while Redis answers. */
  readonly outage: string | undefined;
  down(reason: string): void;
  up(): void;
  /** Stop reporting: a connection closed on purpose is no outage. */
  close(): void;
}

export function watchAvailability(redis: Redis, onDown: (reason: string) => void): RedisAvailability {
  let outage: string | undefined;
  let closing = false;
  const down = (reason: string): void => {
    if (closing || outage !== undefined) return;
    outage = reason;
    onDown(reason);
  };
  redis.on('ready', () => (outage = undefined));
  // The listener also keeps ioredis from printing "Unhandled error event" on every reconnect attempt.
  redis.on('error', (error: Error) => down(`redis unavailable: ${error.message}`));
  redis.on('close', () => down('redis connection closed'));
  return {
    get outage() {
      return outage;
    },
    down,
    up: () => void (outage = undefined),
    close: () => void (closing = true),
  };
}
