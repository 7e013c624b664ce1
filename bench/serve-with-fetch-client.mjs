/**
 * `router serve --json` with one change: the upstream client is the earlier ofetch-over-fetch client
 * (create-fetch-upstream-client.mjs), injected through startServer's upstreamClient option. Same
 * environment, same config loading, same output line, same SIGTERM shutdown as the real command.
 */
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createFetchUpstreamClient } from './create-fetch-upstream-client.mjs';

const dist = join(dirname(dirname(fileURLToPath(import.meta.url))), 'dist');
const { loadConfig } = await import(join(dist, 'config/load-config.js'));
const { resolveConfigDir } = await import(join(dist, 'config/resolve-config-dir.js'));
const { startServer } = await import(join(dist, 'runtime/start-server.js'));
const { UpstreamTransportError } = await import(join(dist, 'upstream/upstream-client.js'));

const config = loadConfig(resolveConfigDir(undefined, process.env), process.env);
const server = await startServer(config, { upstreamClient: createFetchUpstreamClient(UpstreamTransportError) });
process.stdout.write(`${JSON.stringify({ listening: server.url, storage: server.runtime.store.kind })}\n`);
process.once('SIGTERM', () => void server.close().finally(() => process.exit(0)));
