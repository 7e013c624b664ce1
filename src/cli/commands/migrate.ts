import type { Command } from 'commander';
import { emit, log } from '../cli-io.js';

/**
 * `router migrate`: brings the configured database (the store's and the usage ledger's tables) to this
 * release's schema and exits, so a deployment migrates once and then rolls instances started with
 * `router serve --no-migrate` (docs/deploy.md#upgrades).
 */
export function registerMigrateCommand(program: Command): void {
  program
    .command('migrate')
    .description("apply the database migrations this release carries (the store's and the usage ledger's) and exit")
    .option('--config <dir>', 'configuration directory (default $ROUTER_CONFIG or ./config)')
    .option('--json', 'print one JSON document')
    .action(async (options: { config?: string; json?: boolean }) => {
      // Config and stores load only for this command, not for every CLI start.
      const [{ loadConfig }, { resolveConfigDir }, { migrateStorage }, { requireCurrentStorageSchema }] = await Promise.all([
        import('../../config/load-config.js'),
        import('../../config/resolve-config-dir.js'),
        import('../../runtime/cluster/migrate-storage.js'),
        import('../../stores/schema-versions.js'),
      ]);
      const config = loadConfig(resolveConfigDir(options.config, process.env), process.env);
      const storage = await migrateStorage(config);
      // Read back rather than assumed: what the database says is what a --no-migrate instance will find.
      const schemaVersion = await requireCurrentStorageSchema(config.server.storage);
      emit(options, { migrated: true, storage, schemaVersion }, () => log.success(`database (${storage}) is at schema version ${schemaVersion}`));
    });
}
