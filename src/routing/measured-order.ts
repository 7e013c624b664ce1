/**
 * Ranks a route's candidates by their measured figures (route-measurements.ts) for `order: measured`,
 * `provider.sort: latency | throughput` and `:nitro`. Hysteresis keeps traffic from flapping between
 * two close candidates: the candidate that led last time for the same route, figure and candidate set
 * stays first until another is better by more than MARGIN. The leaders are kept with the figures
 * (route-measurements.ts), so they are shared with them across workers and instances. A candidate with no figures yet ranks first,
 * so every candidate gets measured once. Exploration: a candidate whose figures went stale (STALE_AFTER_MS,
 * no traffic reached it for five half-lives because it ranked behind) ranks first for one request per
 * stale spell on this instance, which re-measures it; that probe is not taken as the new leader, so
 * hysteresis still holds the last one. Per request this is a sort of a handful of targets and two
 * bounded-cache look-ups.
 */
import type { MeasuredSort, RouteProfileConfig, RouteTarget } from '../config/types.js';
import { createBoundedCache } from '../core/bounded-cache.js';
import { STALE_AFTER_MS, type MeasuredFigures, type RouteMeasurements } from './route-measurements.js';

/** A challenger must be this much better (20%) than the last leader to take its place. */
export const MARGIN = 0.2;
/** An error rate above this counts as this (so a failing candidate's score never reaches zero or below). */
const MAX_ERROR_RATE = 0.95;

export class MeasuredOrder {
  /** When each stale candidate was last sent a probe: one per stale spell, however many requests race. */
  readonly #probedAt = createBoundedCache<string, number>({ entries: 4096 });

  constructor(private readonly measurements: RouteMeasurements) {}

  rank(route: RouteProfileConfig, targets: readonly RouteTarget[]): RouteTarget[] {
    const sort = route.sort ?? 'latency';
    const scored = targets.map((target, index) => ({ target, index, score: scoreOf(this.measurements.figures(target.provider, target.model), sort) }));
    scored.sort((a, b) => b.score - a.score || a.index - b.index);
    // The candidate set, not the order it came in: a tier's candidates arrive shuffled (failover.ts
    // spreads load within a tier), and a key that followed the shuffle kept a leader per order, so a
    // request in one order could bring back the leader another order had left.
    const ranking = `${route.id}\u0000${sort}\u0000${targets.map(targetKey).sort().join('\u0001')}`;
    const leader = this.measurements.leader(ranking);
    const held = leader === undefined ? -1 : scored.findIndex((entry) => targetKey(entry.target) === leader);
    if (held > 0 && scored[0]!.score <= scored[held]!.score * (1 + MARGIN)) scored.unshift(...scored.splice(held, 1));
    this.measurements.lead(ranking, targetKey(scored[0]!.target));
    const probe = this.#staleToProbe(scored.slice(1).map((entry) => entry.target));
    if (probe) return [probe, ...scored.map((entry) => entry.target).filter((target) => target !== probe)];
    return scored.map((entry) => entry.target);
  }

  /** The first candidate behind the leader whose figures went stale and that was not probed this spell. */
  #staleToProbe(behind: readonly RouteTarget[]): RouteTarget | undefined {
    const now = this.measurements.now();
    for (const target of behind) {
      const figures = this.measurements.figures(target.provider, target.model);
      if (!figures || !this.measurements.isStale(figures)) continue;
      const probed = this.#probedAt.get(targetKey(target));
      if (probed !== undefined && probed > figures.updatedAt && now - probed <= STALE_AFTER_MS) continue;
      this.#probedAt.set(targetKey(target), now);
      return target;
    }
    return undefined;
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
