import type { Command } from 'commander';
import { loadConfig } from '../../config/load-config.js';
import { resolveConfigDir } from '../../config/resolve-config-dir.js';
import { installProcessGuard } from '../../server/process-guard.js';
import { startServer } from '../../server/start-server.js';
import { log } from '../cli-io.js';

export function registerServeCommand(program: Command): void {
  program
    .command('serve')
    .description('start the API server (refuses to start on an invalid configuration)')
    .option('--config <dir>', 'configuration directory (default $ROUTER_CONFIG or ./config)')
    .option('--json', 'print one JSON document when listening')
    .action(async (options: { config?: string; json?: boolean }) => {
      const config = loadConfig(resolveConfigDir(options.config, process.env), process.env);
      const server = await startServer(config);
      installProcessGuard(process, server.runtime.logger);
      if (options.json) process.stdout.write(`${JSON.stringify({ listening: server.url, storage: server.runtime.store.kind })}\n`);
      else log.ready(`router listening on ${server.url} (store: ${server.runtime.store.kind}, rate limit: ${server.runtime.rateLimiter.status().backend}); API base ${config.server.baseUrl}/v1`);
      const stop = async (signal: string) => {
        log.info(`${signal} received, shutting down`);
        await server.close();
        process.exit(0);
      };
      process.once('SIGINT', () => void stop('SIGINT'));
      process.once('SIGTERM', () => void stop('SIGTERM'));
    });
}
