import type { Command } from 'commander';
import { lazyAction } from '../lazy-action.js';

export function registerServeCommand(program: Command): void {
  program
    .command('serve')
    .description('start the API server (refuses to start on an invalid configuration)')
    .option('--config <dir>', 'configuration directory (default $ROUTER_CONFIG or ./config)')
    .option('--json', 'print one JSON document when listening')
    // Migrating at start keeps the one-line start from a clone; a deployment runs `router migrate` first.
    .option('--no-migrate', 'do not migrate the database: start only if it is at this release\'s schema version (after `router migrate`)')
    // The server's modules load only when serving: the rest of the CLI starts without them.
    .action(lazyAction(() => import('./serve-process.js'), 'serve'));
}
