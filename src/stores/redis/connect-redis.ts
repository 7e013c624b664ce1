/**
 * One way to open Redis for the router's shared state (per-minute windows, the monthly quota gate): fail
 * fast rather than queue, and keep reconnecting in the background so Redis is used again once it is back.
 */
import { Redis } from 'ioredis';
import { describeError } from '../../core/describe-error.js';

/**
 * How long one command may take before its request is decided without Redis (docs/limits.md, "Slow, not
 * down"). Well above a slow Redis's round trip (1 s measured with 500 ms each way), so slowness alone
 * moves nothing; a connection that stopped answering is still noticed within seconds.
 */
export const REDIS_COMMAND_DEADLINE_MS = 2500;
/** Missed deadlines in a row that make Redis "down" (a connection error does at once). */
export const MISSED_DEADLINES_FOR_DOWN = 3;

export function connectRedis(url: string): Redis {
  return new Redis(url, {
    // Fail fast instead of queueing: a request must not wait for Redis to come back.
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    // A command sent on a connection that then dropped is never sent again on the next one: its caller
    // has already decided without it, and an undo it queued must not run before it (quota, leases).
    autoResendUnfulfilledCommands: false,
    connectTimeout: 1000,
    commandTimeout: REDIS_COMMAND_DEADLINE_MS,
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
 * Whether Redis is answering, as the limiter and the quota gate each report it: an outage starts with a
 * connection error or the third missed deadline in a row, not with one slow answer (its reason is kept:
 * later ones are mostly echoes of it, and the owner hears of it once), and ends when the connection is
 * ready again or a command succeeds.
 */
export interface RedisAvailability {
  /** The reason of the outage under way, or undefined while Redis answers. */
  readonly outage: string | undefined;
  down(reason: string): void;
  /** A command failed: a missed deadline counts towards an outage, anything else starts one. */
  failed(error: unknown): void;
  up(): void;
  /**
   * Whether an outage ended less than `ms` ago: Redis may have come back without its keys (a restart),
   * so a window it holds may not yet cover the last `ms` (docs/limits.md, "After a Redis restart").
   */
  returnedWithin(ms: number): boolean;
  /** Stop reporting: a connection closed on purpose is no outage. */
  close(): void;
}

export function watchAvailability(redis: Redis, onDown: (reason: string) => void): RedisAvailability {
  let outage: string | undefined;
  let closing = false;
  let missedInARow = 0;
  let returnedAt = Number.NEGATIVE_INFINITY;
  const down = (reason: string): void => {
    if (closing || outage !== undefined) return;
    outage = reason;
    onDown(reason);
  };
  /** While Redis is down on missed deadlines alone (the connection stands, so no 'ready' will come). */
  let checking: NodeJS.Timeout | undefined;
  const up = (): void => {
    if (outage !== undefined) returnedAt = Date.now();
    outage = undefined;
    missedInARow = 0;
    clearInterval(checking);
    checking = undefined;
  };
  // Whoever uses this connection may send nothing more while it is reported down (the quota gate's one
  // script stands in for both limiters), so a ping each second tells when it answers in time again.
  const checkUntilUp = (): void => {
    checking ??= setInterval(() => void redis.ping().then(up, () => undefined), 1000).unref();
  };
  redis.on('ready', up);
  // The listener also keeps ioredis from printing "Unhandled error event" on every reconnect attempt.
  redis.on('error', (error: Error) => down(`redis unavailable: ${error.message}`));
  redis.on('close', () => down('redis connection closed'));
  return {
    get outage() {
      return outage;
    },
    down,
    failed(error: unknown) {
      const reason = `redis unavailable: ${describeError(error)}`;
      if (!isMissedDeadline(error)) return down(reason);
      missedInARow++;
      if (missedInARow < MISSED_DEADLINES_FOR_DOWN) return;
      down(`${reason} (${missedInARow} in a row)`);
      checkUntilUp();
    },
    up,
    returnedWithin: (ms: number) => Date.now() - returnedAt < ms,
    close() {
      closing = true;
      clearInterval(checking);
    },
  };
}

/** ioredis's `commandTimeout` error: the command may still run in Redis, its answer came too late. */
export function isMissedDeadline(error: unknown): boolean {
  return error instanceof Error && error.message === 'Command timed out';
}
