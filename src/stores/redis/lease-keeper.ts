/**
 * The in-flight leases one connection took (by the concurrency limiter, or by the quota gate's one-step
 * admission): refreshed together every third of a lease while their requests run, given back when they
 * end, and given back at close, so an instance that dies loses its slots within one lease.
 */
import type { Redis } from 'ioredis';
import { REFRESH_SLOT_SCRIPT } from './in-flight-lease-scripts.js';

/**
 * A round trip at least this long makes a lease's removal confirmed before its request's answer ends.
 * The removal is sent before the answer's last bytes, but the client's next request may reach Redis
 * through another instance's connection: on a fast Redis the removal is there long before (a client
 * turns an answer round in a millisecond or more), on a slow one both travel far and arrive in either
 * order, and the next request found its own previous slot still taken (docs/limits.md, "Slow, not down").
 */
export const CONFIRM_RELEASE_FROM_MS = 2;

/** The account's leases: one sorted set per account, hash-tagged like the account's other keys. */
export const leasesKey = (keyPrefix: string, accountId: string): string => `${keyPrefix}inflight:{${accountId}}`;

export interface LeaseKeeper {
  /**
   * Keep refreshing `member`'s lease in `key` until it is given back. `roundTripMs`: how long taking it
   * took, which decides whether its removal is confirmed (CONFIRM_RELEASE_FROM_MS).
   */
  hold(member: string, key: string, roundTripMs: number): void;
  /**
   * Remove the lease now; a removal that fails (Redis away) is not retried: the lease expires by itself.
   * For a lease taken slowly, a promise that settles once Redis answered the removal (or it failed).
   */
  giveBack(member: string): Promise<void> | undefined;
  readonly size: number;
  /** Stop refreshing and give every lease still held back. */
  close(): Promise<void>;
}

interface RefreshCommand {
  routerRefreshSlot(key: string, member: string, leaseMs: number): void;
}

export function keepLeases(redis: Redis, leaseMs: number): LeaseKeeper {
  redis.defineCommand('routerRefreshSlot', { numberOfKeys: 1, lua: REFRESH_SLOT_SCRIPT });
  /** member → the account's key, and whether its removal is confirmed. */
  const leases = new Map<string, { key: string; confirm: boolean }>();
  // One pipeline per interval for every lease held; a failed refresh is retried at the next.
  const refresher = setInterval(() => {
    if (leases.size === 0 || redis.status !== 'ready') return;
    const pipeline = redis.pipeline() as unknown as RefreshCommand & { exec(): Promise<unknown> };
    for (const [member, { key }] of leases) pipeline.routerRefreshSlot(key, member, leaseMs);
    pipeline.exec().catch(() => undefined);
  }, Math.max(10, Math.floor(leaseMs / 3)));
  refresher.unref();
  return {
    hold: (member, key, roundTripMs) => void leases.set(member, { key, confirm: roundTripMs >= CONFIRM_RELEASE_FROM_MS }),
    giveBack(member) {
      const lease = leases.get(member);
      if (lease === undefined) return undefined;
      leases.delete(member);
      const removed = redis.zrem(lease.key, member).then(
        () => undefined,
        () => undefined,
      );
      return lease.confirm ? removed : undefined;
    },
    get size() {
      return leases.size;
    },
    async close() {
      clearInterval(refresher);
      if (redis.status === 'ready' && leases.size > 0) {
        const pipeline = redis.pipeline();
        for (const [member, { key }] of leases) pipeline.zrem(key, member);
        await pipeline.exec().catch(() => undefined);
      }
      leases.clear();
    },
  };
}
