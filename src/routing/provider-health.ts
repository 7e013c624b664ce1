/**
 * Per-provider circuit breakers and recent statistics. A provider that fails `failureThreshold` times
 * in a row is skipped for `cooldownMs`; after that one probe request is let through (half-open): its
 * success closes the circuit, its failure opens it again. State is per instance and in memory: it is a
 * routing hint, not an account fact.
 */
import type { CircuitBreakerConfig } from '../config/types.js';
import type { Clock } from '../core/clock.js';

export type CircuitState = 'closed' | 'open' | 'half_open';

const WINDOW = 100;

interface ProviderRecord {
  consecutiveFailures: number;
  openedAt: number | null;
  probeInFlight: boolean;
  outcomes: boolean[];
  latenciesMs: number[];
}

export interface ProviderHealthSnapshot {
  provider: string;
  state: CircuitState;
  recentSuccessRate: number | null;
  p50LatencyMs: number | null;
  recentRequests: number;
}

/** A circuit opened (or re-opened after a failed probe), or closed again. */
export interface CircuitChange {
  state: 'open' | 'closed';
  consecutiveFailures: number;
}

export class ProviderHealth {
  readonly #records = new Map<string, ProviderRecord>();

  constructor(
    private readonly config: CircuitBreakerConfig,
    private readonly clock: Clock,
    private readonly onChange: (provider: string, change: CircuitChange) => void = () => undefined,
  ) {}

  state(provider: string): CircuitState {
    const record = this.#records.get(provider);
    if (!record || record.openedAt === null) return 'closed';
    return this.clock.now() - record.openedAt >= this.config.cooldownMs ? 'half_open' : 'open';
  }

  /** May a request go to this provider now? Claims the single half-open probe slot when it does. */
  tryAcquire(provider: string): boolean {
    const state = this.state(provider);
    if (state === 'closed') return true;
    if (state === 'open') return false;
    const record = this.#record(provider);
    if (record.probeInFlight) return false;
    record.probeInFlight = true;
    return true;
  }

  recordSuccess(provider: string, latencyMs: number): void {
    const record = this.#record(provider);
    if (record.openedAt !== null) this.onChange(provider, { state: 'closed', consecutiveFailures: 0 });
    record.consecutiveFailures = 0;
    record.openedAt = null;
    record.probeInFlight = false;
    push(record.outcomes, true);
    push(record.latenciesMs, latencyMs);
  }

  recordFailure(provider: string): void {
    const record = this.#record(provider);
    record.consecutiveFailures++;
    record.probeInFlight = false;
    push(record.outcomes, false);
    if (record.openedAt !== null || record.consecutiveFailures >= this.config.failureThreshold) {
      const wasOpen = record.openedAt !== null && this.clock.now() - record.openedAt < this.config.cooldownMs;
      record.openedAt = this.clock.now();
      if (!wasOpen) this.onChange(provider, { state: 'open', consecutiveFailures: record.consecutiveFailures });
    }
  }

  /** Release a probe slot without a verdict (the client went away). */
  release(provider: string): void {
    const record = this.#records.get(provider);
    if (record) record.probeInFlight = false;
  }

  snapshot(providers: readonly string[]): ProviderHealthSnapshot[] {
    return providers.map((provider) => {
      const record = this.#records.get(provider);
      const outcomes = record?.outcomes ?? [];
      const latencies = [...(record?.latenciesMs ?? [])].sort((a, b) => a - b);
      return {
        provider,
        state: this.state(provider),
        recentSuccessRate: outcomes.length ? outcomes.filter(Boolean).length / outcomes.length : null,
        p50LatencyMs: latencies.length ? latencies[Math.floor((latencies.length - 1) / 2)]! : null,
        recentRequests: outcomes.length,
      };
    });
  }

  #record(provider: string): ProviderRecord {
    let record = this.#records.get(provider);
    if (!record) {
      record = { consecutiveFailures: 0, openedAt: null, probeInFlight: false, outcomes: [], latenciesMs: [] };
      this.#records.set(provider, record);
    }
    return record;
  }
}

function push<T>(window: T[], value: T): void {
  window.push(value);
  if (window.length > WINDOW) window.shift();
}
