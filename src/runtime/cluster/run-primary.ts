/**
 * Cluster mode's primary process (`listen.workers` > 1): it serves no request itself. It migrates the
 * database once, forks the workers (each a full router sharing the listening socket through
 * node:cluster), keeps the per-minute windows every worker decides against (memory backend), replaces a
 * worker that exits on its own after a back-off, kills one whose event loop stopped answering
 * (worker-watchdog.ts) so that it is replaced the same way, and on SIGTERM/SIGINT asks every worker to drain, then
 * exits once all have exited (bounded: a worker still running past its own drain deadline is killed),
 * with 0 when every worker drained cleanly: a crash before the signal was already answered by its
 * replacement and does not fail the stop.
 */
import cluster, { type Worker } from 'node:cluster';
import type { ConsolaInstance } from 'consola';
import type { RouterConfig } from '../../config/types.js';
import { describeError } from '../../core/describe-error.js';
import { isClusterMessage, type ClusterMessage, type PrimaryHandler } from '../../stores/cluster/cluster-channel.js';
import { serveInFlightSlots } from '../../stores/cluster/serve-in-flight-slots.js';
import { serveRateLimits } from '../../stores/cluster/serve-rate-limits.js';
import { serveMeasurements } from '../../stores/cluster/share-measurements.js';
import { relayCredentialCircuits } from '../../stores/cluster/share-credential-circuits.js';
import { systemClock } from '../../core/clock.js';
import { createMemoryRateLimiter } from '../../stores/memory/create-memory-rate-limiter.js';
import { END_GRACE_MS } from '../start-server.js';
import { closeConnectionsLostWith } from './close-lost-connections.js';
import { serveClusterMetrics } from './cluster-metrics.js';
import { migrateStorage } from './migrate-storage.js';
import { RestartBackoff } from './restart-backoff.js';
import { HeartbeatWatch, watchdogCheckIntervalMs } from './worker-watchdog.js';
import { workerExecArgv } from './worker-node-flags.js';

/** Past the workers' own drain deadline and end grace: how much longer the primary waits before killing them. */
const EXIT_MARGIN_MS = 5000;

export interface ClusterReady {
  url: string;
  workers: number;
  storage: string;
  rateLimit: 'primary' | 'redis';
}

export interface PrimaryOptions {
  workers: number;
  logger: ConsolaInstance;
  /** Called once, when every first worker is listening. */
  onReady(ready: ClusterReady): void;
}

export interface RunningPrimary {
  /** Resolves with the exit code once every worker has exited after a signal. */
  exited: Promise<number>;
}

export async function runPrimary(config: RouterConfig, options: PrimaryOptions): Promise<RunningPrimary> {
  const { logger, workers } = options;
  if (config.server.storage === 'sqlite::memory:') {
    throw new Error('listen.workers > 1 needs storage every worker shares; sqlite::memory: is private to each process (use a file or PostgreSQL)');
  }
  const storage = await migrateStorage(config);
  const windows = config.server.rateLimit.backend === 'memory' ? createMemoryRateLimiter() : undefined;
  // With the memory backend the primary also counts every worker's requests in flight (and gives back
  // the slots of a worker that exits); with Redis the workers count there, like every other instance.
  if (windows) serveInFlightSlots(cluster);
  const handlers: PrimaryHandler[] = [
    ...(windows ? [serveRateLimits(windows)] : []),
    serveClusterMetrics(() => Object.values(cluster.workers ?? {})),
    serveMeasurements(systemClock),
    relayCredentialCircuits((message) => {
      for (const worker of Object.values(cluster.workers ?? {})) if (worker?.isConnected()) worker.send(message, undefined, () => undefined);
    }),
  ];
  const backoff = new RestartBackoff();
  const startedAt = new Map<number, number>();
  /** Workers that have listened: they drain on a message; one still starting has served nothing and is simply stopped. */
  const serving = new Set<number>();
  let listening = 0;
  let ready = false;
  let stopping = false;
  let failedStart = false;
  let finish: (code: number) => void = () => undefined;
  const exited = new Promise<number>((resolve) => (finish = resolve));
  let drainedCleanly = true;
  const { watchdogTimeoutMs } = config.server.listen;
  const watchdog = watchdogTimeoutMs > 0 ? new HeartbeatWatch(watchdogTimeoutMs) : undefined;

  // Workers run this same command; --json is the primary's promise of one document on stdout.
  cluster.setupPrimary({ args: process.argv.slice(2).filter((arg) => arg !== '--json'), execArgv: workerExecArgv(process.execArgv, process.env.NODE_OPTIONS) });
  cluster.on('message', (worker, message: unknown) => {
    if (isClusterMessage(message, 'heartbeat')) return void watchdog?.heard(worker.id, Date.now());
    const reply = (answer: ClusterMessage) => {
      if (worker.isConnected()) worker.send(answer, undefined, () => undefined);
    };
    for (const handle of handlers) if (handle(message, reply)) return;
  });
  cluster.on('listening', (worker, address) => {
    serving.add(worker.id);
    watchdog?.watch(worker.id, Date.now());
    logger.info(`worker ${worker.id} (pid ${worker.process.pid}) listening`);
    if (ready || ++listening < workers) return;
    ready = true;
    const host = address.address ?? config.server.listen.host;
    options.onReady({
      url: `http://${host.includes(':') ? `[${host}]` : host}:${address.port}`,
      workers,
      storage,
      rateLimit: windows ? 'primary' : 'redis',
    });
  });
  cluster.on('exit', (worker, code, signal) => {
    const how = signal ? `signal ${signal}` : `code ${code}`;
    watchdog?.forget(worker.id);
    // The exit code is the drain's: only a serving worker that did not exit cleanly once the stop began
    // fails it (one stopped while still starting ends by the signal it was sent, a clean stop too).
    if (stopping && serving.has(worker.id) && code !== 0) drainedCleanly = false;
    if (stopping || failedStart) {
      logger.info(`worker ${worker.id} (pid ${worker.process.pid}) exited (${how})`);
      if (liveWorkers().length === 0) void closeAndFinish();
      return;
    }
    if (!ready) {
      // A worker that cannot start (address in use, bad database) will not start on a retry either.
      failedStart = true;
      logger.error(`worker ${worker.id} (pid ${worker.process.pid}) exited (${how}) before the cluster was listening; stopping`);
      for (const other of liveWorkers()) other.process.kill('SIGTERM');
      if (liveWorkers().length === 0) void closeAndFinish();
      return;
    }
    const delay = backoff.next(Date.now() - (startedAt.get(worker.id) ?? 0));
    logger.warn(`worker ${worker.id} (pid ${worker.process.pid}) exited (${how}); starting a replacement in ${delay} ms`);
    setTimeout(() => {
      if (!stopping) fork();
    }, delay).unref();
  });

  if (watchdog) {
    setInterval(() => {
      if (stopping || failedStart) return;
      for (const workerId of watchdog.overdue(Date.now())) {
        const worker = cluster.workers?.[workerId];
        if (!worker || worker.isDead()) continue;
        logger.warn(`worker ${worker.id} (pid ${worker.process.pid}) sent no heartbeat for ${watchdogTimeoutMs} ms (event loop blocked or process stopped): killing it (SIGKILL)`);
        worker.process.kill('SIGKILL');
      }
    }, watchdogCheckIntervalMs(watchdogTimeoutMs)).unref();
  }

  function fork(): Worker {
    const worker = cluster.fork();
    startedAt.set(worker.id, Date.now());
    closeConnectionsLostWith(worker.process);
    // A connection passed to a worker as it dies fails to send (EPIPE); Node's cluster module passes no
    // callback, so the failure is this event, which would otherwise be thrown in the primary.
    worker.on('error', (error: unknown) => logger.warn(`worker ${worker.id} (pid ${worker.process.pid}): message not delivered (${describeError(error)})`));
    return worker;
  }
  function liveWorkers(): Worker[] {
    return Object.values(cluster.workers ?? {}).filter((worker): worker is Worker => worker !== undefined && !worker.isDead());
  }
  async function closeAndFinish(): Promise<void> {
    await windows?.close();
    finish(failedStart || !drainedCleanly ? 1 : 0);
  }

  const stop = (signal: string) => {
    if (failedStart) return;
    if (stopping) {
      logger.warn(`${signal} received again: workers end the requests still in flight now`);
      for (const worker of liveWorkers()) worker.send({ router: 'cut' } satisfies ClusterMessage, undefined, () => undefined);
      return;
    }
    stopping = true;
    const { drainTimeoutMs } = config.server.shutdown;
    logger.info(`${signal} received: draining ${liveWorkers().length} worker(s) (new requests get 503, in-flight ones have up to ${drainTimeoutMs} ms)`);
    for (const worker of liveWorkers()) {
      if (serving.has(worker.id)) worker.send({ router: 'drain' } satisfies ClusterMessage, undefined, () => undefined);
      else worker.process.kill('SIGTERM');
    }
    if (liveWorkers().length === 0) void closeAndFinish();
    setTimeout(() => {
      const left = liveWorkers();
      if (left.length === 0) return;
      logger.error(`${left.length} worker(s) still running ${drainTimeoutMs + END_GRACE_MS + EXIT_MARGIN_MS} ms after the drain began: killing them`);
      drainedCleanly = false;
      for (const worker of left) worker.process.kill('SIGKILL');
    }, drainTimeoutMs + END_GRACE_MS + EXIT_MARGIN_MS).unref();
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));

  for (let i = 0; i < workers; i++) fork();
  return { exited };
}
