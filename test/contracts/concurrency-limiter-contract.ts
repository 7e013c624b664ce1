/**
 * What every in-flight limiter must do (memory, the cluster's primary, Redis): never more than the cap
 * in flight per account, whatever the order of takes and releases; a release counts once however often
 * it is called; accounts never share slots.
 */
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ConcurrencyLimiter } from '../../src/stores/concurrency-limiter.js';

export type MakeConcurrencyLimiter = () => Promise<ConcurrencyLimiter>;

let accounts = 0;
const freshAccount = () => `acct_inflight_${process.pid}_${accounts++}`;

export function runConcurrencyLimiterContract(name: string, makeLimiter: MakeConcurrencyLimiter, options: { runs?: number } = {}): void {
  describe(`${name} in-flight limiter contract`, () => {
    let limiter: ConcurrencyLimiter;
    beforeEach(async () => {
      limiter = await makeLimiter();
    });
    afterEach(async () => {
      await limiter.close();
    });

    it('admits up to the cap, refuses the next, and admits again once a slot is released', async () => {
      const account = freshAccount();
      const taken = [await limiter.acquire(account, 2), await limiter.acquire(account, 2)];
      expect(taken.map(({ allowed, inFlight, limit }) => ({ allowed, inFlight, limit }))).toEqual([
        { allowed: true, inFlight: 1, limit: 2 },
        { allowed: true, inFlight: 2, limit: 2 },
      ]);
      const refused = await limiter.acquire(account, 2);
      expect(refused).toEqual({ allowed: false, inFlight: 2, limit: 2 });
      taken[0]!.release!();
      expect((await limiter.acquire(account, 2)).allowed).toBe(true);
      expect(await limiter.acquire(freshAccount(), 2)).toMatchObject({ allowed: true, inFlight: 1 });
    });

    it('counts a release once, however often it is called', async () => {
      const account = freshAccount();
      const first = await limiter.acquire(account, 2);
      await limiter.acquire(account, 2);
      for (let i = 0; i < 3; i++) first.release!();
      await settle();
      expect((await limiter.acquire(account, 2)).allowed).toBe(true);
      expect((await limiter.acquire(account, 2)).allowed).toBe(false);
    });

    it('admits exactly the cap of 60 takes made at once', async () => {
      const account = freshAccount();
      const decisions = await Promise.all(Array.from({ length: 60 }, () => limiter.acquire(account, 7)));
      expect(decisions.filter((decision) => decision.allowed)).toHaveLength(7);
    });

    it('agrees with a plain count over any sequence of takes and releases (property)', async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.integer({ min: 1, max: 4 }),
          fc.array(fc.record({ take: fc.boolean(), account: fc.integer({ min: 0, max: 2 }), pick: fc.nat() }), { maxLength: 40 }),
          async (cap, steps) => {
            const names = [freshAccount(), freshAccount(), freshAccount()];
            const held: Array<Array<() => void>> = [[], [], []];
            for (const step of steps) {
              const mine = held[step.account]!;
              if (step.take) {
                const decision = await limiter.acquire(names[step.account]!, cap);
                expect(decision.allowed).toBe(mine.length < cap);
                if (decision.release) mine.push(decision.release);
              } else if (mine.length > 0) {
                const [release] = mine.splice(step.pick % mine.length, 1);
                release!();
                release!();
                await settle();
              }
            }
            for (const mine of held) mine.splice(0).forEach((release) => release());
            await settle();
          },
        ),
        { numRuns: options.runs ?? 60 },
      );
    });
  });
}

/** Releases travel on the next event-loop turn in the cluster (and as a Redis command): let them land. */
async function settle(): Promise<void> {
  for (let i = 0; i < 3; i++) await new Promise((resolve) => setImmediate(resolve));
  await new Promise((resolve) => setTimeout(resolve, 5));
}
