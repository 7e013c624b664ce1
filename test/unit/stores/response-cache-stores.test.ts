/**
 * The response cache's stores: memory (an LRU bounded in bytes and entries) and Redis (TTL, a per-entry
 * bound, its own byte and entry accounting), each under a flood of distinct answers staying within its
 * bound, never handing one account's entry to another, expiring by TTL, and forgetting on delete.
 * Redis runs when ROUTER_TEST_REDIS_URL is set, under a key prefix of its own.
 */
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { canonicalJson, responseCacheKey } from '../../../src/core/response-cache-key.js';
import { createMemoryResponseCache } from '../../../src/stores/memory/memory-response-cache.js';
import { createRedisResponseCache } from '../../../src/stores/redis/redis-response-cache.js';
import { cachedAnswerBytes, type CachedAnswer } from '../../../src/stores/response-cache-store.js';

function answer(accountId: string, body: string, ttlMs = 60_000, storedAt = 0): CachedAnswer {
  return {
    accountId,
    originalRequestId: `req_${body.length}`,
    storedAt,
    ttlMs,
    contentType: 'application/json',
    headers: { 'x-router-upstream': 'openai' },
    body,
    servedBy: { providerId: 'openai', upstreamModel: 'gpt-4.1' },
    usage: { prompt: 1, completion: 1, reasoning: 0, cached: 0 },
    costNanoUsd: 10,
    finishReason: 'stop',
  };
}

describe('response cache key', () => {
  it('ignores the order of fields and keeps every value', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string(), fc.jsonValue()), (body) => {
        const reversed = Object.fromEntries(Object.entries(body).reverse());
        const parts = { accountId: 'acct_a', endpoint: '/v1/chat/completions', routeId: 'router/frontier', stream: false };
        expect(responseCacheKey({ ...parts, body: reversed })).toBe(responseCacheKey({ ...parts, body }));
        expect(JSON.parse(canonicalJson(body))).toEqual(JSON.parse(JSON.stringify(body)));
      }),
    );
  });

  it('differs by account, endpoint, route and stream mode, and is a hash that holds no prompt', () => {
    const parts = { accountId: 'acct_a', endpoint: '/v1/chat/completions', routeId: 'router/frontier', stream: false, body: { messages: [{ content: 'secret prompt' }] } };
    const keys = new Set([
      responseCacheKey(parts),
      responseCacheKey({ ...parts, accountId: 'acct_b' }),
      responseCacheKey({ ...parts, endpoint: '/v1/responses' }),
      responseCacheKey({ ...parts, routeId: 'router/fast' }),
      responseCacheKey({ ...parts, stream: true }),
    ]);
    expect(keys.size).toBe(5);
    for (const key of keys) expect(key).toMatch(/^[0-9a-f]{64}$/);
  });
});

describe('memory response cache', () => {
  it('stays within its byte bound under a flood of distinct answers, keeping the most recent', async () => {
    const maxBytes = 64 * 1024;
    const cache = createMemoryResponseCache({ maxBytes, maxEntryBytes: 8 * 1024, maxEntries: 10_000, now: () => 0 });
    for (let i = 0; i < 5_000; i += 1) {
      await cache.set(`k${i}`, answer('acct_a', 'x'.repeat(100 + (i % 3000))));
      expect(cache.bytes).toBeLessThanOrEqual(maxBytes);
    }
    expect(await cache.get('k4999', 'acct_a')).toBeDefined();
    expect(await cache.get('k0', 'acct_a')).toBeUndefined();
  });

  it('bounds the count too, drops an answer over the per-entry bound, never serves another account, expires and deletes', async () => {
    // A clock like the router's (epoch ms): lru-cache reads a start time of 0 as "no TTL".
    let now = 1_700_000_000_000;
    const cache = createMemoryResponseCache({ maxBytes: 1_000_000, maxEntryBytes: 2048, maxEntries: 10, now: () => now });
    for (let i = 0; i < 50; i += 1) await cache.set(`k${i}`, answer('acct_a', 'small'));
    expect(cache.entries).toBeLessThanOrEqual(10);
    await cache.set('big', answer('acct_a', 'y'.repeat(4096)));
    expect(await cache.get('big', 'acct_a')).toBeUndefined();
    await cache.set('mine', answer('acct_a', 'hello', 1000));
    expect(await cache.get('mine', 'acct_b')).toBeUndefined();
    await cache.delete('mine', 'acct_b');
    expect(await cache.get('mine', 'acct_a')).toBeDefined();
    now += 1001;
    expect(await cache.get('mine', 'acct_a')).toBeUndefined();
    await cache.set('gone', answer('acct_a', 'bye'));
    await cache.delete('gone', 'acct_a');
    expect(await cache.get('gone', 'acct_a')).toBeUndefined();
  });
});

const url = process.env.ROUTER_TEST_REDIS_URL;
if (!url) console.warn('skipping Redis response cache tests: set ROUTER_TEST_REDIS_URL (e.g. redis://127.0.0.1:6379)');

describe.skipIf(!url)('redis response cache', () => {
  const keyPrefix = `rctest-${randomBytes(4).toString('hex')}:`;
  const admin = url ? new Redis(url) : undefined;
  const opened: { close(): Promise<void> }[] = [];
  const open = (bounds: { maxBytes: number; maxEntryBytes: number; maxEntries: number }, now = () => Date.now()) => {
    const cache = createRedisResponseCache({ url: url!, keyPrefix, ...bounds, now });
    opened.push(cache);
    return cache;
  };
  const ready = async () => new Promise((resolve) => setTimeout(resolve, 200));
  afterAll(async () => {
    for (const cache of opened) await cache.close();
    const keys = await admin!.keys(`${keyPrefix}*`);
    if (keys.length > 0) await admin!.del(...keys);
    admin!.disconnect();
  });

  it('stays within its byte and entry bounds under a flood of distinct answers; keys hold no prompt', async () => {
    const maxBytes = 64 * 1024;
    const cache = open({ maxBytes, maxEntryBytes: 8 * 1024, maxEntries: 40 });
    await ready();
    for (let i = 0; i < 300; i += 1) await cache.set(`flood${i}`, answer('acct_a', `secret prompt ${'z'.repeat(100 + ((i * 37) % 3000))}`));
    const usage = await cache.usage();
    expect(usage.bytes).toBeLessThanOrEqual(maxBytes);
    expect(usage.entries).toBeLessThanOrEqual(40);
    const keys = await admin!.keys(`${keyPrefix}*`);
    expect(keys.length).toBeLessThanOrEqual(40 + 3);
    let stored = 0;
    for (const key of keys) if (key.includes(':e:')) stored += cachedAnswerBytes(JSON.parse((await admin!.get(key))!) as CachedAnswer);
    expect(stored).toBe(usage.bytes);
    expect(keys.some((key) => key.includes('secret'))).toBe(false);
    expect(await cache.get('flood299', 'acct_a')).toBeDefined();
  });

  it('is shared by two connections (instances), never across accounts, with a TTL, and forgets on delete', async () => {
    const one = open({ maxBytes: 1_000_000, maxEntryBytes: 100_000, maxEntries: 1000 });
    const two = open({ maxBytes: 1_000_000, maxEntryBytes: 100_000, maxEntries: 1000 });
    await ready();
    await one.set('shared', answer('acct_a', 'hello', 60_000));
    expect((await two.get('shared', 'acct_a'))?.body).toBe('hello');
    expect(await two.get('shared', 'acct_b')).toBeUndefined();
    await two.delete('shared', 'acct_b');
    expect(await one.get('shared', 'acct_a')).toBeDefined();
    await two.delete('shared', 'acct_a');
    expect(await one.get('shared', 'acct_a')).toBeUndefined();
    await one.set('brief', answer('acct_a', 'soon gone', 50));
    await new Promise((resolve) => setTimeout(resolve, 120));
    expect(await two.get('brief', 'acct_a')).toBeUndefined();
    await one.set('large', answer('acct_a', 'q'.repeat(200_000)));
    expect(await one.get('large', 'acct_a')).toBeUndefined();
  });
});
