/**
 * Admissions the quota gate made in Redis, waiting to be settled in the store (moved from held to used)
 * in one statement per account and period each interval. Redis admits first and the store learns within
 * the interval: the store's `used + held` covers them from the moment they were reserved, so a crash can
 * delay the exact `used` column but never let the limit be overrun.
 */
import type { Store } from '../store.js';

export interface SettlementQueue {
  /** Count `delta` units admitted (negative: refunded) for the account in the period. */
  add(accountId: string, period: string, delta: number): void;
  /** Write everything queued now; what fails stays queued for the next interval. */
  flush(): Promise<void>;
  close(): Promise<void>;
}

export function createSettlementQueue(store: Store, intervalMs: number): SettlementQueue {
  let pending = new Map<string, { accountId: string; period: string; delta: number }>();
  let flushing: Promise<void> | undefined;

  function add(accountId: string, period: string, delta: number): void {
    const key = `${accountId}\n${period}`;
    const entry = pending.get(key);
    if (entry) entry.delta += delta;
    else pending.set(key, { accountId, period, delta });
  }

  async function writeAll(): Promise<void> {
    const batch = pending;
    pending = new Map();
    for (const { accountId, period, delta } of batch.values()) {
      if (delta === 0) continue;
      try {
        await store.settleQuota(accountId, period, delta);
      } catch {
        add(accountId, period, delta);
      }
    }
  }

  function flush(): Promise<void> {
    flushing ??= writeAll().finally(() => (flushing = undefined));
    return flushing;
  }

  const timer = setInterval(() => void flush(), intervalMs);
  timer.unref();

  return {
    add,
    flush,
    async close() {
      clearInterval(timer);
      await flushing;
      await flush();
    },
  };
}
