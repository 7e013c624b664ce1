import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { RouteProfileConfig } from '../../../src/config/types.js';
import { candidateOrder } from '../../../src/routing/candidate-order.js';

const routeOf = (tiers: Array<Array<{ provider: string; weight: number }>>): RouteProfileConfig => ({
  id: 'test/route',
  family: 'frontier',
  description: '',
  quotaWeight: 1,
  retryBudget: 3,
  tiers: tiers.map((tier) => tier.map((target) => ({ ...target, model: `${target.provider}-model` }))),
});

describe('candidateOrder', () => {
  it('tries every target once, tier by tier, whatever the random numbers (property)', () => {
    const tiers = fc.array(fc.array(fc.record({ provider: fc.constantFrom('a', 'b', 'c', 'd'), weight: fc.integer({ min: 1, max: 10 }) }), { minLength: 1, maxLength: 4 }), { maxLength: 4 });
    fc.assert(
      fc.property(tiers, fc.infiniteStream(fc.double({ min: 0, max: 0.999_999, noNaN: true })), (shape, numbers) => {
        const route = routeOf(shape);
        const ordered = candidateOrder(route, () => numbers.next().value);
        let at = 0;
        for (const tier of route.tiers) {
          const block = ordered.slice(at, at + tier.length);
          expect(new Set(block)).toEqual(new Set(tier));
          at += tier.length;
        }
        expect(at).toBe(ordered.length);
      }),
    );
  });

  it('draws no random number for a tier of one target, and picks by weight in a larger one', () => {
    let draws = 0;
    const route = routeOf([[{ provider: 'a', weight: 1 }], [{ provider: 'b', weight: 1 }, { provider: 'c', weight: 3 }]]);
    const ordered = candidateOrder(route, () => {
      draws += 1;
      return 0.5; // 0.5 of the weight 4: past b's 1, so c first
    });
    expect(ordered.map((target) => target.provider)).toEqual(['a', 'c', 'b']);
    expect(draws).toBe(2);
  });
});
