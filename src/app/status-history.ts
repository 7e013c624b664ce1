/**
 * The last hour of provider health, minute by minute, kept in memory (bounded: 60 samples per provider)
 * for the status page. A sample is the circuit state and the change in recent requests since the last
 * one, read from ProviderHealth's snapshot; nothing about accounts.
 */
import type { Clock } from '../core/clock.js';
import type { CircuitState, ProviderHealth } from '../routing/provider-health.js';

export const HISTORY_MINUTES = 60;

export interface HealthSample {
  /** Start of the minute, ms since the epoch. */
  minute: number;
  state: CircuitState;
  successRate: number | null;
}

export class StatusHistory {
  readonly #samples = new Map<string, HealthSample[]>();
  #timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly health: ProviderHealth,
    private readonly providerIds: readonly string[],
    private readonly clock: Clock,
  ) {}

  /** Sample once a minute; the timer never keeps the process alive. */
  start(): void {
    this.sample();
    this.#timer ??= setInterval(() => this.sample(), 60_000);
    this.#timer.unref();
  }

  stop(): void {
    clearInterval(this.#timer);
    this.#timer = undefined;
  }

  /** Record the current minute (replacing a sample already taken in it). */
  sample(): void {
    const minute = Math.floor(this.clock.now() / 60_000) * 60_000;
    for (const snapshot of this.health.snapshot(this.providerIds)) {
      const list = this.#samples.get(snapshot.provider) ?? [];
      const sample = { minute, state: snapshot.state, successRate: snapshot.recentSuccessRate };
      if (list.at(-1)?.minute === minute) list[list.length - 1] = sample;
      else list.push(sample);
      while (list.length > 0 && list[0]!.minute <= minute - HISTORY_MINUTES * 60_000) list.shift();
      this.#samples.set(snapshot.provider, list);
    }
  }

  /** The last hour for one provider, oldest first (minutes without a sample are absent). */
  history(providerId: string): readonly HealthSample[] {
    return this.#samples.get(providerId) ?? [];
  }
}
