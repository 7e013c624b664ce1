/**
 * Sign-in throttling per client IP and per email address: after too many failures within the window,
 * further attempts are refused (with the same generic message) until the window passes. In memory per
 * instance: a bound on guessing speed, not an account lock-out an attacker could use against its owner.
 */
import type { LRUCache } from 'lru-cache';
import { createBoundedCache } from '../core/bounded-cache.js';
import type { Clock } from '../core/clock.js';

export const THROTTLE_WINDOW_MS = 15 * 60_000;
export const FAILURES_PER_EMAIL = 5;
export const FAILURES_PER_IP = 20;

export class SigninThrottle {
  readonly #failures: LRUCache<string, number[]>;

  constructor(private readonly clock: Clock) {
    this.#failures = createBoundedCache({ entries: 100_000 });
  }

  /** True when another attempt for this email from this IP may be checked now. */
  allows(ip: string | null, email: string): boolean {
    return this.#recent(`email:${email}`) < FAILURES_PER_EMAIL && this.#recent(`ip:${ip ?? '-'}`) < FAILURES_PER_IP;
  }

  fail(ip: string | null, email: string): void {
    for (const key of [`email:${email}`, `ip:${ip ?? '-'}`]) {
      const list = this.#prune(key);
      list.push(this.clock.now());
      this.#failures.set(key, list);
    }
  }

  succeed(email: string): void {
    this.#failures.delete(`email:${email}`);
  }

  #recent(key: string): number {
    return this.#prune(key).length;
  }

  #prune(key: string): number[] {
    const since = this.clock.now() - THROTTLE_WINDOW_MS;
    return (this.#failures.get(key) ?? []).filter((at) => at > since);
  }
}
