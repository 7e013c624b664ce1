/**
 * The credential the playground calls /v1 with: a real `sk_router_` key of the account, named
 * "Playground (browser)" (PLAYGROUND_KEY_NAME, kept for it), so the request meets the same
 * authentication, quota, rate limits and ledger as any other and shows under that name in usage. It is the
 * app's key, not one of the person's: never shown, not listed on the keys page nor counted there.
 *
 * One per account, reused by every worker, instance and restart: the key is derived from the server
 * secret, the account and a generation (deriveApiKey), so any process computes the same one and only its
 * hash is stored. Generation n is the account's n-th playground key; a revoked one (the operator's
 * `router keys revoke`, or "Revoke now" on an alert) is followed by the next generation on the next
 * request, and a changed ROUTER_SECRET_KEY makes a new one the same way (the old hash no longer matches).
 * Without a server secret (development) nothing can be derived safely: each process then makes its own
 * random key that expires after an hour.
 */
import type { LRUCache } from 'lru-cache';
import { isPlaygroundKey, PLAYGROUND_KEY_NAME, type KeyService } from '../../accounts/key-service.js';
import { deriveApiKey } from '../../core/api-key.js';
import { createBoundedCache } from '../../core/bounded-cache.js';
import type { Clock } from '../../core/clock.js';
import type { ApiKeyRecord, Store } from '../../stores/store.js';

/** How long a process trusts the key it holds before looking at the store again (a 401 also sends it there). */
const HELD_MS = 10 * 60_000;
const UNDERIVED_LIFETIME_MS = 60 * 60_000;

export class PlaygroundKeys {
  readonly #held: LRUCache<string, string>;

  constructor(
    private readonly keys: Pick<KeyService, 'issue' | 'matches'>,
    private readonly store: Pick<Store, 'listApiKeys'>,
    private readonly clock: Clock,
    private readonly secret: string | undefined,
  ) {
    this.#held = createBoundedCache<string, string>({ entries: 10_000, ttlMs: HELD_MS, now: () => clock.now() });
  }

  /** The account's playground key, made the first time it is needed. */
  async keyFor(accountId: string): Promise<string> {
    const held = this.#held.get(accountId);
    if (held) return held;
    if (this.secret === undefined) {
      const key = await this.#underived(accountId);
      this.#held.set(accountId, key, { ttl: UNDERIVED_LIFETIME_MS - HELD_MS });
      return key;
    }
    const key = await this.#derived(accountId, this.secret);
    this.#held.set(accountId, key);
    return key;
  }

  /** Forget the held key (after it was refused: revoked, or the account changed). */
  forget(accountId: string): void {
    this.#held.delete(accountId);
  }

  async #derived(accountId: string, secret: string): Promise<string> {
    const generation = (n: number) => deriveApiKey(secret, `llm-router playground key\0${accountId}\0${n}`);
    for (let attempt = 0; ; attempt++) {
      const records = (await this.store.listApiKeys(accountId)).filter(isPlaygroundKey);
      const live = records.filter((record) => this.#live(record));
      // Every generation so far is a candidate: the live record that one of them hashes to is the key.
      for (let n = 0; n < records.length; n++) {
        const key = generation(n);
        if (live.some((record) => this.keys.matches(record, key))) return key;
      }
      const next = generation(records.length);
      try {
        await this.keys.issue(accountId, PLAYGROUND_KEY_NAME, 'app', { key: next });
        return next;
      } catch (error) {
        // Another worker or instance stored the same generation first (the hash is unique): read it back once.
        if (attempt > 0) throw error;
      }
    }
  }

  async #underived(accountId: string): Promise<string> {
    const expiresAt = new Date(this.clock.now() + UNDERIVED_LIFETIME_MS).toISOString();
    return (await this.keys.issue(accountId, PLAYGROUND_KEY_NAME, 'app', { expiresAt })).key;
  }

  #live(record: ApiKeyRecord): boolean {
    return record.revokedAt === null && (record.expiresAt === null || Date.parse(record.expiresAt) > this.clock.now());
  }
}
