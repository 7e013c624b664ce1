/**
 * The in-flight leases one connection took (by the concurrency limiter, or by the quota gate's one-step
 * admission): refreshed together every third of a lease while their requests run, given back when they
 * end, and given back at close, so an instance that dies loses its slots within one lease.
 */
import type { Redis } from 'ioredis';
import { REFRESH_SLOT_SCRIPT } from './in-flight-lease-scripts.js';

/** The account's leases: one sorted set per account, hash-tagged like the account's other keys. */
export const leasesKey = (keyPrefix: string, accountId: string): string => `${keyPrefix}inflight:{${accountId}}`;

export interface LeaseKeeper {
  /** Keep refreshing `member`'s lease in `key` until it is given back. */
  hold(member: string, key: string): void;
  /** Remove the lease now; a removal that fails (Redis away) is not retried: the lease expires by itself. */
  giveBack(member: string): void;
  readonly size: number;
  /** Stop refreshing and give every lease still held back. */
  close(): Promise<void>;
}

interface RefreshCommand {
  routerRefreshSlot(key: string, member: string, leaseMs: number): void;
}

export function keepLeases(redis: Redis, leaseMs: number): LeaseKeeper {
  redis.defineCommand('routerRefreshSlot', { numberOfKeys: 1, lua: REFRESH_SLOT_SCRIPT });
  /** member → the account's key. */
  const leases = new Map<string, string>();
  // One pipeline per interval for every lease held; a failed refresh is retried at the next.
  const refresher = setInterval(() => {
    if (leases.size === 0 || redis.status !== 'ready') return;
    const pipeline = redis.pipeline() as unknown as RefreshCommand & { exec(): Promise<unknown> };
    for (const [member, key] of leases) pipeline.routerRefreshSlot(key, member, leaseMs);
    pipeline.exec().catch(() => undefined);
  }, Math.max(10, Math.floor(leaseMs / 3)));
  refresher.unref();
  return {
    hold: (member, key) => void leases.set(member, key),
    giveBack(member) {
      const key = leases.get(member);
      if (key === undefined) return;
      leases.delete(member);
      redis.zrem(key, member).catch(() => undefined);
    },
    get size() {
      return leases.size;
    },
    async close() {
      clearInterval(refresher);
      if (redis.status === 'ready' && leases.size > 0) {
        const pipeline = redis.pipeline();
        for (const [member, key] of leases) pipeline.zrem(key, member);
        await pipeline.exec().catch(() => undefined);
      }
      leases.clear();
    },
  };
}
