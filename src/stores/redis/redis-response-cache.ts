/**
 * The response cache shared by every worker and instance through Redis. Bounded without relying on
 * Redis's maxmemory policy (which the rate limits' keys must never be evicted by): every entry has a
 * TTL (PX), a size bound checked before it is sent, and one script keeps an index of the entries
 * (a sorted set by expiry) with their sizes and the total, evicting the soonest-expiring entries before
 * a new one would take the total past `maxBytes` or the count past `maxEntries`.
 * All keys share one hash tag (`{rc}`), so the script's keys live in one slot of a Redis Cluster.
 * Redis down or slow: a miss, and nothing stored (the request is served by an upstream as usual).
 */
import type { Redis } from 'ioredis';
import { connectRedis } from './connect-redis.js';
import { cachedAnswerBytes, type CachedAnswer, type ResponseCacheStore } from '../response-cache-store.js';

/**
 * KEYS: the entry, the index (zset: entry key → expiry ms), the sizes (hash: entry key → bytes), the total bytes.
 * ARGV: value, ttl ms, now ms, max bytes, max entries, this entry's bytes.
 * Expired members leave the accounting first (at most 200 a call, so one call stays short), then a
 * replaced entry's old size, then the soonest-expiring entries until the new one fits.
 */
const STORE_SCRIPT = `
local now = tonumber(ARGV[3])
local maxBytes = tonumber(ARGV[4])
local maxEntries = tonumber(ARGV[5])
local size = tonumber(ARGV[6])
local total = tonumber(redis.call('GET', KEYS[4]) or '0')
local function forget(member)
  local bytes = tonumber(redis.call('HGET', KEYS[3], member) or '0')
  total = total - bytes
  redis.call('HDEL', KEYS[3], member)
  redis.call('ZREM', KEYS[2], member)
end
for _, member in ipairs(redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', now, 'LIMIT', 0, 200)) do forget(member) end
if redis.call('ZSCORE', KEYS[2], KEYS[1]) then forget(KEYS[1]) end
while redis.call('ZCARD', KEYS[2]) > 0 and (total + size > maxBytes or redis.call('ZCARD', KEYS[2]) >= maxEntries) do
  local oldest = redis.call('ZRANGE', KEYS[2], 0, 0)[1]
  redis.call('DEL', oldest)
  forget(oldest)
end
if total < 0 then total = 0 end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
redis.call('ZADD', KEYS[2], now + tonumber(ARGV[2]), KEYS[1])
redis.call('HSET', KEYS[3], KEYS[1], size)
redis.call('SET', KEYS[4], total + size)
return total + size
`;

/** KEYS: the entry, the index, the sizes, the total. Removes the entry and its accounting. */
const DELETE_SCRIPT = `
local bytes = tonumber(redis.call('HGET', KEYS[3], KEYS[1]) or '0')
redis.call('DEL', KEYS[1])
redis.call('HDEL', KEYS[3], KEYS[1])
redis.call('ZREM', KEYS[2], KEYS[1])
if bytes > 0 then redis.call('DECRBY', KEYS[4], bytes) end
return bytes
`;

interface ResponseCacheCommands {
  routerCacheStore(entry: string, index: string, sizes: string, total: string, value: string, ttlMs: number, nowMs: number, maxBytes: number, maxEntries: number, size: number): Promise<number>;
  routerCacheDelete(entry: string, index: string, sizes: string, total: string): Promise<number>;
}

export interface RedisResponseCacheOptions {
  url: string;
  keyPrefix: string;
  maxBytes: number;
  maxEntryBytes: number;
  maxEntries: number;
  now: () => number;
  /** A command failed (logged by the caller, at most now and then): the request went on as a miss. */
  onError?: (error: unknown) => void;
}

export interface RedisResponseCache extends ResponseCacheStore {
  /** The accounting the bound is kept by: total bytes and entries indexed (tests, operators). */
  usage(): Promise<{ bytes: number; entries: number }>;
}

export function createRedisResponseCache(options: RedisResponseCacheOptions): RedisResponseCache {
  const redis = connectRedis(options.url) as Redis & ResponseCacheCommands;
  redis.defineCommand('routerCacheStore', { numberOfKeys: 4, lua: STORE_SCRIPT });
  redis.defineCommand('routerCacheDelete', { numberOfKeys: 4, lua: DELETE_SCRIPT });
  redis.on('error', () => {}); // reported per command through onError; an idle disconnect is not news
  const base = `${options.keyPrefix}{rc}:`;
  const entryKey = (key: string): string => `${base}e:${key}`;
  const accounting = [`${base}index`, `${base}sizes`, `${base}bytes`] as const;
  const failed = (error: unknown): undefined => {
    options.onError?.(error);
    return undefined;
  };

  return {
    kind: 'redis',
    async get(key, accountId) {
      if (redis.status !== 'ready') return undefined;
      const text = await redis.get(entryKey(key)).catch(failed);
      if (!text) return undefined;
      const answer = parseAnswer(text);
      // The key holds the account already; the check on read is the second lock on the same door.
      return answer && answer.accountId === accountId ? answer : undefined;
    },
    async set(key, answer) {
      const size = cachedAnswerBytes(answer);
      if (size > options.maxEntryBytes || size > options.maxBytes || redis.status !== 'ready') return;
      await redis
        .routerCacheStore(entryKey(key), ...accounting, JSON.stringify(answer), Math.max(1, Math.round(answer.ttlMs)), options.now(), options.maxBytes, options.maxEntries, size)
        .catch(failed);
    },
    async delete(key, accountId) {
      if (redis.status !== 'ready') return;
      const held = await this.get(key, accountId);
      if (held) await redis.routerCacheDelete(entryKey(key), ...accounting).catch(failed);
    },
    async usage() {
      const [bytes, entries] = await Promise.all([redis.get(accounting[2]), redis.zcard(accounting[0])]);
      return { bytes: Number(bytes ?? 0), entries };
    },
    async close() {
      redis.disconnect();
    },
  };
}

function parseAnswer(text: string): CachedAnswer | undefined {
  try {
    const value = JSON.parse(text) as CachedAnswer;
    return typeof value.accountId === 'string' && typeof value.body === 'string' ? value : undefined;
  } catch {
    return undefined;
  }
}
