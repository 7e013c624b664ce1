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
  /** The server tool calls the upstream reported (web searches, …), at pricing.yaml's per-call prices. */
  server_tools: number;
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
  return callsCost(prices, [{ provider: served.providerId, model: served.upstreamModel, usage }]);
}

/**
 * The cost of several upstream calls together (a fusion request's panel, judge and writer): each call's
 * parts as its own ledger record holds them, added up, so `cost` equals the sum of the records exactly.
 * A call without a provider (nothing was sent) or without usage adds nothing; a call whose model has no
 * price makes the whole cost unknown (absent), as one unknown record would in the ledger.
 */
export function callsCost(prices: PriceBook, calls: ReadonlyArray<{ provider: string | null; model: string | null; usage: TokenUsage | null }>): ResponseCost | undefined {
  const sum = { total: 0, input: 0, cacheRead: 0, cacheWrite: 0, cacheWrite1h: 0, output: 0, reasoning: 0, serverTools: 0, cacheSavings: 0 };
  for (const call of calls) {
    if (call.provider === null || call.usage === null) continue;
    const price = call.model === null ? undefined : prices.priceOf(call.provider, call.model);
    if (price === undefined) return undefined;
    const provider = call.provider;
    const toolPrice = (tool: string) => prices.serverToolPriceOf(provider, tool);
    const parts = costPartsNanoUsd(price, call.usage, toolPrice);
    sum.total += costNanoUsd(price, call.usage, toolPrice);
    sum.input += parts.input;
    sum.cacheRead += parts.cacheRead;
    sum.cacheWrite += parts.cacheWrite;
    sum.cacheWrite1h += parts.cacheWrite1h;
    sum.output += parts.output;
    sum.reasoning += parts.reasoning;
    sum.serverTools += parts.serverTools;
    sum.cacheSavings += parts.cacheSavings;
  }
  return {
    cost: usd(sum.total),
    cost_details: {
      input: usd(sum.input),
      cache_read: usd(sum.cacheRead),
      cache_write: usd(sum.cacheWrite),
      cache_write_1h: usd(sum.cacheWrite1h),
      output: usd(sum.output),
      reasoning: usd(sum.reasoning),
      server_tools: usd(sum.serverTools),
      cache_savings: usd(sum.cacheSavings),
    },
  };
}
