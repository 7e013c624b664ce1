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
  /** USD per call of a server tool on the provider (pricing.yaml serverToolPrices); undefined when unpriced. */
  serverToolPriceOf(providerId: string, tool: string): number | undefined;
}

/** Server tool prices, USD per call, per provider id then tool name (pricing.yaml serverToolPrices). */
export type ServerToolPrices = Readonly<Record<string, Readonly<Record<string, number>>>>;

export function createPriceBook(providers: readonly ProviderConfig[], serverToolPrices: ServerToolPrices = {}): PriceBook {
  const byProvider = new Map(providers.map((provider) => [provider.id, provider.prices]));
  return {
    priceOf: (providerId, model) => {
      const prices = byProvider.get(providerId);
      return prices && Object.hasOwn(prices, model) ? prices[model] : undefined;
    },
    serverToolPriceOf: (providerId, tool) => {
      const tools = Object.hasOwn(serverToolPrices, providerId) ? serverToolPrices[providerId] : undefined;
      return tools && Object.hasOwn(tools, tool) ? tools[tool] : undefined;
    },
  };
}

/** What each token type of a call cost, in nano-USD, unrounded (the parts of costNanoUsd); and its server tool calls. */
export interface CostParts {
  input: number;
  cacheRead: number;
  cacheWrite: number;
  cacheWrite1h: number;
  output: number;
  reasoning: number;
  /** The server tool calls the upstream reported, each at its per-call price (whole nano-USD); 0 for a tool without one. */
  serverTools: number;
}

/** USD per call of a server tool on the provider that served the call (PriceBook.serverToolPriceOf). */
export type ToolPrice = (tool: string) => number | undefined;

const NO_TOOL_PRICES: ToolPrice = () => undefined;

/** The calls at their prices, in whole nano-USD (prices are USD per call, so each call is whole nano-dollars). */
function serverToolsNanoUsd(calls: TokenUsage['serverToolCalls'], toolPrice: ToolPrice): number {
  if (!calls) return 0;
  let total = 0;
  for (const [tool, count] of Object.entries(calls)) total += count * Math.round((toolPrice(tool) ?? 0) * 1e9);
  return total;
}

/**
 * Each token type at its price: cache reads at `cachedInput`, 5-minute and 1-hour cache writes at
 * `cacheWrite` and `cacheWrite1h`, the rest of the prompt at `input`; reasoning at `reasoning`, the rest
 * of the completion at `output`. A price a model lacks falls back as ModelPrice says, so a book without
 * them prices as before. Parts are clamped so no token is counted twice, whatever the upstream said.
 */
export function costParts(price: ModelPrice, usage: TokenUsage, toolPrice: ToolPrice = NO_TOOL_PRICES): CostParts {
  const cached = Math.min(usage.cached, usage.prompt);
  const written = Math.min(usage.cacheWrite ?? 0, usage.prompt - cached);
  const written1h = Math.min(usage.cacheWrite1h ?? 0, written);
  const reasoning = Math.min(usage.reasoning, usage.completion);
  const cacheWritePrice = price.cacheWrite ?? price.input;
  return {
    input: (usage.prompt - cached - written) * perToken(price.input),
    cacheRead: cached * perToken(price.cachedInput ?? price.input),
    cacheWrite: (written - written1h) * perToken(cacheWritePrice),
    cacheWrite1h: written1h * perToken(price.cacheWrite1h ?? cacheWritePrice),
    output: (usage.completion - reasoning) * perToken(price.output),
    reasoning: reasoning * perToken(price.reasoning ?? price.output),
    serverTools: serverToolsNanoUsd(usage.serverToolCalls, toolPrice),
  };
}

/** A call's cost, rounded once to whole nano-USD: the ledger's figure and every response's `usage.cost`. */
export function costNanoUsd(price: ModelPrice, usage: TokenUsage, toolPrice: ToolPrice = NO_TOOL_PRICES): number {
  return Math.round(sumOfParts(costParts(price, usage, toolPrice)));
}

function sumOfParts(parts: CostParts): number {
  return parts.input + parts.cacheRead + parts.cacheWrite + parts.cacheWrite1h + parts.output + parts.reasoning + parts.serverTools;
}

/** A call's cost per token type in whole nano-USD, summing exactly to costNanoUsd, and what its cache reads saved. */
export interface CostPartsNanoUsd extends CostParts {
  /** The cache reads at the input price minus their cost (negative if a cache read cost more). */
  cacheSavings: number;
}

const PART_NAMES = ['input', 'cacheRead', 'cacheWrite', 'cacheWrite1h', 'output', 'reasoning'] as const;

/**
 * costParts rounded so they add up to costNanoUsd exactly (largest remainders: each part is floored and
 * the nano-dollars left go to the parts with the largest fractions, ties to the earlier type), so the
 * ledger's per-type sums and every answer's `cost_details` always add up to its `cost`.
 * Runs for every served request: the parts are priced once, and the at most five nano-dollars left over
 * are placed by a scan each instead of a sort (which cost a copy, a closure and an array per request).
 */
export function costPartsNanoUsd(price: ModelPrice, usage: TokenUsage, toolPrice: ToolPrice = NO_TOOL_PRICES): CostPartsNanoUsd {
  const exact = costParts(price, usage, toolPrice);
  const cachedAtInput = Math.min(usage.cached, usage.prompt) * perToken(price.input);
  const whole: CostPartsNanoUsd = {
    input: Math.floor(exact.input),
    cacheRead: Math.floor(exact.cacheRead),
    cacheWrite: Math.floor(exact.cacheWrite),
    cacheWrite1h: Math.floor(exact.cacheWrite1h),
    output: Math.floor(exact.output),
    reasoning: Math.floor(exact.reasoning),
    serverTools: exact.serverTools,
    cacheSavings: Math.round(cachedAtInput - exact.cacheRead),
  };
  let left = Math.round(sumOfParts(exact)) - sumOfParts(whole);
  let given = 0; // bit i: PART_NAMES[i] already got its extra nano-dollar
  while (left > 0) {
    let best = -1;
    let bestFraction = -1;
    for (let i = 0; i < PART_NAMES.length; i++) {
      const fraction = exact[PART_NAMES[i]!] - whole[PART_NAMES[i]!];
      if ((given & (1 << i)) === 0 && fraction > bestFraction) {
        best = i;
        bestFraction = fraction;
      }
    }
    if (best < 0) break;
    given |= 1 << best;
    whole[PART_NAMES[best]!] += 1;
    left -= 1;
  }
  return whole;
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
  config: {
    plans: readonly PlanConfig[];
    routes: readonly RouteProfileConfig[];
    providers: readonly ProviderConfig[];
    /** The concrete catalog models as routes (catalog.yaml concreteModels), with whether a plan allows each. */
    concreteModels?: { routes: readonly RouteProfileConfig[]; allows: (plan: PlanConfig, modelId: string) => boolean };
  },
): string[] {
  const plans = config.plans.filter((plan) => planIds.includes(plan.id));
  const reachable = new Set(plans.flatMap((plan) => plan.routeProfiles));
  const concrete = config.concreteModels;
  // A concrete model a resellable plan allows is reachable on operator keys just as a profile is.
  const routes = [
    ...config.routes.filter((route) => reachable.has(route.id)),
    ...(concrete ? concrete.routes.filter((route) => plans.some((plan) => concrete.allows(plan, route.id))) : []),
  ];
  return [...new Set(unpricedTargets(routes, config.providers).map((target) => `${target.provider}/${target.model}`))].sort();
}
