/**
 * Per-key limits as the pipeline and the app see them: read through a short-lived cache (the same bound
 * as verified keys), and evicted at once when the app changes them on this instance.
 */
import type { LRUCache } from 'lru-cache';
import { createBoundedCache } from '../core/bounded-cache.js';
import type { Clock } from '../core/clock.js';
import type { KeyLimits } from '../stores/key-limit-store.js';
import type { Store } from '../stores/store.js';

const NONE: KeyLimits = { keyId: '', monthlyRequests: null, requestsPerMinute: null };

export class KeyLimitService {
  readonly #cache: LRUCache<string, KeyLimits>;

  constructor(
    private readonly store: Store,
    clock: Clock,
    cacheTtlMs: number,
  ) {
    this.#cache = createBoundedCache({ entries: 50_000, ttlMs: cacheTtlMs, now: () => clock.now() });
  }

  /** The limits when the cache holds them, without a store read: the pipeline's stage then needs no await. */
  cached(keyId: string): KeyLimits | undefined {
    return this.#cache.get(keyId);
  }

  /** For enforcing: the cached limits, read from the store when the cache has none. */
  async get(keyId: string): Promise<KeyLimits> {
    const cached = this.#cache.get(keyId);
    if (cached) return cached;
    const limits = await this.stored(keyId);
    this.#cache.set(keyId, limits);
    return limits;
  }

  /**
   * For showing and for changing one field: the limits as stored now, never this instance's cached copy,
   * which another instance may have changed within the cache's TTL (and a change written from it would undo).
   */
  async stored(keyId: string): Promise<KeyLimits> {
    return (await this.store.getKeyLimits(keyId)) ?? { ...NONE, keyId };
  }

  async set(limits: KeyLimits, actor: string): Promise<void> {
    await this.store.setKeyLimits(limits, actor);
    this.#cache.delete(limits.keyId);
  }
}
