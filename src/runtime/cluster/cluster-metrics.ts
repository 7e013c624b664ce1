/**
 * GET /metrics in cluster mode: whichever worker the scrape reaches asks the primary, which collects
 * every live worker's registry as JSON and sums them with prom-client's AggregatorRegistry (counters and
 * histograms add up; gauges say how, see router-metrics.ts), so one scrape sees the whole cluster and a
 * counter never jumps between workers' values. A worker that does not answer within the bound is left
 * out of that scrape rather than holding it.
 */
import type { Worker } from 'node:cluster';
import { AggregatorRegistry, type MetricObjectWithValues, type MetricValue } from 'prom-client';
import type { RouterMetrics } from '../../metrics/router-metrics.js';
import { isClusterMessage, type ClusterChannel, type ClusterMessage, type PrimaryHandler } from '../../stores/cluster/cluster-channel.js';

const COLLECT_TIMEOUT_MS = 2000;

type Snapshot = Array<MetricObjectWithValues<MetricValue<string>>>;

/** The primary's side: answers `metrics` by collecting `metrics-snapshot` from every live worker. */
export function serveClusterMetrics(workers: () => ReadonlyArray<Worker | undefined>): PrimaryHandler {
  const collections = new Map<number, { snapshots: Snapshot[]; waiting: number; done(): void }>();
  let nextId = 0;
  return (message, reply) => {
    if (isClusterMessage(message, 'metrics-snapshot-answer')) {
      const collection = collections.get(message.id);
      if (collection && Array.isArray(message.snapshot)) collection.snapshots.push(message.snapshot as Snapshot);
      if (collection && --collection.waiting === 0) collection.done();
      return true;
    }
    if (!isClusterMessage(message, 'metrics')) return false;
    const live = workers().filter((worker): worker is Worker => worker !== undefined && worker.isConnected());
    const id = nextId++;
    const snapshots: Snapshot[] = [];
    const done = () => {
      if (!collections.delete(id)) return;
      clearTimeout(timer);
      // aggregate() throws on a metric whose aggregator it does not know: answer null, the worker shows its own.
      Promise.resolve()
        .then(() => AggregatorRegistry.aggregate(snapshots).metrics())
        .then(
          (text) => reply({ router: 'metrics-answer', id: message.id, text }),
          () => reply({ router: 'metrics-answer', id: message.id, text: null }),
        );
    };
    const timer = setTimeout(done, COLLECT_TIMEOUT_MS);
    collections.set(id, { snapshots, waiting: live.length, done });
    for (const worker of live) worker.send({ router: 'metrics-snapshot', id } satisfies ClusterMessage, undefined, () => undefined);
    if (live.length === 0) done();
    return true;
  };
}

/**
 * The worker's side: answers the primary's `metrics-snapshot` with this worker's registry, and renders
 * GET /metrics from the primary's sum (falling back to this worker's own numbers if the primary cannot).
 */
export function joinClusterMetrics(metrics: RouterMetrics, channel: ClusterChannel): void {
  const pending = new Map<number, (text: string | null) => void>();
  let nextId = 0;
  channel.onMessage((message) => {
    if (isClusterMessage(message, 'metrics-snapshot')) {
      metrics.registry.getMetricsAsJSON().then(
        (snapshot) => channel.send({ router: 'metrics-snapshot-answer', id: message.id, snapshot }),
        () => channel.send({ router: 'metrics-snapshot-answer', id: message.id, snapshot: null }),
      );
    } else if (isClusterMessage(message, 'metrics-answer')) {
      pending.get(message.id)?.(message.text);
      pending.delete(message.id);
    }
  });
  const local = () => metrics.registry.metrics();
  metrics.renderWith(async () => {
    const id = nextId++;
    const text = await new Promise<string | null>((resolve) => {
      const timer = setTimeout(() => {
        pending.delete(id);
        resolve(null);
      }, COLLECT_TIMEOUT_MS * 2);
      pending.set(id, (answer) => {
        clearTimeout(timer);
        resolve(answer);
      });
      channel.send({ router: 'metrics', id });
    });
    return text ?? local();
  });
}
