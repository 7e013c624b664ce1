/**
 * Measured routing's state shared by every process that routes (routing/route-measurements.ts: the
 * figures and the hysteresis leaders): what one process contributes since its last exchange, how the
 * shared side folds a contribution in, and how a process adopts the shared state. The cluster primary
 * (cluster/share-measurements.ts) and Redis (redis/share-measurements-redis.ts) fold with the same code,
 * so both keep the same state from the same contributions. Everything read here crossed a process
 * boundary (IPC, Redis) and is checked before use; contributions are bounded.
 */
import { RouteMeasurements, type LeaderChange, type MeasuredFigures, type MeasuredLeader, type MeasurementSample } from '../routing/route-measurements.js';

/** Samples (and leader changes) waiting at most in one process; past that the oldest are dropped. */
export const MAX_PENDING = 2000;

export interface MeasurementsContribution {
  samples: MeasurementSample[];
  leaders: LeaderChange[];
}

export interface SharedMeasurements {
  figures: MeasuredFigures[];
  leaders: MeasuredLeader[];
}

/** Contributions sent and not yet answered, at most (a lost message must not grow the list forever). */
const MAX_IN_FLIGHT = 8;

/**
 * What this process measured and decided that the shared state it last adopted does not hold yet:
 * contributions sent and not yet answered (oldest first), then what waits for the next exchange.
 */
export class PendingContribution {
  #samples: MeasurementSample[] = [];
  #leaders: LeaderChange[] = [];
  readonly #inFlight: MeasurementsContribution[] = [];

  constructor(measurements: RouteMeasurements) {
    measurements.onRecord((sample) => {
      if (this.#samples.push(sample) > MAX_PENDING) this.#samples.shift();
    });
    measurements.onLeaderChange((change) => {
      if (this.#leaders.push(change) > MAX_PENDING) this.#leaders.shift();
    });
  }

  /** Everything waiting, to be sent now: it is in flight until settled or given back. */
  take(): MeasurementsContribution {
    const taken = { samples: this.#samples, leaders: this.#leaders };
    this.#samples = [];
    this.#leaders = [];
    if (this.#inFlight.push(taken) > MAX_IN_FLIGHT) this.#inFlight.shift();
    return taken;
  }

  /** The oldest contribution in flight is in the shared state now (its answer came; answers come in order). */
  settle(): void {
    this.#inFlight.shift();
  }

  /** A contribution that could not be delivered, to go with the next one (older first). */
  giveBack(contribution: MeasurementsContribution): void {
    const at = this.#inFlight.indexOf(contribution);
    if (at !== -1) this.#inFlight.splice(at, 1);
    this.#samples = bounded([...contribution.samples, ...this.#samples]);
    this.#leaders = bounded([...contribution.leaders, ...this.#leaders]);
  }

  /** What the shared state does not hold yet, oldest first. */
  unsettled(): MeasurementsContribution {
    const all = [...this.#inFlight, { samples: this.#samples, leaders: this.#leaders }];
    return { samples: all.flatMap((entry) => entry.samples), leaders: all.flatMap((entry) => entry.leaders) };
  }
}

/** Folds one process's contribution into the shared state: its samples, then its changes of leader. */
export function foldContribution(shared: RouteMeasurements, contribution: { samples?: unknown; leaders?: unknown }): void {
  if (Array.isArray(contribution.samples)) for (const sample of contribution.samples.slice(0, MAX_PENDING)) if (isSample(sample)) shared.record(sample);
  if (Array.isArray(contribution.leaders)) for (const change of contribution.leaders.slice(0, MAX_PENDING)) if (isLeaderChange(change)) shared.applyLeaderChange(change);
}

export function sharedState(shared: RouteMeasurements): SharedMeasurements {
  return { figures: shared.snapshot(), leaders: shared.leaders() };
}

/**
 * Adopts the shared state in place of this process's own, then applies again what this process recorded
 * and decided that the state does not hold yet (`unsent`: in flight or waiting), since without it a
 * decision made during a round trip would be undone until a later answer. Returns false
 * (adopting nothing) for anything malformed.
 */
export function adoptShared(measurements: RouteMeasurements, state: { figures?: unknown; leaders?: unknown }, unsent?: PendingContribution): boolean {
  const { figures, leaders } = state;
  if (!Array.isArray(figures) || !figures.every(isFigures) || !Array.isArray(leaders) || !leaders.every(isLeader)) return false;
  measurements.replace(figures, leaders);
  const pending = unsent?.unsettled();
  for (const sample of pending?.samples ?? []) measurements.absorb(sample);
  for (const change of pending?.leaders ?? []) measurements.applyLeaderChange(change);
  return true;
}

function bounded<T>(entries: T[]): T[] {
  return entries.length > MAX_PENDING ? entries.slice(-MAX_PENDING) : entries;
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null;
const isOptionalNumber = (value: unknown) => value === undefined || typeof value === 'number';
const isNumberOrNull = (value: unknown) => value === null || typeof value === 'number';

function isSample(value: unknown): value is MeasurementSample {
  return (
    isObject(value) &&
    typeof value.provider === 'string' &&
    typeof value.model === 'string' &&
    typeof value.ok === 'boolean' &&
    isOptionalNumber(value.ttfbMs) &&
    isOptionalNumber(value.tokensPerSecond)
  );
}

function isLeaderChange(value: unknown): value is LeaderChange {
  return isObject(value) && typeof value.ranking === 'string' && (value.from === null || typeof value.from === 'string') && typeof value.to === 'string';
}

function isLeader(value: unknown): value is MeasuredLeader {
  return isObject(value) && typeof value.ranking === 'string' && typeof value.leader === 'string';
}

function isFigures(value: unknown): value is MeasuredFigures {
  return (
    isObject(value) &&
    typeof value.provider === 'string' &&
    typeof value.model === 'string' &&
    isNumberOrNull(value.ttfbMs) &&
    isNumberOrNull(value.tokensPerSecond) &&
    typeof value.errorRate === 'number' &&
    typeof value.samples === 'number' &&
    typeof value.updatedAt === 'number'
  );
}
