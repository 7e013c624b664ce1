import type { RawConfigFiles } from './config-files.js';
import type { FileProblem } from './file-problem.js';
import { routeTargets } from './route-targets.js';
import type { ModelPrice, RouteProfileConfig } from './types.js';

export interface UnpricedTarget {
  routeId: string;
  provider: string;
  model: string;
  /** JSON pointer of the target's model in routes.yaml. */
  pointer: string;
}

/** Route targets whose provider declares no price for their model (unknown providers are cross-check's business). */
export function unpricedTargets(
  routes: readonly RouteProfileConfig[],
  providers: readonly { id: string; prices?: Readonly<Record<string, ModelPrice>> }[],
): UnpricedTarget[] {
  const prices = new Map(providers.map((provider) => [provider.id, provider.prices ?? {}]));
  const unpriced: UnpricedTarget[] = [];
  routes.forEach((route, r) =>
    routeTargets(route).forEach(({ target, pointer }) => {
      const known = prices.get(target.provider);
      if (!known || Object.hasOwn(known, target.model)) return;
      unpriced.push({ routeId: route.id, provider: target.provider, model: target.model, pointer: `/routes/${r}${pointer}/model` });
    }),
  );
  return unpriced;
}

/**
 * Warnings, not problems: a routed upstream model without a price in providers.yaml still serves
 * traffic, but its cost is recorded as unknown and managed access cannot meter it (so the spend-metering
 * readiness check keeps managed access off while a route of a resellable plan names one).
 */
export function priceWarnings(files: Partial<RawConfigFiles>): FileProblem[] {
  const { routes, providers } = files;
  if (!routes || !providers) return [];
  const unpriced = unpricedTargets(routes.routes, providers.providers).map(({ routeId, provider, model, pointer }) => ({
    file: 'routes' as const,
    pointer,
    target: 'value' as const,
    message: `route profile "${routeId}" routes to ${provider}/${model}, which has no price in providers.yaml (providers[].prices): its cost is recorded as unknown and managed access cannot meter it`,
  }));
  return [...unpriced, ...tokenTypePriceWarnings(routes.routes, providers.providers)];
}

/**
 * The token types each wire format reports apart from plain input and output: cache reads from every
 * provider, cache writes from Anthropic. Reasoning is billed as output by all three, so it needs no price.
 */
const REPORTED_TYPES: Readonly<Record<string, readonly (keyof ModelPrice)[]>> = {
  openai: ['cachedInput'],
  gemini: ['cachedInput'],
  anthropic: ['cachedInput', 'cacheWrite'],
};

const FALLBACK: Partial<Record<keyof ModelPrice, string>> = {
  cachedInput: 'cache reads are priced at the full input price',
  cacheWrite: 'cache writes are priced at the input price, not the write premium',
};

/** A routed, priced model without a price for a token type its provider reports (once per provider/model). */
export function tokenTypePriceWarnings(
  routes: readonly RouteProfileConfig[],
  providers: readonly { id: string; format?: string; prices?: Readonly<Record<string, ModelPrice>> }[],
): FileProblem[] {
  const byId = new Map(providers.map((provider, index) => [provider.id, { provider, index }]));
  const seen = new Set<string>();
  const warnings: FileProblem[] = [];
  for (const route of routes) {
    for (const { target } of routeTargets(route)) {
      const entry = byId.get(target.provider);
      const price = entry?.provider.prices?.[target.model];
      if (!entry || !price || !Object.hasOwn(entry.provider.prices!, target.model) || seen.has(`${target.provider}/${target.model}`)) continue;
      seen.add(`${target.provider}/${target.model}`);
      for (const type of REPORTED_TYPES[entry.provider.format ?? 'openai'] ?? []) {
        if (price[type] !== undefined) continue;
        warnings.push({
          file: 'providers',
          pointer: `/providers/${entry.index}/prices/${target.model.replaceAll('~', '~0').replaceAll('/', '~1')}`,
          target: 'value',
          message: `${target.provider}/${target.model} has no ${type} price but ${target.provider} reports those tokens: ${FALLBACK[type]}`,
        });
      }
    }
  }
  return warnings;
}
