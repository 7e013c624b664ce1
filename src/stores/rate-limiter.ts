/**
 * Requests-per-minute admission. Implementations: stores/memory (one process), stores/cluster (the
 * workers of one cluster, decided in the primary) and stores/redis (shared by every instance). Both implement the same exact sliding-window log, see docs/limits.md.
 */
import type { MaybePromise } from '../core/maybe-promise.js';

export interface RateDecision {
  allowed: boolean;
  limit: number;
  /** Requests left in the window after this decision. */
  remaining: number;
  /** Whole seconds until the window frees capacity (0 when nothing is counted). */
  resetSeconds: number;
  /** Whole seconds (>= 1) a rejected client must wait to be admitted; 0 when allowed. */
  retryAfterSeconds: number;
}

export interface RateLimiterStatus {
  /** `memory-fallback`: the shared Redis window is unreachable and this instance limits on its own. */
  backend: 'memory' | 'primary' | 'redis' | 'memory-fallback';
  reason?: string;
}

export interface RateLimiter {
  readonly kind: 'memory' | 'primary' | 'redis';
  /** Which window is in force right now (for /readyz and logs). */
  status(): RateLimiterStatus;
  /**
   * Count this request if the window has room. `nowMs` comes from the injected clock. `windowMs`
   * (default 60 s) is for the few callers that need a longer log, such as the sign-in throttle; one key
   * is always asked about with the same window. The in-memory limiter answers at once.
   */
  admit(accountId: string, limit: number, nowMs: number, windowMs?: number): MaybePromise<RateDecision>;
  /**
   * Count in this instance's own log an admission the quota gate already made in the shared window (its
   * one-script admission): the Redis limiter keeps that log to bound the window when Redis loses it.
   * The other limiters have no log of their own and leave it out.
   */
  recordAdmitted?(accountId: string, limit: number, nowMs: number): void;
  /** The window's state without counting (for headers on responses that were not admitted). */
  peek(accountId: string, limit: number, nowMs: number, windowMs?: number): Promise<RateDecision>;
  close(): Promise<void>;
}
