import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createBoundedCache } from '../../../src/core/bounded-cache.js';

describe('createBoundedCache', () => {
  it('never holds more than its entries, and keeps the most recently used ones', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 20 }), fc.array(fc.integer({ min: 0, max: 40 }), { maxLength: 200 }), (entries, keys) => {
        const cache = createBoundedCache<number, number>({ entries });
        for (const key of keys) cache.set(key, key);
        expect(cache.size).toBeLessThanOrEqual(entries);
        // The last `entries` distinct keys set are the ones kept.
        const recent: number[] = [];
        for (const key of [...keys].reverse()) if (!recent.includes(key) && recent.length < entries) recent.push(key);
        expect([...cache.keys()].sort((a, b) => a - b)).toEqual(recent.sort((a, b) => a - b));
      }),
    );
  });

  it('forgets the least recently read entry first when full', () => {
    const cache = createBoundedCache<string, number>({ entries: 2 });
    cache.set('a', 1);
    cache.set('b', 2);
    expect(cache.get('a')).toBe(1);
    cache.set('c', 3);
    expect([...cache.keys()].sort()).toEqual(['a', 'c']);
  });

  it('expires entries once more than ttlMs has passed since they were set, on the clock it is given', () => {
    let now = 1_000;
    const cache = createBoundedCache<string, string>({ entries: 10, ttlMs: 500, now: () => now });
    cache.set('key', 'value');
    now += 500;
    expect(cache.get('key')).toBe('value');
    now += 1;
    expect(cache.get('key')).toBeUndefined();
  });
});
