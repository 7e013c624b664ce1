/**
 * Token prices per upstream model (providers.yaml `prices`, USD per million tokens) and what a call
 * costs in nano-USD. Pure: no I/O.
 */
import { unpricedTargets } from '../config/price-warnings.js';
import type { ModelPrice, PlanConfig, ProviderConfig, RouteProfileConfig } from '../config/types.js';
import type { TokenUsage } from '../core/token-usage.js';

/** nano-USD per token for a price given in USD per million tokens. */
const perToken = (usdPerMillion: number): number => usdPerMillion * 1000;

export interface PriceBook {
  priceOf(providerId: string, model: string): ModelPrice | undefined;
}

export function createPriceBook(providers: readonly ProviderConfig[]): PriceBook {
  const byProvider = new Map(providers.map((provider) => [provider.id, provider.prices]));
  return {
    priceOf: (providerId, model) => {
      const prices = byProvider.get(providerId);
      return prices && Object.hasOwn(prices, model) ? prices[model] : undefined;
    },
  };
}

/** Cached prompt tokens at the cached price, the rest of the prompt at the input price, completion (reasoning included) at the output price. */
export function costNanoUsd(price: ModelPrice, usage: TokenUsage): number {
  const cached = Math.min(usage.cached, usage.prompt);
  const uncached = usage.prompt - cached;
  return Math.round(uncached * perToken(price.input) + cached * perToken(price.cachedInput ?? price.input) + usage.completion * perToken(price.output));
}

/** The most a call can cost with at most these prompt and output tokens, at the dearest of the prices. */
export function maximumCostNanoUsd(prices: readonly ModelPrice[], promptTokens: number, outputTokens: number): number {
  let most = 0;
  for (const price of prices) most = Math.max(most, Math.ceil(promptTokens * perToken(price.input) + outputTokens * perToken(price.output)));
  return most;
}

/** `provider/model` of every route target the given plans can reach that has no price (sorted, once each). */
export function unpricedModelsForPlans(
  planIds: readonly string[],
  config: { plans: readonly PlanConfig[]; routes: readonly RouteProfileConfig[]; providers: readonly ProviderConfig[] },
): string[] {
  const reachable = new Set(config.plans.filter((plan) => planIds.includes(plan.id)).flatMap((plan) => plan.routeProfiles));
  const routes = config.routes.filter((route) => reachable.has(route.id));
  return [...new Set(unpricedTargets(routes, config.providers).map((target) => `${target.provider}/${target.model}`))].sort();
}
