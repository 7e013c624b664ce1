/**
 * The router's metrics, in one registry per runtime. Labels only ever take values from closed sets
 * (see label-values.ts), so no account id, key, prompt or provider text can reach a label, and the
 * number of series stays bounded whatever clients send.
 */
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { CircuitState } from '../routing/provider-health.js';

/** Seconds; fine at the low end, where a router adds milliseconds. */
const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120];
const CIRCUIT_VALUE: Readonly<Record<CircuitState, number>> = { closed: 0, half_open: 1, open: 2 };

export interface MetricsSources {
  providers: readonly string[];
  circuitState(provider: string): CircuitState;
  /** The ledger queue; null when the ledger is off. */
  ledgerQueue(): { queued: number; behind: boolean } | null;
}

export class RouterMetrics {
  readonly registry = new Registry();
  readonly requests: Counter<'endpoint' | 'route' | 'status_class' | 'code'>;
  readonly upstreamAttempts: Counter<'provider' | 'outcome'>;
  readonly failovers: Counter<'route'>;
  readonly limitRejections: Counter<'limit'>;
  readonly requestDuration: Histogram<'endpoint' | 'route'>;
  readonly timeToFirstByte: Histogram<'endpoint' | 'route'>;
  readonly ledgerFlushDuration: Histogram<'result'>;
  readonly ledgerRecordsWritten: Counter;
  readonly ledgerRecordsDropped: Counter;
  readonly storeDuration: Histogram<'store' | 'operation'>;
  #sources: MetricsSources | undefined;
  #render: (() => Promise<string>) | undefined;

  constructor() {
    const registers = [this.registry];
    collectDefaultMetrics({ register: this.registry, prefix: 'router_' });
    this.requests = new Counter({
      name: 'router_requests_total',
      help: 'Finished /v1 requests by endpoint, route profile, status class and error code (none on success).',
      labelNames: ['endpoint', 'route', 'status_class', 'code'],
      registers,
    });
    this.upstreamAttempts = new Counter({
      name: 'router_upstream_attempts_total',
      help: 'Upstream attempts by provider and outcome (ok, http_<status>, a timeout or connection reason, circuit_open, credential_rejected, credential_throttled, credential_exhausted).',
      labelNames: ['provider', 'outcome'],
      registers,
    });
    this.failovers = new Counter({ name: 'router_failovers_total', help: 'Attempts after the first, by route profile.', labelNames: ['route'], registers });
    this.limitRejections = new Counter({
      name: 'router_limit_rejections_total',
      help: 'Requests refused by a limit: monthly_quota, rate_limit, spend_cap, key_quota, key_rate_limit (a key\'s own limits).',
      labelNames: ['limit'],
      registers,
    });
    this.requestDuration = new Histogram({
      name: 'router_request_duration_seconds',
      help: 'Time from a /v1 request arriving to its response closing.',
      labelNames: ['endpoint', 'route'],
      buckets: LATENCY_BUCKETS,
      registers,
    });
    this.timeToFirstByte = new Histogram({
      name: 'router_time_to_first_byte_seconds',
      help: 'Time from a served model request arriving to the first byte of its answer (stream headers or the JSON body).',
      labelNames: ['endpoint', 'route'],
      buckets: LATENCY_BUCKETS,
      registers,
    });
    this.ledgerFlushDuration = new Histogram({
      name: 'router_ledger_flush_duration_seconds',
      help: 'Time to write one batch of usage records, by result (ok, failed).',
      labelNames: ['result'],
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 5],
      registers,
    });
    this.ledgerRecordsWritten = new Counter({ name: 'router_ledger_records_written_total', help: 'Usage records written.', registers });
    this.ledgerRecordsDropped = new Counter({
      name: 'router_ledger_records_dropped_total',
      help: 'Usage records of BYOK requests dropped because the ledger queue was at its bound.',
      registers,
    });
    this.storeDuration = new Histogram({
      name: 'router_store_operation_duration_seconds',
      help: 'Latency of store operations by store (main, ledger) and operation.',
      labelNames: ['store', 'operation'],
      buckets: [0.0001, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1, 5],
      registers,
    });
    const sources = () => this.#sources;
    new Gauge({
      name: 'router_circuit_state',
      help: 'Circuit breaker state per provider: 0 closed, 1 half open, 2 open (in cluster mode, the worst of the workers\' circuits).',
      labelNames: ['provider'],
      aggregator: 'max',
      registers,
      collect() {
        const watched = sources();
        if (!watched) return;
        for (const provider of watched.providers) this.set({ provider }, CIRCUIT_VALUE[watched.circuitState(provider)]);
      },
    });
    new Gauge({
      name: 'router_ledger_queue_depth',
      help: 'Usage records waiting to be written.',
      registers,
      collect() {
        this.set(sources()?.ledgerQueue()?.queued ?? 0);
      },
    });
    new Gauge({
      name: 'router_ledger_behind',
      help: '1 while the usage ledger queue is at its bound (records of BYOK requests dropped, managed access refused).',
      aggregator: 'max',
      registers,
      collect() {
        this.set(sources()?.ledgerQueue()?.behind ? 1 : 0);
      },
    });
  }

  /** Where the gauges read their values at scrape time (set once the runtime is built). */
  watch(sources: MetricsSources): void {
    this.#sources = sources;
  }

  /** What the usage ledger's writer reports after each batch and each dropped record. */
  ledgerHooks(): { onFlush(outcome: { ok: boolean; records: number; seconds: number }): void; onDrop(count: number): void } {
    return {
      onFlush: ({ ok, records, seconds }) => {
        this.ledgerFlushDuration.observe({ result: ok ? 'ok' : 'failed' }, seconds);
        if (ok) this.ledgerRecordsWritten.inc(records);
      },
      onDrop: (count) => this.ledgerRecordsDropped.inc(count),
    };
  }

  /** In a cluster worker: GET /metrics shows every worker's sum, which the primary collects. */
  renderWith(render: () => Promise<string>): void {
    this.#render = render;
  }

  render(): Promise<string> {
    return this.#render ? this.#render() : this.registry.metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }
}
