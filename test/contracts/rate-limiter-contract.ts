/**
 * The behaviour every RateLimiter must show (memory and Redis): an exact sliding-window log over 60 s,
 * with honest header values. `makeLimiter` returns a fresh limiter with no history; the suite closes it.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { RateDecision, RateLimiter } from '../../src/stores/rate-limiter.js';

export type MakeRateLimiter = () => Promise<RateLimiter>;

const T0 = 1_000_000;

/** A small deterministic PRNG (mulberry32), so a failing property run can be replayed. */
function seededRandom(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const decision = (allowed: boolean, limit: number, remaining: number, resetSeconds: number, retryAfterSeconds: number): RateDecision => ({
  allowed,
  limit,
  remaining,
  resetSeconds,
  retryAfterSeconds,
});

export function runRateLimiterContract(name: string, makeLimiter: MakeRateLimiter): void {
  describe(`${name} rate limiter contract`, () => {
    let limiter: RateLimiter;
    beforeEach(async () => {
      limiter = await makeLimiter();
    });
    afterEach(async () => {
      await limiter.close();
    });

    it('admits up to the limit, then rejects until the oldest admission leaves the window', async () => {
      expect(await limiter.admit('acct_a', 3, T0)).toEqual(decision(true, 3, 2, 60, 0));
      expect(await limiter.admit('acct_a', 3, T0 + 10_500)).toEqual(decision(true, 3, 1, 50, 0));
      expect(await limiter.admit('acct_a', 3, T0 + 20_000)).toEqual(decision(true, 3, 0, 40, 0));
      expect(await limiter.admit('acct_a', 3, T0 + 30_250)).toEqual(decision(false, 3, 0, 30, 30));
      expect(await limiter.admit('acct_a', 3, T0 + 59_999)).toEqual(decision(false, 3, 0, 1, 1));
      // At exactly T0 + 60 s the first admission has left: (now - 60 s, now] is half-open.
      expect(await limiter.admit('acct_a', 3, T0 + 60_000)).toEqual(decision(true, 3, 0, 11, 0));
    });

    it('peeks without counting', async () => {
      expect(await limiter.peek('acct_a', 2, T0)).toEqual(decision(true, 2, 2, 0, 0));
      await limiter.admit('acct_a', 2, T0);
      expect(await limiter.peek('acct_a', 2, T0 + 1000)).toEqual(decision(true, 2, 1, 59, 0));
      expect(await limiter.peek('acct_a', 2, T0 + 1000)).toEqual(decision(true, 2, 1, 59, 0));
      await limiter.admit('acct_a', 2, T0 + 2000);
      expect(await limiter.peek('acct_a', 2, T0 + 2000)).toEqual(decision(false, 2, 0, 58, 58));
    });

    it('admits a client that waits exactly Retry-After seconds', async () => {
      const random = seededRandom(7);
      let now = T0;
      for (let round = 0; round < 20; round++) {
        let rejected = await limiter.admit('acct_wait', 4, now);
        while (rejected.allowed) {
          now += Math.floor(random() * 9000);
          rejected = await limiter.admit('acct_wait', 4, now);
        }
        expect(rejected.retryAfterSeconds).toBeGreaterThanOrEqual(1);
        now += rejected.retryAfterSeconds * 1000;
        expect((await limiter.admit('acct_wait', 4, now)).allowed).toBe(true);
      }
    });

    it('never admits more than the limit in any 60 s window, and rejects only when the window is full', async () => {
      const random = seededRandom(42);
      const limit = 10;
      const admitted: number[] = [];
      let now = T0;
      for (let i = 0; i < 400; i++) {
        // Bursts of near-simultaneous requests between quiet gaps of up to 20 s.
        now += random() < 0.8 ? Math.floor(random() * 300) : Math.floor(random() * 20_000);
        const result = await limiter.admit('acct_p', limit, now);
        const inWindow = admitted.filter((at) => at > now - 60_000).length;
        expect(result.allowed).toBe(inWindow < limit);
        if (result.allowed) admitted.push(now);
      }
      for (const end of admitted) expect(admitted.filter((at) => at > end - 60_000 && at <= end).length).toBeLessThanOrEqual(limit);
      expect(admitted.length).toBeGreaterThan(limit);
    });

    it('applies a lower limit at once and a higher one too', async () => {
      for (let i = 0; i < 5; i++) await limiter.admit('acct_plan', 5, T0 + i * 1000);
      // Downgrade: the newest 3 admissions (T0+2s..T0+4s) fill the smaller window; T0+2s leaves at T0+62s.
      expect(await limiter.admit('acct_plan', 3, T0 + 5000)).toEqual(decision(false, 3, 0, 57, 57));
      expect((await limiter.admit('acct_plan', 3, T0 + 62_000)).allowed).toBe(true);
      expect(await limiter.admit('acct_plan', 8, T0 + 62_500)).toEqual(decision(true, 8, 4, 1, 0));
    });

    it('keeps accounts independent', async () => {
      await limiter.admit('acct_one', 1, T0);
      expect((await limiter.admit('acct_one', 1, T0 + 1)).allowed).toBe(false);
      expect(await limiter.admit('acct_two', 1, T0 + 1)).toEqual(decision(true, 1, 0, 60, 0));
    });

    it('rejects everything at a limit of 0 and asks for a whole window', async () => {
      expect(await limiter.admit('acct_zero', 0, T0)).toEqual(decision(false, 0, 0, 0, 60));
    });

    it('keeps a longer window when asked (the sign-in throttle’s 15 minutes)', async () => {
      const window = 15 * 60_000;
      expect(await limiter.admit('signin_a', 2, T0, window)).toEqual(decision(true, 2, 1, 900, 0));
      expect(await limiter.admit('signin_a', 2, T0 + 120_000, window)).toEqual(decision(true, 2, 0, 780, 0));
      // Well past a minute, both admissions still count.
      expect(await limiter.peek('signin_a', 2, T0 + 600_000, window)).toEqual(decision(false, 2, 0, 300, 300));
      expect(await limiter.admit('signin_a', 2, T0 + 899_999, window)).toEqual(decision(false, 2, 0, 1, 1));
      expect(await limiter.admit('signin_a', 2, T0 + 900_000, window)).toEqual(decision(true, 2, 0, 120, 0));
      expect(await limiter.admit('signin_empty', 0, T0, window)).toEqual(decision(false, 0, 0, 0, 900));
    });
  });
}
