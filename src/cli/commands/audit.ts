/**
 * `router audit`: the durable operator audit events (accounts, keys, provider keys, plans, managed
 * access), newest first, each naming who acted: a person by email, an API caller by its key's name
 * (usage/audit-actors.ts; the JSON keeps the stored `actor` id beside `actorName`).
 */
import type { Command } from 'commander';
import { lazyAction } from '../lazy-action.js';
import { withStoreOptions } from '../store-options.js';

export function registerAuditCommand(program: Command): void {
  withStoreOptions(program.command('audit'))
    .description('operator audit events, newest first: changes to accounts, keys, provider keys, plans and managed access')
    .option('--account <id>', "only this account's events (configuration events have no account)")
    .option('--limit <n>', 'at most this many events', '100')
    .action(lazyAction(() => import('./audit-actions.js'), 'listAuditEvents'));
}
