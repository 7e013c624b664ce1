/**
 * The order in which a route profile's targets are tried: tier by tier; inside a tier a weighted
 * random permutation (so weights spread load while every target stays a fallback).
 */
import type { RouteProfileConfig, RouteTarget } from '../config/types.js';

export function candidateOrder(route: RouteProfileConfig, random: () => number): RouteTarget[] {
  const ordered: RouteTarget[] = [];
  for (const tier of route.tiers) {
    // A tier of one target (as most are) has one order: no copy of it, and no random number drawn.
    if (tier.length === 1) {
      ordered.push(tier[0]!);
      continue;
    }
    const pool = [...tier];
    while (pool.length > 0) {
      const total = pool.reduce((sum, target) => sum + target.weight, 0);
      let pick = random() * total;
      let index = 0;
      while (index < pool.length - 1 && pick >= pool[index]!.weight) {
        pick -= pool[index]!.weight;
        index++;
      }
      ordered.push(pool.splice(index, 1)[0]!);
    }
  }
  return ordered;
}
