/**
 * Issuing, verifying, rotating and revoking generated keys. Shared by the CLI and the server so both
 * hash the same way. Verification goes through a short-lived cache of verified key hashes: a hot key
 * costs no store read; changes made here evict at once, changes made by another process (the CLI)
 * are seen within the cache TTL.
 */
import type { LRUCache } from 'lru-cache';
import { createBoundedCache } from '../core/bounded-cache.js';
import { generateApiKey, hashApiKey, hashesEqual, isWellFormedApiKey, lastFour } from '../core/api-key.js';
import type { Clock } from '../core/clock.js';
import { RouterError } from '../core/errors.js';
import { NotFoundInStoreError, type Account, type ApiKeyKind, type ApiKeyPatch, type ApiKeyRecord, type Store } from '../stores/store.js';

/** Said wherever an inactive account is refused (key check, quota admission). */
export const INACTIVE_ACCOUNT_MESSAGE = 'The account this key belongs to is not active. Visit your account page to reactivate it.';

/**
 * The name of the key the account app's playground calls /v1 with (app/playground/playground-keys.ts):
 * kept for it, so no person or operator gives a key of theirs this name, and the app lists none by it.
 */
export const PLAYGROUND_KEY_NAME = 'Playground (browser)';

/** The playground's own key, not one of the person's: the keys page neither lists nor counts it. */
export function isPlaygroundKey(record: Pick<ApiKeyRecord, 'name'>): boolean {
  return record.name === PLAYGROUND_KEY_NAME;
}

/** True when a person's chosen name is the playground's (compared as a person would read it). */
export function isReservedKeyName(name: string): boolean {
  return name.trim().toLowerCase() === PLAYGROUND_KEY_NAME.toLowerCase();
}

export interface VerifiedKey {
  keyId: string;
  accountId: string;
  /** The key's workspace (null: the organization's default) and the person who made it (null: none). */
  workspaceId: string | null;
  personId: string | null;
  /** A management key: admitted only to management routes (http/stages/key-kind.ts). */
  management: boolean;
  /** When the key was made (ISO): settings cached before then may not know it (account-controls.ts). */
  createdAt?: string;
}

export interface IssuedKey {
  /** The full key: shown once, never stored. */
  key: string;
  record: ApiKeyRecord;
}

interface CachedLookup {
  key: ApiKeyRecord;
  account: Account;
}

export interface KeyServiceOptions {
  store: Store;
  clock: Clock;
  /** Server secret: keys are hashed with HMAC-SHA-256 when present. */
  secret?: string;
  cacheTtlMs: number;
  cacheMax?: number;
}

export class KeyService {
  readonly #store: Store;
  readonly #clock: Clock;
  readonly #secret: string | undefined;
  readonly #cache: LRUCache<string, CachedLookup>;
  /**
   * Each Authorization value presented recently that named a stored key, with its key and hash, so a
   * hot key is parsed, checksummed and hashed once per TTL rather than on every request (the HMAC and
   * the hex comparison were about 5 % of the router's CPU per request, bench/README.md). A key's hash
   * never changes, so nothing here needs evicting when the key does: its state is in `#cache`, evicted
   * at once as before. Only values naming a key the store knew are kept (random keys do not churn it),
   * for no longer than the lookups; the plaintext key lives in memory no longer than that.
   */
  readonly #presented: LRUCache<string, { key: string; hash: string }>;

  constructor(options: KeyServiceOptions) {
    this.#store = options.store;
    this.#clock = options.clock;
    this.#secret = options.secret;
    const cacheOptions = { entries: options.cacheMax ?? 50_000, ttlMs: options.cacheTtlMs, now: () => this.#clock.now() };
    this.#cache = createBoundedCache(cacheOptions);
    this.#presented = createBoundedCache(cacheOptions);
  }

  /** Resolve an Authorization header value to an active key, or throw the contract's 401. */
  async verify(authorization: string | undefined): Promise<VerifiedKey> {
    const known = authorization === undefined ? undefined : this.#presented.get(authorization);
    const key = known?.key ?? presentedKey(authorization);
    const hash = known?.hash ?? hashApiKey(key, this.#secret);
    const found = await this.#lookup(hash);
    if (!found || !hashesEqual(found.key.hash, hash)) throw await this.#unknownKey(key);
    if (!known) this.#presented.set(authorization!, { key, hash });
    return this.#judge(key, found);
  }

  /**
   * `verify` without a store read, for a key the cache holds (the pipeline's stage then needs no await);
   * undefined when it does not hold it, and then only `verify` can tell.
   */
  verifyCached(authorization: string | undefined): VerifiedKey | undefined {
    const known = authorization === undefined ? undefined : this.#presented.get(authorization);
    if (known) {
      // This value's hash matched a stored key's when it was kept, and `#cache` is keyed by that hash,
      // so what it holds under it is this key's record: no second comparison.
      const found = this.#cache.get(known.hash);
      return found ? this.#judge(known.key, found) : undefined;
    }
    const key = presentedKey(authorization);
    const hash = hashApiKey(key, this.#secret);
    const found = this.#cache.get(hash);
    if (!found || !hashesEqual(found.key.hash, hash)) return undefined;
    this.#presented.set(authorization!, { key, hash });
    return this.#judge(key, found);
  }

  /** A known key is usable while neither it nor its account has been retired. */
  #judge(key: string, found: CachedLookup): VerifiedKey {
    const now = this.#clock.now();
    if (found.key.revokedAt !== null) {
      throw new RouterError('revoked_api_key', `The API key ending in ${lastFour(key)} has been revoked or rotated. Use its replacement or generate a new key.`);
    }
    if (found.key.expiresAt !== null && Date.parse(found.key.expiresAt) <= now) {
      // The same code (a client must stop using the key either way); the words say why.
      throw new RouterError('revoked_api_key', `The API key ending in ${lastFour(key)} expired at ${found.key.expiresAt} (the expiry it was made with, or the end of its rotation grace). Use its replacement or generate a new key.`);
    }
    if (found.key.disabledAt) {
      throw new RouterError('disabled_api_key', `The API key ending in ${lastFour(key)} is disabled. Enable it again (PATCH /v1/keys/{hash} with "disabled": false) or use another key.`);
    }
    if (found.account.status !== 'active') {
      throw new RouterError('inactive_account', INACTIVE_ACCOUNT_MESSAGE);
    }
    return { keyId: found.key.id, accountId: found.account.id, workspaceId: found.key.workspaceId, personId: found.key.personId, management: found.key.kind === 'management', createdAt: found.key.createdAt };
  }

  /**
   * `expiresAt`: an expiry chosen at creation (the account app offers one; the CLI issues keys without).
   * `key`: the key itself when it is derived rather than drawn at random (the playground's, see deriveApiKey).
   * `workspaceId`: one of the account's workspaces; null or absent: the default (and it follows the default).
   */
  async issue(
    accountId: string,
    name: string | null,
    actor: string,
    options: { expiresAt?: string | null; key?: string; personId?: string | null; kind?: ApiKeyKind; workspaceId?: string | null } = {},
  ): Promise<IssuedKey> {
    const account = await this.#store.getAccount(accountId);
    if (!account) throw new NotFoundInStoreError('account', accountId);
    const key = options.key ?? generateApiKey();
    const material = { accountId, name, hash: hashApiKey(key, this.#secret), last4: lastFour(key), expiresAt: options.expiresAt ?? null, personId: options.personId ?? null, kind: options.kind ?? 'inference' as const, workspaceId: options.workspaceId ?? null };
    const record = await this.#store.createApiKey(material, actor);
    return { key, record };
  }

  /** True when `record` is the stored form of `key` (hashed as this service hashes). */
  matches(record: ApiKeyRecord, key: string): boolean {
    return hashesEqual(record.hash, hashApiKey(key, this.#secret));
  }

  async rotate(keyId: string, graceSeconds: number, actor: string): Promise<IssuedKey & { revoked: ApiKeyRecord }> {
    const old = await this.#store.getApiKey(keyId);
    if (!old) throw new NotFoundInStoreError('api_key', keyId);
    const key = generateApiKey();
    const { revoked, created } = await this.#store.rotateApiKey(
      keyId,
      { hash: hashApiKey(key, this.#secret), last4: lastFour(key), name: old.name },
      graceSeconds,
      actor,
    );
    this.#cache.delete(revoked.hash);
    return { key, record: created, revoked };
  }

  /** Forget verified keys at once (their hashes), after the store revoked them itself (a member's removal). */
  forget(hashes: Iterable<string>): void {
    for (const hash of hashes) this.#cache.delete(hash);
  }

  /** Renames, disables or enables a key; a change of state applies at once on this instance. */
  async update(keyId: string, patch: ApiKeyPatch, actor: string): Promise<ApiKeyRecord> {
    const updated = await this.#store.updateApiKey(keyId, patch, actor);
    this.#cache.delete(updated.hash);
    return updated;
  }

  async revoke(keyId: string, actor: string): Promise<ApiKeyRecord> {
    const revoked = await this.#store.revokeApiKey(keyId, actor);
    this.#cache.delete(revoked.hash);
    return revoked;
  }

  /**
   * "Not known", unless the cause can be told: a key hashed without a secret while this router has one
   * (one more indexed look-up, only on this failure path), or a router with no secret at all, which can
   * never recognise keys issued under one. A key issued under a different secret cannot be told from an
   * unknown one (its hash is keyed with a secret this process does not have), so the message says both.
   */
  async #unknownKey(key: string): Promise<RouterError> {
    const ending = `The API key ending in ${lastFour(key)}`;
    if (this.#secret === undefined) {
      return new RouterError(
        'invalid_api_key',
        `${ending} is not known. This router runs without ROUTER_SECRET_KEY, so keys issued by a CLI or router that had one are not recognised here: run both with the same ROUTER_SECRET_KEY, or generate a new key.`,
      );
    }
    const unkeyed = await this.#store.findApiKeyByHash(hashApiKey(key));
    if (unkeyed && hashesEqual(unkeyed.key.hash, hashApiKey(key))) {
      return new RouterError(
        'invalid_api_key',
        `${ending} was issued without ROUTER_SECRET_KEY, and this router has one, so it cannot accept the key. Run the router and the CLI with the same ROUTER_SECRET_KEY, or generate a new key.`,
      );
    }
    return new RouterError(
      'invalid_api_key',
      `${ending} is not known. Check that you copied it completely, or generate a new one; a key issued under a different ROUTER_SECRET_KEY than this router's is not recognised either.`,
    );
  }

  async #lookup(hash: string): Promise<CachedLookup | null> {
    const cached = this.#cache.get(hash);
    if (cached) return cached;
    const found = await this.#store.findApiKeyByHash(hash);
    if (found) this.#cache.set(hash, found);
    return found;
  }
}

/** The key an Authorization header value presents, or the contract's 401 for none or a malformed one. */
function presentedKey(authorization: string | undefined): string {
  if (authorization === undefined || authorization.trim() === '') {
    throw new RouterError('missing_api_key', 'No API key was sent. Create a key in your account and send it as "Authorization: Bearer sk_router_…".');
  }
  const key = /^Bearer\s+(\S+)\s*$/i.exec(authorization)?.[1];
  if (key === undefined || !isWellFormedApiKey(key)) {
    throw new RouterError('malformed_api_key', 'The Authorization header does not hold a well-formed router key. Send "Authorization: Bearer sk_router_…" with the key exactly as it was shown.');
  }
  return key;
}
