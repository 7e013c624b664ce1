/**
 * Requests in flight per account: each plan's `maxConcurrentRequests` is the account's share of the
 * upstream connections, so one account holding many slow streams cannot make another account's requests
 * wait (docs/limits.md). Implementations: stores/memory (one process), stores/cluster (the workers of one
 * cluster, counted in the primary, which gives back a dead worker's slots) and stores/redis (every
 * instance: a lease per request, refreshed while it runs, so a dead instance's slots expire).
 */
import type { MaybePromise } from '../core/maybe-promise.js';

export interface InFlightDecision {
  allowed: boolean;
  limit: number;
  /** The account's requests in flight after this decision (this one included when allowed). */
  inFlight: number;
  /**
   * Gives the slot back; present only when allowed. Call it once the request has ended in any way;
   * calls after the first do nothing, so every ending may call it. A promise when the answer's last bytes
   * should wait for the store to have the slot back (a slow shared store, stores/redis/lease-keeper.ts).
   */
  release?: () => Released;
}

export interface ConcurrencyLimiterStatus {
  /** `memory-fallback`: Redis is unreachable and this instance counts its own requests only. */
  backend: 'memory' | 'primary' | 'redis' | 'memory-fallback';
  reason?: string;
}

export interface ConcurrencyLimiter {
  readonly kind: 'memory' | 'primary' | 'redis';
  status(): ConcurrencyLimiterStatus;
  /** Take one of the account's `limit` slots if one is free (the in-memory limiter answers at once). */
  acquire(accountId: string, limit: number): MaybePromise<InFlightDecision>;
  close(): Promise<void>;
}

/** What giving a slot back returns: nothing, or a promise that settles once the store has it back. */
export type Released = Promise<void> | undefined;

/** `release` wrapped so that only its first call counts. */
export function releaseOnce(release: () => Released | void): () => Released {
  let released = false;
  return () => {
    if (released) return undefined;
    released = true;
    return release() ?? undefined;
  };
}
