/**
 * Ranks a route's candidates by their measured figures (route-measurements.ts) for `order: measured`,
 * `provider.sort: latency | throughput` and `:nitro`. Hysteresis keeps traffic from flapping between
 * two close candidates: the candidate that led last time for the same route, figure and candidate set
 * stays first until another is better by more than MARGIN. A candidate with no figures yet ranks first,
 * so every candidate gets measured once. Per request this is a sort of a handful of targets and one
 * bounded-cache look-up.
 */
import type { MeasuredSort, RouteProfileConfig, RouteTarget } from '../config/types.js';
import { createBoundedCache } from '../core/bounded-cache.js';
import type { MeasuredFigures, RouteMeasurements } from './route-measurements.js';

/** A challenger must be this much better (20%) than the last leader to take its place. */
export const MARGIN = 0.2;
/** An error rate above this counts as this (so a failing candidate's score never reaches zero or below). */
const MAX_ERROR_RATE = 0.95;

export class MeasuredOrder {
  readonly #leaders = createBoundedCache<string, string>({ entries: 4096 });

  constructor(private readonly measurements: RouteMeasurements) {}

  rank(route: RouteProfileConfig, targets: readonly RouteTarget[]): RouteTarget[] {
    const sort = route.sort ?? 'latency';
    const scored = targets.map((target, index) => ({ target, index, score: scoreOf(this.measurements.figures(target.provider, target.model), sort) }));
    scored.sort((a, b) => b.score - a.score || a.index - b.index);
    const key = `${route.id}\u0000${sort}\u0000${targets.map(targetKey).join('\u0001')}`;
    const leader = this.#leaders.get(key);
    const held = leader === undefined ? -1 : scored.findIndex((entry) => targetKey(entry.target) === leader);
    if (held > 0 && scored[0]!.score <= scored[held]!.score * (1 + MARGIN)) scored.unshift(...scored.splice(held, 1));
    this.#leaders.set(key, targetKey(scored[0]!.target));
    return scored.map((entry) => entry.target);
  }
}

/** Higher is better: inverse latency or throughput, discounted by the error rate; never measured first, never served last. */
export function scoreOf(figures: MeasuredFigures | undefined, sort: MeasuredSort): number {
  if (!figures) return Number.POSITIVE_INFINITY;
  const value = sort === 'latency' ? figures.ttfbMs : figures.tokensPerSecond;
  // Measured, but never this figure: only failures (or no reported tokens) so far.
  if (value === null) return 0;
  const health = 1 - Math.min(figures.errorRate, MAX_ERROR_RATE);
  return sort === 'latency' ? health / Math.max(value, 1) : value * health;
}

function targetKey(target: RouteTarget): string {
  return `${target.provider}/${target.model}`;
}
