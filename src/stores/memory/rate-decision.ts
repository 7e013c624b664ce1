/**
 * Turns the state of an exact sliding-window log into the decision and header values. Shared by the
 * memory and Redis limiters so both report identical numbers for identical windows (docs/limits.md).
 */
import type { RateDecision } from '../rate-limiter.js';

export const RATE_WINDOW_MS = 60_000;

export interface WindowState {
  allowed: boolean;
  limit: number;
  /** Admissions inside (now - 60 s, now] after this decision. */
  count: number;
  /** The oldest admission still inside the window; null when it is empty. */
  oldestMs: number | null;
  nowMs: number;
  /** The window's length (default RATE_WINDOW_MS). */
  windowMs?: number;
}

export function rateDecision(state: WindowState): RateDecision {
  const { allowed, limit, count, oldestMs, nowMs, windowMs = RATE_WINDOW_MS } = state;
  // The oldest admission leaves the window at exactly oldest + window, and a request at that instant is
  // admitted (the window is half-open), so rounding up gives a wait that always suffices.
  const untilOldestLeaves = oldestMs === null ? 0 : Math.max(0, Math.ceil((oldestMs + windowMs - nowMs) / 1000));
  // An empty window that still rejects means a limit of 0: no wait helps, so say one whole window.
  const retryAfterSeconds = allowed ? 0 : oldestMs === null ? Math.ceil(windowMs / 1000) : Math.max(1, untilOldestLeaves);
  return { allowed, limit, remaining: Math.max(0, limit - count), resetSeconds: untilOldestLeaves, retryAfterSeconds };
}
