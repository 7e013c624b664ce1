/**
 * `router usage`: an account's usage from the ledger, by day (in an explicit time zone) or by key,
 * route, provider, model, member or workspace, of everyone or of one member or workspace (--member,
 * --workspace), as a table, one JSON document or CSV; without --account, every account's
 * (usage/operator-usage-report.ts: the per-account reports summed), by day, account, plan, route,
 * provider or model. The numbers are those of the read service the account app uses
 * (usage/usage-report.ts), so every view agrees. What it runs is in usage-actions.ts.
 */
import type { Command } from 'commander';
import { OPERATOR_GROUPINGS } from '../../usage/operator-usage-report.js';
import { USAGE_GROUPINGS } from '../../usage/usage-report.js';
import { lazyAction } from '../lazy-action.js';
import { withStoreOptions } from '../store-options.js';

export function registerUsageCommand(program: Command): void {
  withStoreOptions(program.command('usage'))
    .description("usage from the ledger (requests, tokens and cost): an account's by day, key, route, provider or model; without --account every account's, by day, account, plan, route, provider or model")
    .option('--account <id>', "one account's usage (default: every account's)")
    .option('--from <date>', 'first day, YYYY-MM-DD in --tz (default: the first of this month)')
    .option('--to <date>', 'last day, inclusive, YYYY-MM-DD in --tz (default: today)')
    .option('--by <grouping>', `with --account one of ${USAGE_GROUPINGS.join(', ')}; without, one of ${OPERATOR_GROUPINGS.join(', ')}`, 'day')
    .option('--tz <zone>', 'IANA time zone for day boundaries', 'UTC')
    .option('--member <email>', "with --account, only the usage of this member's keys")
    .option('--workspace <name>', "with --account, only the usage of this workspace's keys (its name or id)")
    .option('--csv', 'print CSV (a header, one line per row, then the totals)')
    .action(lazyAction(() => import('./usage-actions.js'), 'showUsage'));
}
