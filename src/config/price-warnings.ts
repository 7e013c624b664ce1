import type { RawConfigFiles } from './config-files.js';
import type { FileProblem } from './cross-check.js';
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
  return unpricedTargets(routes.routes, providers.providers).map(({ routeId, provider, model, pointer }) => ({
    file: 'routes',
    pointer,
    target: 'value',
    message: `route profile "${routeId}" routes to ${provider}/${model}, which has no price in providers.yaml (providers[].prices): its cost is recorded as unknown and managed access cannot meter it`,
  }));
}
