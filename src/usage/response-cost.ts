/**
 * `usage.cost` and `usage.cost_details` on an answer: what the call cost in USD, the very figure its
 * ledger record holds (costNanoUsd, rounded once to the nano-dollar), and what each token type cost.
 * Absent when the cost is unknown (no tokens reported, or the model has no price), as in the ledger.
 */
import type { TokenUsage } from '../core/token-usage.js';
import { costNanoUsd, costPartsNanoUsd, type PriceBook } from './model-prices.js';

/** USD per token type in whole nano-dollars, adding up to `cost` exactly (the ledger keeps the same parts). */
export interface CostDetails {
  input: number;
  cache_read: number;
  cache_write: number;
  cache_write_1h: number;
  output: number;
  reasoning: number;
  /** What the cache reads saved against the input price (positive when the cache was cheaper). */
  cache_savings: number;
}

export interface ResponseCost {
  cost: number;
  cost_details: CostDetails;
}

const usd = (nano: number): number => Math.round(nano) / 1e9;

export function responseCost(prices: PriceBook, served: { providerId: string; upstreamModel: string } | undefined, usage: TokenUsage | null): ResponseCost | undefined {
  if (!served || !usage) return undefined;
  const price = prices.priceOf(served.providerId, served.upstreamModel);
  if (price === undefined) return undefined;
  const parts = costPartsNanoUsd(price, usage);
  return {
    cost: usd(costNanoUsd(price, usage)),
    cost_details: {
      input: usd(parts.input),
      cache_read: usd(parts.cacheRead),
      cache_write: usd(parts.cacheWrite),
      cache_write_1h: usd(parts.cacheWrite1h),
      output: usd(parts.output),
      reasoning: usd(parts.reasoning),
      cache_savings: usd(parts.cacheSavings),
    },
  };
}
