import type { Command } from 'commander';
import { lazyAction } from '../lazy-action.js';

/** `router check`: what it runs (the config check, without the stores or the server) is in check-actions.ts. */
export function registerCheckCommand(program: Command): void {
  program
    .command('check')
    .description('validate the configuration (schemas and cross-file references); exit 1 on any problem')
    .option('--config <dir>', 'configuration directory (default $ROUTER_CONFIG or ./config)')
    .option('--json', 'print one JSON document')
    .action(lazyAction(() => import('./check-actions.js'), 'check'));
}
