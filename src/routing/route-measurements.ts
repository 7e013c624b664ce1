/**
 * Live figures per provider and model, from the requests the router served: a decayed estimate of time
 * to first byte, output tokens per second and error rate. What `order: measured`, `provider.sort` and
 * `:nitro` rank by (measured-order.ts) and what /status shows. Each sample moves an estimate by at least
 * MIN_WEIGHT, more after a quiet spell (half-life HALF_LIFE_MS), so the figures follow a change within a
 * few requests and an old figure counts for little once traffic returns. Memory is bounded: at most
 * MAX_ENTRIES pairs, the least recently measured dropped first. In cluster mode every worker's samples
 * meet in the primary, whose figures the workers adopt (stores/cluster/share-measurements.ts); with Redis,
 * every instance's meet there (stores/redis/share-measurements-redis.ts).
 *
 * It also keeps measured ranking's hysteresis (measured-order.ts): which candidate led last for each
 * route, figure and candidate set. That is shared the same way, so every worker and instance ranks by
 * the same figures and the same leaders: a change of leader decided here is passed on as a change from
 * the old leader to the new one, and the shared state takes it only if its leader was still the old one
 * (the first to turn wins; the others adopt its choice with the next exchange).
 *
 * The circuit breaker's window (provider-health.ts) stays what it is: consecutive failures per provider,
 * deciding whether to send at all. These figures are per model and decide only the order.
 */
import type { Clock } from '../core/clock.js';

export const HALF_LIFE_MS = 60_000;
/**
 * Figures older than this (five half-lives) no longer stand for the provider: measured ranking probes it
 * again (measured-order.ts), so a provider ranked last once is not kept there on stale evidence forever.
 */
export const STALE_AFTER_MS = 5 * HALF_LIFE_MS;
const MIN_WEIGHT = 0.25;
const MAX_ENTRIES = 1024;
/** Leaders kept (route, figure and candidate set); the least recently changed dropped first. */
const MAX_LEADERS = 1024;

/** One upstream attempt's outcome. A failure carries no timing. */
export interface MeasurementSample {
  provider: string;
  model: string;
  ok: boolean;
  /** Time to the first byte the router could forward (a stream's commit point; a whole non-stream answer). */
  ttfbMs?: number;
  /** Output tokens per second of the answer, when the upstream reported its tokens. */
  tokensPerSecond?: number;
}

export interface MeasuredFigures {
  provider: string;
  model: string;
  /** null until a successful attempt was measured. */
  ttfbMs: number | null;
  tokensPerSecond: number | null;
  /** Share of recent attempts that failed for the provider's own reasons (5xx, timeouts, connection errors). */
  errorRate: number;
  /** Samples taken in all (not decayed). */
  samples: number;
  /** When the last sample arrived (router clock, ms). */
  updatedAt: number;
}

/** Which candidate leads a ranking (measured-order.ts names both). */
export interface MeasuredLeader {
  ranking: string;
  leader: string;
}

/** A change of leader decided by one ranking: from the leader it saw (none: it had none) to another. */
export interface LeaderChange {
  ranking: string;
  from: string | null;
  to: string;
}

export class RouteMeasurements {
  readonly #figures = new Map<string, MeasuredFigures>();
  readonly #leaders = new Map<string, string>();
  readonly #listeners: Array<(sample: MeasurementSample) => void> = [];
  readonly #leaderListeners: Array<(change: LeaderChange) => void> = [];

  constructor(private readonly clock: Clock) {}

  record(sample: MeasurementSample): void {
    this.#apply(sample);
    for (const listener of this.#listeners) listener(sample);
  }

  /** Applies a sample without passing it on: one recorded here and already on its way to the shared state. */
  absorb(sample: MeasurementSample): void {
    this.#apply(sample);
  }

  /** Called for every sample recorded here (the cluster worker forwards them to the primary). */
  onRecord(listener: (sample: MeasurementSample) => void): void {
    this.#listeners.push(listener);
  }

  figures(provider: string, model: string): MeasuredFigures | undefined {
    return this.#figures.get(keyOf(provider, model));
  }

  /** The figures are older than STALE_AFTER_MS on this instance's clock. */
  isStale(figures: MeasuredFigures): boolean {
    return this.clock.now() - figures.updatedAt > STALE_AFTER_MS;
  }

  /** This instance's clock (the one the figures are dated by). */
  now(): number {
    return this.clock.now();
  }

  snapshot(): MeasuredFigures[] {
    return [...this.#figures.values()].map((figures) => ({ ...figures })).sort((a, b) => a.provider.localeCompare(b.provider) || a.model.localeCompare(b.model));
  }

  /** Adopts figures and leaders decided elsewhere (the cluster primary's, Redis's), in place of this instance's own. */
  replace(figures: readonly MeasuredFigures[], leaders: readonly MeasuredLeader[]): void {
    this.#figures.clear();
    for (const entry of figures.slice(0, MAX_ENTRIES)) this.#figures.set(keyOf(entry.provider, entry.model), { ...entry });
    this.#leaders.clear();
    for (const entry of leaders.slice(-MAX_LEADERS)) this.#leaders.set(entry.ranking, entry.leader);
  }

  leader(ranking: string): string | undefined {
    return this.#leaders.get(ranking);
  }

  /** A ranking's leader as this instance decided it; a change is told to the listeners (to be shared). */
  lead(ranking: string, leader: string): void {
    const from = this.#leaders.get(ranking);
    if (from === leader) return;
    this.#setLeader(ranking, leader);
    for (const listener of this.#leaderListeners) listener({ ranking, from: from ?? null, to: leader });
  }

  /** Called for every change of leader decided here (the cluster worker or Redis sharing forwards them). */
  onLeaderChange(listener: (change: LeaderChange) => void): void {
    this.#leaderListeners.push(listener);
  }

  /** Takes a change decided elsewhere only if this state's leader is still the one it changed from. */
  applyLeaderChange(change: LeaderChange): void {
    if ((this.#leaders.get(change.ranking) ?? null) === change.from) this.#setLeader(change.ranking, change.to);
  }

  leaders(): MeasuredLeader[] {
    return [...this.#leaders].map(([ranking, leader]) => ({ ranking, leader }));
  }

  #setLeader(ranking: string, leader: string): void {
    // Re-inserted so the map's first key is always the least recently changed.
    this.#leaders.delete(ranking);
    this.#leaders.set(ranking, leader);
    if (this.#leaders.size > MAX_LEADERS) this.#leaders.delete(this.#leaders.keys().next().value!);
  }

  #apply(sample: MeasurementSample): void {
    const key = keyOf(sample.provider, sample.model);
    const now = this.clock.now();
    const previous = this.#figures.get(key);
    const weight = previous ? Math.max(MIN_WEIGHT, 1 - 2 ** (-(now - previous.updatedAt) / HALF_LIFE_MS)) : 1;
    const blend = (old: number | null, value: number | undefined): number | null =>
      value === undefined || !Number.isFinite(value) || value < 0 ? old : old === null ? value : old + weight * (value - old);
    const next: MeasuredFigures = {
      provider: sample.provider,
      model: sample.model,
      ttfbMs: blend(previous?.ttfbMs ?? null, sample.ok ? sample.ttfbMs : undefined),
      tokensPerSecond: blend(previous?.tokensPerSecond ?? null, sample.ok ? sample.tokensPerSecond : undefined),
      errorRate: blend(previous?.errorRate ?? null, sample.ok ? 0 : 1) ?? 0,
      samples: (previous?.samples ?? 0) + 1,
      updatedAt: now,
    };
    // Re-inserted so the map's first key is always the least recently measured.
    this.#figures.delete(key);
    this.#figures.set(key, next);
    if (this.#figures.size > MAX_ENTRIES) this.#figures.delete(this.#figures.keys().next().value!);
  }
}

function keyOf(provider: string, model: string): string {
  return `${provider}\u0000${model}`;
}
