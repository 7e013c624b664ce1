import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BUCKET_MS, bucketStartOf } from '../../../src/stores/ledger-rollup.js';
import { costNanoUsd, createPriceBook, maximumCostNanoUsd, unpricedModelsForPlans } from '../../../src/usage/model-prices.js';
import { formatNanoUsd, usdToNano } from '../../../src/usage/nano-usd.js';
import type { ProviderConfig } from '../../../src/config/types.js';

const tokens = fc.record({
  prompt: fc.integer({ min: 0, max: 2_000_000 }),
  completion: fc.integer({ min: 0, max: 200_000 }),
  reasoning: fc.constant(0),
  cached: fc.integer({ min: 0, max: 2_000_000 }),
});
/** Prices as providers publish them: USD per million tokens with up to three decimals. */
const usdPerMillion = fc.integer({ min: 0, max: 200_000 }).map((thousandths) => thousandths / 1000);
const price = fc.record({ input: usdPerMillion, cachedInput: usdPerMillion, output: usdPerMillion });

describe('nano-USD', () => {
  it('prints any amount as an exact decimal that reads back to the same integer', () => {
    fc.assert(
      fc.property(fc.integer({ min: -1e15, max: 1e15 }), (nano) => {
        const printed = formatNanoUsd(nano);
        expect(printed).toMatch(/^-?\d+\.\d{2,9}$/);
        const [whole, fraction] = printed.replace('-', '').split('.') as [string, string];
        const back = Number(whole) * 1e9 + Number(fraction.padEnd(9, '0'));
        expect(nano < 0 ? -back : back).toBe(nano);
      }),
    );
  });

  it('prints the common cases the way people write money', () => {
    expect(formatNanoUsd(2_500_000_000)).toBe('2.50');
    expect(formatNanoUsd(0)).toBe('0.00');
    expect(formatNanoUsd(1_000)).toBe('0.000001');
    expect(usdToNano(50)).toBe(50_000_000_000);
  });
});

describe('costNanoUsd', () => {
  it('is a whole number of nano-USD, exactly the published price for whole millions of tokens', () => {
    expect(costNanoUsd({ input: 2, cachedInput: 0.5, output: 8 }, { prompt: 1_000_000, completion: 1_000_000, reasoning: 0, cached: 0 })).toBe(10_000_000_000);
    expect(costNanoUsd({ input: 2, cachedInput: 0.5, output: 8 }, { prompt: 1_000_000, completion: 0, reasoning: 0, cached: 1_000_000 })).toBe(500_000_000);
    // Without a cached price, cache hits cost the input price.
    expect(costNanoUsd({ input: 1.25, output: 10 }, { prompt: 1, completion: 1, reasoning: 0, cached: 1 })).toBe(1250 + 10_000);
    fc.assert(
      fc.property(price, tokens, (p, usage) => {
        expect(Number.isSafeInteger(costNanoUsd(p, usage))).toBe(true);
      }),
    );
  });

  it('never charges more for more cache hits when cached input is cheaper, and never more than the estimate bound', () => {
    fc.assert(
      fc.property(price, tokens, fc.integer({ min: 0, max: 1000 }), (p, usage, extraCached) => {
        const cheaper = { ...p, cachedInput: Math.min(p.cachedInput, p.input) };
        const more = { ...usage, cached: Math.min(usage.prompt, usage.cached + extraCached) };
        expect(costNanoUsd(cheaper, more)).toBeLessThanOrEqual(costNanoUsd(cheaper, usage));
        expect(costNanoUsd(cheaper, usage)).toBeLessThanOrEqual(maximumCostNanoUsd([cheaper], usage.prompt, usage.completion));
      }),
    );
  });

  it('takes the dearest price for the estimate', () => {
    expect(maximumCostNanoUsd([{ input: 1, output: 1 }, { input: 3, output: 15 }], 1000, 100)).toBe(1000 * 3000 + 100 * 15000);
    expect(maximumCostNanoUsd([], 1000, 100)).toBe(0);
  });
});

describe('the price book', () => {
  const provider = (id: string, prices: ProviderConfig['prices']) => ({ id, prices }) as ProviderConfig;
  const book = createPriceBook([provider('openai', { 'gpt-4.1': { input: 2, output: 8 } }), provider('gemini', {})]);

  it('finds prices by provider and model and nothing else', () => {
    expect(book.priceOf('openai', 'gpt-4.1')).toEqual({ input: 2, output: 8 });
    expect(book.priceOf('openai', 'toString')).toBeUndefined();
    expect(book.priceOf('gemini', 'gpt-4.1')).toBeUndefined();
    expect(book.priceOf('nobody', 'gpt-4.1')).toBeUndefined();
  });

  it('lists the unpriced models only of the routes the given plans reach', () => {
    const config = {
      plans: [{ id: 'pro', routeProfiles: ['router/frontier'] }, { id: 'free', routeProfiles: ['router/other'] }] as never,
      routes: [
        { id: 'router/frontier', tiers: [[{ provider: 'openai', model: 'gpt-4.1', weight: 1 }], [{ provider: 'gemini', model: 'gemini-x', weight: 1 }]] },
        { id: 'router/other', tiers: [[{ provider: 'gemini', model: 'gemini-y', weight: 1 }]] },
      ] as never,
      providers: [provider('openai', { 'gpt-4.1': { input: 2, output: 8 } }), provider('gemini', {})],
    };
    expect(unpricedModelsForPlans(['pro'], config)).toEqual(['gemini/gemini-x']);
    expect(unpricedModelsForPlans(['pro', 'free'], config)).toEqual(['gemini/gemini-x', 'gemini/gemini-y']);
    expect(unpricedModelsForPlans([], config)).toEqual([]);
  });
});

describe('quarter-hour buckets', () => {
  it('puts every instant in the quarter hour it falls in, whatever its form', () => {
    fc.assert(
      fc.property(fc.integer({ min: Date.UTC(2000, 0, 1), max: Date.UTC(2100, 0, 1) }), (ms) => {
        const bucket = Date.parse(bucketStartOf(new Date(ms).toISOString()));
        expect(bucket % BUCKET_MS).toBe(0);
        expect(ms - bucket).toBeGreaterThanOrEqual(0);
        expect(ms - bucket).toBeLessThan(BUCKET_MS);
      }),
    );
    expect(bucketStartOf('2026-11-15T12:29:59.999+00:00')).toBe('2026-11-15T12:15:00.000Z');
  });
});
