import { describe, expect, it } from 'vitest';
import { tokenTypePriceWarnings } from '../../../src/config/price-warnings.js';
import type { ModelPrice, RouteProfileConfig } from '../../../src/config/types.js';

const route = (targets: { provider: string; model: string }[]) => ({ id: 'router/test', tiers: [targets] }) as unknown as RouteProfileConfig;

describe('router check: a price for every token type a provider reports', () => {
  it('warns once per routed model on Anthropic without cache read or write prices, and on OpenAI-format and Gemini without a cache read price', () => {
    const providers: Array<{ id: string; format: string; prices: Record<string, ModelPrice> }> = [
      { id: 'anthropic', format: 'anthropic', prices: { claude: { input: 3, output: 15 }, 'claude/full': { input: 3, cachedInput: 0.3, cacheWrite: 3.75, output: 15 } } },
      { id: 'openai', format: 'openai', prices: { 'gpt-4.1': { input: 2, output: 8 } } },
      { id: 'gemini', format: 'gemini', prices: { flash: { input: 0.3, cachedInput: 0.03, output: 2.5 } } },
    ];
    const routes = [
      route([{ provider: 'anthropic', model: 'claude' }, { provider: 'anthropic', model: 'claude/full' }, { provider: 'openai', model: 'gpt-4.1' }, { provider: 'gemini', model: 'flash' }]),
      route([{ provider: 'anthropic', model: 'claude' }]),
    ];
    const warnings = tokenTypePriceWarnings(routes, providers);
    expect(warnings.map((warning) => [warning.pointer, warning.message])).toEqual([
      ['/providers/0/prices/claude', 'anthropic/claude has no cachedInput price but anthropic reports those tokens: cache reads are priced at the full input price'],
      ['/providers/0/prices/claude', 'anthropic/claude has no cacheWrite price but anthropic reports those tokens: cache writes are priced at the input price, not the write premium'],
      ['/providers/1/prices/gpt-4.1', 'openai/gpt-4.1 has no cachedInput price but openai reports those tokens: cache reads are priced at the full input price'],
    ]);
  });

  it('leaves unpriced models to the unpriced warning', () => {
    expect(tokenTypePriceWarnings([route([{ provider: 'openai', model: 'nope' }])], [{ id: 'openai', format: 'openai', prices: {} }])).toEqual([]);
  });
});
