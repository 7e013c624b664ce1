/** Serve the app with listhen on the configured address; the caller owns shutdown. */
import { toNodeListener } from 'h3';
import { listen } from 'listhen';
import type { RouterConfig } from '../config/types.js';
import { buildRouterDeps, type BuildOptions, type RouterRuntime } from './build-router-deps.js';
import { createRouterApp } from './create-router-app.js';

export interface RunningServer {
  url: string;
  runtime: RouterRuntime;
  close(): Promise<void>;
}

export async function startServer(config: RouterConfig, options: BuildOptions = {}): Promise<RunningServer> {
  const runtime = await buildRouterDeps(config, options);
  const { host, port } = config.server.listen;
  const listener = await listen(toNodeListener(createRouterApp(runtime)), {
    hostname: host,
    // Port 0 asks the OS for a free port (tests); a fixed port must be free, never silently swapped.
    port: port === 0 ? 0 : { port, portRange: [port, port], alternativePortRange: [port, port], random: false },
    showURL: false,
    autoClose: false,
    qr: false,
    public: host !== '127.0.0.1' && host !== 'localhost',
  });
  const address = listener.server.address();
  const actualPort = typeof address === 'object' && address ? address.port : port;
  if (port !== 0 && actualPort !== port) {
    await listener.close();
    await runtime.close();
    throw new Error(`port ${port} on ${host} is already in use`);
  }
  listener.server.maxConnections = config.server.listen.maxConnections;
  listener.server.keepAliveTimeout = 65_000;
  listener.server.requestTimeout = config.server.requestTimeoutMs;
  listener.server.headersTimeout = 30_000;
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${actualPort}`,
    runtime,
    async close() {
      await listener.close();
      await runtime.close();
    },
  };
}
