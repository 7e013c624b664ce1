import cluster from 'node:cluster';
import type { ConsolaInstance } from 'consola';
import { loadConfig } from '../../config/load-config.js';
import { unpricedTargets } from '../../config/price-warnings.js';
import type { RouterConfig } from '../../config/types.js';
import { describeError } from '../../core/describe-error.js';
import { resolveConfigDir } from '../../config/resolve-config-dir.js';
import { joinClusterMetrics } from '../../runtime/cluster/cluster-metrics.js';
import { runPrimary } from '../../runtime/cluster/run-primary.js';
import { workerCount } from '../../runtime/cluster/worker-count.js';
import { sendHeartbeats } from '../../runtime/cluster/worker-watchdog.js';
import { createLogger } from '../../runtime/create-logger.js';
import { installProcessGuard } from '../../runtime/process-guard.js';
import { startServer, type RunningServer } from '../../runtime/start-server.js';
import { isClusterMessage, processChannel } from '../../stores/cluster/cluster-channel.js';
import { requireCurrentStorageSchema } from '../../stores/schema-versions.js';

/** `router serve`: one process, or a cluster's primary or worker, as listen.workers and the process say. */
export async function serve(options: { config?: string; json?: boolean; migrate?: boolean }): Promise<void> {
  const config = loadConfig(resolveConfigDir(options.config, process.env), process.env);
  if (cluster.isWorker) return serveWorker(config);
  // On a current schema the migrate() every store still runs at start finds nothing to apply; a newer one
  // is refused there too, whatever this flag says.
  if (options.migrate === false) await requireCurrentStorageSchema(config.server.storage);
  const workers = workerCount(config.server.listen.workers);
  if (workers > 1) return servePrimary(config, workers, options.json === true);
  return serveOneProcess(config, options.json === true);
}

/** listen.workers: 1, the default: this process serves. */
async function serveOneProcess(config: RouterConfig, json: boolean): Promise<void> {
  const server = await startServer(config);
  const logger = server.runtime.logger;
  installProcessGuard(process, logger);
  warnAboutDefaults(config, logger);
  if (json) process.stdout.write(`${JSON.stringify({ listening: server.url, storage: server.runtime.store.kind })}\n`);
  else logger.ready(`router listening on ${server.url} (store: ${server.runtime.store.kind}, rate limit: ${server.runtime.rateLimiter.status().backend}); API base ${config.server.baseUrl}/v1, app ${config.server.appUrl}`);
  const stopper = stopOnRequest(server, logger, config.server.shutdown.drainTimeoutMs);
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => stopper.signal(signal));
}

/** Cluster mode's primary: forks the workers and serves no request itself (server/cluster/run-primary.ts). */
async function servePrimary(config: RouterConfig, workers: number, json: boolean): Promise<void> {
  const logger = processLogger(config).withTag('primary');
  installProcessGuard(process, logger);
  warnAboutDefaults(config, logger);
  const primary = await runPrimary(config, {
    workers,
    logger,
    onReady({ url, storage, rateLimit }) {
      if (json) process.stdout.write(`${JSON.stringify({ listening: url, storage, workers })}\n`);
      else logger.ready(`router listening on ${url} with ${workers} workers (store: ${storage}, rate limit: ${rateLimit}); API base ${config.server.baseUrl}/v1, app ${config.server.appUrl}`);
    },
  });
  void primary.exited.then((code) => {
    logger.info(code === 0 ? 'all workers drained; exiting' : 'workers exited; exiting with failure');
    process.exit(code);
  });
}

/**
 * A cluster worker: a whole router on the shared listener, whose per-minute windows and /metrics go
 * through the primary. It drains when the primary asks, or on a signal of its own, and sends the
 * primary's watchdog a heartbeat from its event loop from the start (the primary judges them once the
 * worker listens). (If the primary itself is killed, Node's cluster module exits the worker at once:
 * stop the primary with a signal.)
 */
async function serveWorker(config: RouterConfig): Promise<void> {
  const logger = processLogger(config).withTag(`worker-${cluster.worker?.id ?? 0}`);
  const channel = processChannel();
  if (config.server.listen.watchdogTimeoutMs > 0) sendHeartbeats(channel, config.server.listen.watchdogTimeoutMs);
  const server = await startServer(config, { logger, primary: channel }).catch((error: unknown) => {
    // The IPC channel would keep this worker alive: exit once the CLI has reported the failure (the
    // primary then stops the start, or replaces the worker after its back-off).
    setImmediate(() => process.exit(1));
    throw error;
  });
  installProcessGuard(process, logger);
  if (server.runtime.metrics) joinClusterMetrics(server.runtime.metrics, channel);
  const stopper = stopOnRequest(server, logger, config.server.shutdown.drainTimeoutMs);
  channel.onMessage((message) => {
    if (isClusterMessage(message, 'drain')) stopper.drain('the primary asked');
    else if (isClusterMessage(message, 'cut')) stopper.cut('the primary asked to stop now');
  });
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => stopper.signal(signal));
}

function processLogger(config: RouterConfig) {
  return createLogger({ level: config.server.logLevel, format: config.server.logFormat, isTerminal: process.stderr.isTTY === true });
}

/**
 * Drain on the first request to stop and end what is still in flight on a second signal, then exit.
 * A drain asked for twice (the worker's own SIGINT from a terminal and the primary's message about the
 * same Ctrl-C) is one drain; only a second signal or an explicit cut ends requests early.
 */
function stopOnRequest(server: RunningServer, logger: ConsolaInstance, drainTimeoutMs: number) {
  let draining = false;
  const drain = (why: string) => {
    if (draining) return;
    draining = true;
    logger.info(`${why}: draining (new requests get 503, in-flight ones have up to ${drainTimeoutMs} ms)`);
    server.shutdown().then(
      () => {
        logger.info('drained; exiting');
        process.exit(0);
      },
      (error: unknown) => {
        logger.error(`shutdown failed: ${describeError(error)}`);
        process.exit(1);
      },
    );
  };
  const cut = (why: string) => {
    drain(why);
    logger.warn(`${why}: ending the requests still in flight now`);
    void server.shutdown();
  };
  return {
    drain,
    cut,
    signal: (signal: string) => (draining ? cut(`${signal} received again`) : drain(`${signal} received`)),
  };
}

/** Settings whose defaults are fine on a laptop and wrong in production, and routed models without a price, get one line each at start. */
function warnAboutDefaults(config: RouterConfig, logger: { warn(message: string): void }): void {
  if (!config.server.secretKey) {
    logger.warn(
      'ROUTER_SECRET_KEY is not set: generated keys are hashed without a server secret and provider keys can be neither stored nor used. Set it (the same value for the server and the CLI) before issuing keys: changing it later invalidates every issued key.',
    );
  }
  const unpriced = unpricedTargets(config.routes, config.providers.providers);
  if (unpriced.length > 0) {
    const models = [...new Set(unpriced.map((target) => `${target.provider}/${target.model}`))];
    logger.warn(`routed models without a price in providers.yaml (cost recorded as unknown, not meterable for managed access): ${models.join(', ')}`);
  }
  const loopback = ['127.0.0.1', '::1', 'localhost'].includes(config.server.listen.host);
  if (!loopback && ['localhost', '127.0.0.1', '[::1]'].includes(new URL(config.server.baseUrl).hostname)) {
    logger.warn(`baseUrl is ${config.server.baseUrl}, so every link the router hands out points at this machine only; set ROUTER_BASE_URL to the public API address`);
  }
}
