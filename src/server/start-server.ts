/**
 * Serve the app with Node's own HTTP server on the configured address; the caller owns shutdown.
 *
 * Not listhen: it always wraps the server in http-shutdown, whose `finish` handler sets a flag on
 * `req.socket`, which Node has already set to null when a response (a 413 to a chunked body still being
 * uploaded) finishes after its socket was released: an uncaught TypeError that took the whole process
 * down. Everything else listhen offered (port picking, URL banners, tunnels) the router does not use.
 */
import { createServer, type Server } from 'node:http';
import { toNodeListener } from 'h3';
import type { RouterConfig } from '../config/types.js';
import { answerClientErrors } from './answer-client-errors.js';
import { buildRouterDeps, type BuildOptions, type RouterRuntime } from './build-router-deps.js';
import { createRouterApp } from './create-router-app.js';

export interface RunningServer {
  url: string;
  runtime: RouterRuntime;
  close(): Promise<void>;
}

export async function startServer(config: RouterConfig, options: BuildOptions = {}): Promise<RunningServer> {
  const runtime = await buildRouterDeps(config, options);
  const { host, port, maxConnections } = config.server.listen;
  const server = createServer(
    { requestTimeout: config.server.requestTimeoutMs, headersTimeout: 30_000, keepAliveTimeout: 65_000 },
    toNodeListener(createRouterApp(runtime)),
  );
  server.maxConnections = maxConnections;
  answerClientErrors(server, config.server, (requestId, reason) => runtime.logger.debug(`[${requestId}] request refused by the HTTP parser (${reason})`));
  const stop = closeGracefully(server);
  try {
    await listen(server, host, port);
  } catch (error) {
    await runtime.close();
    throw error;
  }
  const address = server.address();
  const actualPort = typeof address === 'object' && address ? address.port : port;
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${actualPort}`,
    runtime,
    async close() {
      await stop();
      await runtime.close();
    },
  };
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
 * Returns close(): stop accepting, close idle keep-alive connections at once, and close each busy one
 * as soon as its request is done (no connection is kept alive once closing started).
 */
function closeGracefully(server: Server): () => Promise<void> {
  let closing = false;
  server.on('request', (_req, res) => {
    if (closing) res.setHeader('connection', 'close');
    res.once('close', () => {
      if (closing) setImmediate(() => server.closeIdleConnections());
    });
  });
  return () =>
    new Promise((resolve) => {
      closing = true;
      server.close(() => resolve());
      server.closeIdleConnections();
    });
}
