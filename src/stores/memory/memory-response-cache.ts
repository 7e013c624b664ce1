/** The response cache of one process: an LRU bounded in bytes and entries (core/bounded-cache.ts). */
import { createByteBoundedCache } from '../../core/bounded-cache.js';
import { cachedAnswerBytes, type CachedAnswer, type ResponseCacheStore } from '../response-cache-store.js';

export interface MemoryResponseCacheOptions {
  maxBytes: number;
  maxEntryBytes: number;
  maxEntries: number;
  /** The router clock (ms): entries expire by it. */
  now: () => number;
}

export function createMemoryResponseCache(options: MemoryResponseCacheOptions): ResponseCacheStore & { readonly bytes: number; readonly entries: number } {
  const cache = createByteBoundedCache<string, CachedAnswer>({ maxBytes: options.maxBytes, entries: options.maxEntries, sizeOf: cachedAnswerBytes, now: options.now });
  return {
    kind: 'memory',
    get bytes() {
      return cache.calculatedSize;
    },
    get entries() {
      return cache.size;
    },
    async get(key, accountId) {
      const answer = cache.get(key);
      return answer && answer.accountId === accountId ? answer : undefined;
    },
    async set(key, answer) {
      if (cachedAnswerBytes(answer) > options.maxEntryBytes) return;
      cache.set(key, answer, { ttl: Math.max(1, answer.ttlMs) });
    },
    async delete(key, accountId) {
      if (cache.peek(key)?.accountId === accountId) cache.delete(key);
    },
    async close() {
      cache.clear();
    },
  };
}
