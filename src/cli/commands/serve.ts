import type { Command } from 'commander';
import { loadConfig } from '../../config/load-config.js';
import { unpricedTargets } from '../../config/price-warnings.js';
import type { RouterConfig } from '../../config/types.js';
import { describeError } from '../../core/describe-error.js';
import { resolveConfigDir } from '../../config/resolve-config-dir.js';
import { installProcessGuard } from '../../server/process-guard.js';
import { startServer } from '../../server/start-server.js';

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
      warnAboutDefaults(config, server.runtime.logger);
      if (options.json) process.stdout.write(`${JSON.stringify({ listening: server.url, storage: server.runtime.store.kind })}\n`);
      else server.runtime.logger.ready(`router listening on ${server.url} (store: ${server.runtime.store.kind}, rate limit: ${server.runtime.rateLimiter.status().backend}); API base ${config.server.baseUrl}/v1`);
      const logger = server.runtime.logger;
      let draining = false;
      const stop = (signal: string) => {
        if (draining) {
          logger.warn(`${signal} received again: ending the requests still in flight now`);
          void server.shutdown();
          return;
        }
        draining = true;
        logger.info(`${signal} received: draining (new requests get 503, in-flight ones have up to ${config.server.shutdown.drainTimeoutMs} ms)`);
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
      process.on('SIGINT', () => stop('SIGINT'));
      process.on('SIGTERM', () => stop('SIGTERM'));
    });
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
  if (!loopback && new URL(config.server.baseUrl).hostname === 'localhost') {
    logger.warn(`baseUrl is ${config.server.baseUrl}, so every link the router hands out points at localhost; set ROUTER_BASE_URL to the public API address`);
  }
}
