/**
 * `router support-bundle`: writes what a support request may carry (see usage/support-bundle.ts) to a
 * file readable only by its owner. Readiness is as this CLI sees the configured stores. What it runs is
 * in support-bundle-actions.ts.
 */
import type { Command } from 'commander';
import { lazyAction } from '../lazy-action.js';
import { withStoreOptions } from '../store-options.js';

export function registerSupportBundleCommand(program: Command): void {
  withStoreOptions(program.command('support-bundle'))
    .description('write a redacted support bundle: versions, masked configuration, readiness, recent error counts, one request’s ledger record')
    .requiredOption('--out <file>', 'where to write the bundle (JSON, mode 0600)')
    .option('--account <id>', "scope to one account (its standing, its errors, only its records)")
    .option('--request-id <id>', 'include the ledger records and upstream attempts of this request (X-Request-Id)')
    .action(lazyAction(() => import('./support-bundle-actions.js'), 'writeSupportBundle'));
}
