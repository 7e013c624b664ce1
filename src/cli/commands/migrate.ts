import type { Command } from 'commander';
import { lazyAction } from '../lazy-action.js';

/**
 * `router migrate`: brings the configured database (the store's and the usage ledger's tables) to this
 * release's schema and exits, so a deployment migrates once and then rolls instances started with
 * `router serve --no-migrate` (docs/deploy.md#upgrades). What it runs is in migrate-actions.ts.
 */
export function registerMigrateCommand(program: Command): void {
  program
    .command('migrate')
    .description("apply the database migrations this release carries (the store's and the usage ledger's) and exit")
    .option('--config <dir>', 'configuration directory (default $ROUTER_CONFIG or ./config)')
    .option('--json', 'print one JSON document')
    .action(lazyAction(() => import('./migrate-actions.js'), 'migrate'));
}
