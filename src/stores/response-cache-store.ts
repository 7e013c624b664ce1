/**
 * Where the response cache keeps answers (docs/caching.md): memory (one process, an LRU bounded in
 * bytes) or Redis (every worker and instance, bounded by TTL, a per-entry size and a byte and entry
 * count it keeps itself). Keys are SHA-256 hashes (core/response-cache-key.ts) that already hold the
 * account; every store checks the account again on read, so an entry is never served to another.
 * The cache is best effort: a store that cannot answer is a miss, never an error.
 */
import type { TokenUsage } from '../core/token-usage.js';

/**
 * An account's own rule for the response cache (accounts.response_cache, `router accounts cache-policy`):
 * allow (the default), no_user_data (never for a body naming an end user: `user`, `safety_identifier`,
 * `metadata.user_id`), never (the account forbids retention: nothing of it is ever stored).
 */
export type AccountCachePolicy = 'allow' | 'no_user_data' | 'never';
export const ACCOUNT_CACHE_POLICIES: readonly AccountCachePolicy[] = ['allow', 'no_user_data', 'never'];

/** A stored column's value as a policy: NULL (never set, or a row from before version 17) is `allow`. */
export function cachePolicyOf(value: string | null | undefined): AccountCachePolicy {
  return (ACCOUNT_CACHE_POLICIES as readonly string[]).includes(value ?? '') ? (value as AccountCachePolicy) : 'allow';
}

/** One stored answer: what the client got, byte for byte, and what the receipt of a hit points at. */
export interface CachedAnswer {
  accountId: string;
  /** The request id of the request that paid for the answer. */
  originalRequestId: string;
  /** When it was stored (router clock, ms) and for how long it is served. */
  storedAt: number;
  ttlMs: number;
  /** The response's content type: `application/json` or `text/event-stream`. */
  contentType: string;
  /** Response headers replayed on a hit (who served it: x-router-upstream, x-router-model). */
  headers: Record<string, string>;
  /** The body as the client got it (a JSON document, or the whole SSE stream). */
  body: string;
  /** Who served the original, its tokens and cost (nano-USD; null when unknown): the spend a hit saves. */
  servedBy: { providerId: string; upstreamModel: string } | null;
  usage: TokenUsage | null;
  costNanoUsd: number | null;
  finishReason: string | null;
}

export interface ResponseCacheStore {
  readonly kind: 'memory' | 'redis';
  /** The entry under `key` if it is the account's and not expired; undefined otherwise (or when the store cannot answer). */
  get(key: string, accountId: string): Promise<CachedAnswer | undefined>;
  /** Stores it (a larger entry than the store's bound is dropped silently); never throws. */
  set(key: string, answer: CachedAnswer): Promise<void>;
  /** Removes the account's entry under `key` (X-OpenRouter-Cache-Clear); never throws. */
  delete(key: string, accountId: string): Promise<void>;
  close(): Promise<void>;
}

/** Bytes an entry takes: its body and headers as UTF-8, plus its fixed fields. */
export function cachedAnswerBytes(answer: CachedAnswer): number {
  return Buffer.byteLength(answer.body) + Buffer.byteLength(JSON.stringify(answer.headers)) + 512;
}
