import { LRUCache } from 'lru-cache';

export interface BoundedCacheOptions {
  /** At most this many entries; past it the least recently used is dropped. */
  entries: number;
  /** Entries expire once more than this has passed since they were set. */
  ttlMs?: number;
  /** The clock TTLs are read from (default performance.now). */
  now?: () => number;
}

/**
 * The one way to make an in-process cache: an LRU of at most `entries` entries whose storage grows
 * with use. lru-cache's `max` allocates every slot up front (a 100,000-entry cache with a TTL holds
 * 4.4 MB before its first entry; the router's caches held 12 MB idle, and a larger live heap also
 * raises how far V8 lets the heap grow under load); counting each entry as size 1 against `maxSize`
 * keeps the same bound without that. TTLs read the clock on every check (`ttlResolution: 0`):
 * lru-cache's default keeps the time for 1 ms and arms a timer to do so, every millisecond under load.
 */
export function createBoundedCache<K extends {}, V extends {}>(options: BoundedCacheOptions): LRUCache<K, V> {
  const { entries, ttlMs, now } = options;
  return new LRUCache<K, V>({
    maxSize: entries,
    sizeCalculation: () => 1,
    ...(ttlMs === undefined ? {} : { ttl: Math.max(1, ttlMs), ttlResolution: 0 }),
    ...(now === undefined ? {} : { perf: { now } }),
  });
}

export interface ByteBoundedCacheOptions<V> {
  /** The entries' sizes together stay at or under this; past it the least recently used are dropped. */
  maxBytes: number;
  /** At most this many entries, whatever their size. */
  entries: number;
  /** An entry's size in bytes; an entry larger than maxBytes is never kept. */
  sizeOf: (value: V) => number;
  /** The clock entries' TTLs (`set(key, value, { ttl })`) are read from (default performance.now). */
  now?: () => number;
}

/**
 * An in-process LRU bounded in BYTES (the response cache's answers run from a few hundred bytes to a
 * megabyte, so a count alone bounds nothing) and in entries: each entry is charged at least
 * maxBytes / entries, so both bounds hold with one `maxSize` and no slots allocated up front.
 * Entries carry their own TTL, read on every check as in createBoundedCache.
 */
export function createByteBoundedCache<K extends {}, V extends {}>(options: ByteBoundedCacheOptions<V>): LRUCache<K, V> {
  const { maxBytes, entries, sizeOf, now } = options;
  const floor = Math.max(1, Math.floor(maxBytes / Math.max(1, entries)));
  return new LRUCache<K, V>({
    maxSize: maxBytes,
    maxEntrySize: maxBytes,
    sizeCalculation: (value) => Math.max(floor, Math.ceil(sizeOf(value))),
    ttlResolution: 0,
    ...(now === undefined ? {} : { perf: { now } }),
  });
}
