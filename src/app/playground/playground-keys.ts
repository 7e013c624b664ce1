/**
 * The credential the playground calls /v1 with: a real `sk_router_` key of the account, named
 * "Playground (browser)", that expires an hour after it was made. A real key (not an internal bypass) so
 * the request meets the same authentication, quota, rate limits, per-key limits and ledger as any
 * other, and shows in the account's keys and usage under its own name. The secret lives only in this
 * process's memory (a new key is made after a restart, on another worker, or when less than ten minutes
 * are left), so it is never stored or shown; an unused one simply expires.
 */
import type { LRUCache } from 'lru-cache';
import type { KeyService } from '../../accounts/key-service.js';
import type { Clock } from '../../core/clock.js';
import { createBoundedCache } from '../../core/bounded-cache.js';

export const PLAYGROUND_KEY_NAME = 'Playground (browser)';
const LIFETIME_MS = 60 * 60_000;
const RENEW_BEFORE_MS = 10 * 60_000;

export class PlaygroundKeys {
  readonly #cache: LRUCache<string, { key: string; expiresAtMs: number }>;

  constructor(
    private readonly keys: KeyService,
    private readonly clock: Clock,
  ) {
    this.#cache = createBoundedCache<string, { key: string; expiresAtMs: number }>({ entries: 10_000, ttlMs: LIFETIME_MS, now: () => clock.now() });
  }

  /** A key of the account with at least ten minutes left. */
  async keyFor(accountId: string): Promise<string> {
    const now = this.clock.now();
    const held = this.#cache.get(accountId);
    if (held && held.expiresAtMs - now > RENEW_BEFORE_MS) return held.key;
    const expiresAtMs = now + LIFETIME_MS;
    const issued = await this.keys.issue(accountId, PLAYGROUND_KEY_NAME, 'app', { expiresAt: new Date(expiresAtMs).toISOString() });
    this.#cache.set(accountId, { key: issued.key, expiresAtMs });
    return issued.key;
  }

  /** Forget the account's key (after it was refused: revoked from the keys page, account changed). */
  forget(accountId: string): void {
    this.#cache.delete(accountId);
  }
}
