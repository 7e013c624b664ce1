import { describe, expect, it } from 'vitest';
import { createMemoryRateLimiter } from '../../../src/stores/memory/create-memory-rate-limiter.js';
import { SlidingWindowLog } from '../../../src/stores/memory/sliding-window-log.js';
import { runRateLimiterContract } from '../../contracts/rate-limiter-contract.js';

runRateLimiterContract('memory', async () => createMemoryRateLimiter());

describe('memory rate limiter', () => {
  it('reports itself as the memory backend', () => {
    expect(createMemoryRateLimiter().status()).toEqual({ backend: 'memory' });
  });

  it('answers an admission at once, without a promise, so the request path need not await it', () => {
    const limiter = createMemoryRateLimiter();
    const first = limiter.admit('acct_a', 1, 0);
    expect(first).not.toBeInstanceOf(Promise);
    expect(first).toMatchObject({ allowed: true, remaining: 0 });
    expect(limiter.admit('acct_a', 1, 1)).toMatchObject({ allowed: false, remaining: 0 });
  });

  it('forgets the least recently admitted account past maxAccounts', async () => {
    const limiter = createMemoryRateLimiter({ maxAccounts: 2 });
    await limiter.admit('acct_a', 1, 0);
    await limiter.admit('acct_b', 1, 0);
    await limiter.admit('acct_c', 1, 0);
    expect((await limiter.peek('acct_a', 1, 1)).remaining).toBe(1);
    expect((await limiter.peek('acct_c', 1, 1)).remaining).toBe(0);
  });
});

describe('sliding window log', () => {
  it('keeps entries in order across growth, wrap-around and shrinking', () => {
    const log = new SlidingWindowLog(20);
    for (let at = 1; at <= 12; at++) log.push(at);
    log.dropThrough(6);
    for (let at = 13; at <= 20; at++) log.push(at);
    expect([log.size, log.oldest]).toEqual([14, 7]);
    log.setCapacity(4);
    expect([log.size, log.oldest]).toEqual([4, 17]);
    log.dropThrough(18);
    expect([log.size, log.oldest]).toEqual([2, 19]);
    log.setCapacity(10);
    for (let at = 21; at <= 28; at++) log.push(at);
    expect([log.size, log.oldest]).toEqual([10, 19]);
    log.dropThrough(27);
    expect([log.size, log.oldest]).toEqual([1, 28]);
  });
});
