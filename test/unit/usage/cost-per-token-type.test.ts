import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ModelPrice } from '../../../src/config/types.js';
import type { TokenUsage } from '../../../src/core/token-usage.js';
import { costNanoUsd, costParts, costPartsNanoUsd } from '../../../src/usage/model-prices.js';
import { responseCost } from '../../../src/usage/response-cost.js';

// Prices with up to three decimals per million tokens: whole nano-USD per token (nano-usd.ts).
const dollars = fc.integer({ min: 0, max: 100_000 }).map((milli) => milli / 1000);
const price = fc.record({ input: dollars, cachedInput: dollars, cacheWrite: dollars, cacheWrite1h: dollars, output: dollars, reasoning: dollars }, { requiredKeys: ['input', 'output'] });
const count = fc.nat({ max: 2_000_000 });
const usage = fc.record({ prompt: count, completion: count, reasoning: count, cached: count, cacheWrite: count, cacheWrite1h: count });

describe('cost per token type', () => {
  it('prices a call without the new prices exactly as before (input, cached input, output)', () => {
    const old: ModelPrice = { input: 3, cachedInput: 0.3, output: 15 };
    const tokens: TokenUsage = { prompt: 1000, completion: 200, reasoning: 50, cached: 400, cacheWrite: 100, cacheWrite1h: 40 };
    expect(costNanoUsd(old, tokens)).toBe(600 * 3000 + 400 * 300 + 200 * 15000);
  });

  it('property: the cost is the sum of its parts rounded once; no token is priced twice; the response states the same figure', () => {
    fc.assert(
      fc.property(price, usage, (p, u) => {
        const parts = costParts(p, u);
        const nano = costNanoUsd(p, u);
        expect(nano).toBe(Math.round(Object.values(parts).reduce((sum, part) => sum + part, 0)));
        for (const part of Object.values(parts)) expect(part).toBeGreaterThanOrEqual(0);
        // Priced at one price for every type, the cost is just prompt × input + completion × output.
        const flat = costNanoUsd({ input: p.input, cachedInput: p.input, cacheWrite: p.input, cacheWrite1h: p.input, output: p.output, reasoning: p.output }, u);
        expect(flat).toBe(Math.round(u.prompt * p.input * 1000 + u.completion * p.output * 1000));
        const stated = responseCost({ priceOf: () => p, serverToolPriceOf: () => undefined }, { providerId: 'x', upstreamModel: 'm' }, u)!;
        expect(Math.round(stated.cost * 1e9)).toBe(nano);
      }),
    );
  });

  it('property: the whole nano-dollar parts the ledger keeps add up to the cost exactly, each within one nano-dollar of its exact value', () => {
    fc.assert(
      fc.property(price, usage, fc.integer({ min: 0, max: 7 }).map((tenths) => tenths / 10), (p, u, skew) => {
        // Prices with fractions of a nano-dollar per token too (0.1 → 100 nano-USD; 0.0001 → 0.1).
        const fine = { ...p, input: p.input + skew / 1000 };
        const exact = costParts(fine, u);
        const whole = costPartsNanoUsd(fine, u);
        const names = ['input', 'cacheRead', 'cacheWrite', 'cacheWrite1h', 'output', 'reasoning'] as const;
        expect(names.reduce((sum, name) => sum + whole[name], 0)).toBe(costNanoUsd(fine, u));
        for (const name of names) {
          expect(Number.isInteger(whole[name])).toBe(true);
          expect(Math.abs(whole[name] - exact[name])).toBeLessThan(1);
        }
        const stated = responseCost({ priceOf: () => fine, serverToolPriceOf: () => undefined }, { providerId: 'x', upstreamModel: 'm' }, u)!;
        const { cache_savings: _savings, ...details } = stated.cost_details;
        expect(Object.values(details).reduce((sum, usd) => sum + Math.round(usd * 1e9), 0)).toBe(Math.round(stated.cost * 1e9));
      }),
    );
  });

  it('states what cache reads saved against the input price', () => {
    const parts = costPartsNanoUsd({ input: 3, cachedInput: 0.3, output: 15 }, { prompt: 1000, completion: 0, reasoning: 0, cached: 400 });
    expect(parts.cacheSavings).toBe(400 * 3000 - 400 * 300);
  });
});
