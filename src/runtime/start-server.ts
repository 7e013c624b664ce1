/**
 * Serve the app with Node's own HTTP server on the configured address, and drain it on shutdown.
 *
 * Not listhen: it always wraps the server in http-shutdown, whose `finish` handler sets a flag on
 * `req.socket`, which Node has already set to null when a response (a 413 to a chunked body still being
 * uploaded) finishes after its socket was released: an uncaught TypeError that took the whole process
 * down. Everything else listhen offered (port picking, URL banners, tunnels) the router does not use.
 */
import { createServer, type Server } from 'node:http';
import { toNodeListener } from 'h3';
import type { RouterConfig } from '../config/types.js';
import { answerClientErrors, requireOneHost } from '../http/answer-client-errors.js';
import { buildRuntime, type BuildOptions, type RouterRuntime } from './build-runtime.js';
import { createServerApp } from './create-server-app.js';

/** After the drain deadline, how long ended requests get to write their last event before sockets are cut. */
export const END_GRACE_MS = 5000;

export interface RunningServer {
  url: string;
  runtime: RouterRuntime;
  /**
   * Drain and close: /readyz says `draining` and new /v1 requests get 503 at once; requests in flight
   * run on until `shutdown.drainTimeoutMs`, then each remaining one is ended (a committed stream with
   * its in-stream error event); then connections, stores and the quota ledger are closed (settling
   * counts). Called again while draining (a second signal), it ends the remaining requests at once.
   */
  shutdown(): Promise<void>;
  /** The same as shutdown(). */
  close(): Promise<void>;
}

export async function startServer(config: RouterConfig, options: BuildOptions = {}): Promise<RunningServer> {
  const runtime = await buildRuntime(config, options);
  const { host, port, maxConnections } = config.server.listen;
  const refused = (requestId: string, reason: string) => runtime.logger.debug(`[${requestId}] request refused below the app (${reason})`);
  const server = createServer(
    // Host is checked by requireOneHost, which answers in the contract's shape (Node's own check sends a bare 400).
    { requestTimeout: config.server.requestTimeoutMs, headersTimeout: 30_000, keepAliveTimeout: 65_000, requireHostHeader: false },
    requireOneHost(toNodeListener(createServerApp(runtime)), config.server, refused),
  );
  server.maxConnections = maxConnections;
  answerClientErrors(server, config.server, refused);
  const requests = trackRequests(server, () => runtime.drain.draining);
  try {
    await listen(server, host, port);
  } catch (error) {
    await runtime.close();
    throw error;
  }
  const address = server.address();
  const actualPort = typeof address === 'object' && address ? address.port : port;

  let stopped: Promise<void> | undefined;
  const shutdown = (): Promise<void> => {
    if (stopped) {
      runtime.drain.cut();
      return stopped;
    }
    stopped = (async () => {
      runtime.drain.begin();
      server.closeIdleConnections();
      const deadline = setTimeout(() => runtime.drain.cut(), config.server.shutdown.drainTimeoutMs);
      await Promise.race([requests.settled(), aborted(runtime.drain.deadline)]);
      clearTimeout(deadline);
      if (requests.inFlight() > 0) {
        runtime.logger.info(`drain: ending ${requests.inFlight()} request(s) still in flight`);
        await Promise.race([requests.settled(), sleep(END_GRACE_MS)]);
      }
      await closeListener(server);
      await runtime.close();
    })();
    return stopped;
  };
  return { url: `http://${host.includes(':') ? `[${host}]` : host}:${actualPort}`, runtime, shutdown, close: shutdown };
}

function listen(server: Server, host: string, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const failed = (error: NodeJS.ErrnoException) => {
      server.off('listening', listening);
      reject(error.code === 'EADDRINUSE' ? new Error(`address in use: ${host}:${port} already has a listener (stop it, or set ROUTER_PORT)`) : error);
    };
    const listening = () => {
      server.off('error', failed);
      resolve();
    };
    server.once('error', failed);
    server.once('listening', listening);
    server.listen(port, host);
  });
}

/**
 * Counts requests in flight (until their response closes). While draining, every response asks for its
 * connection to be closed, and each connection that falls idle is closed at once.
 */
function trackRequests(server: Server, draining: () => boolean) {
  let inFlight = 0;
  let waiters: Array<() => void> = [];
  server.on('request', (_req, res) => {
    inFlight++;
    if (draining()) res.setHeader('connection', 'close');
    res.once('close', () => {
      inFlight--;
      if (draining()) setImmediate(() => server.closeIdleConnections());
      if (inFlight === 0) {
        for (const wake of waiters) wake();
        waiters = [];
      }
    });
  });
  return {
    inFlight: () => inFlight,
    /** Resolves once no request is in flight. */
    settled: () => (inFlight === 0 ? Promise.resolve() : new Promise<void>((resolve) => waiters.push(resolve))),
  };
}

function closeListener(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}

function aborted(signal: AbortSignal): Promise<void> {
  return signal.aborted ? Promise.resolve() : new Promise((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}
