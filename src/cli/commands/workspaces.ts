/**
 * `router workspaces list|create|rename` and `router budgets set|list|remove`: an organization's
 * workspaces and its budgets per workspace, member or key, as the operator manages them (actor `cli`).
 * Budgets are USD per day, week or month (UTC), or in total for keys. What they run is in workspaces-actions.ts.
 */
import type { Command } from 'commander';
import { lazyAction } from '../lazy-action.js';
import { withStoreOptions } from '../store-options.js';

const actions = () => import('./workspaces-actions.js');

export function registerWorkspaceCommands(program: Command): void {
  const workspaces = program.command('workspaces').description("an organization's workspaces (keys and budgets belong to one)");

  withStoreOptions(workspaces.command('list'))
    .description("list an organization's workspaces, the default first")
    .requiredOption('--account <id>', 'organization (account) id')
    .action(lazyAction(actions, 'listWorkspaces'));

  withStoreOptions(workspaces.command('create'))
    .description('create a workspace')
    .requiredOption('--account <id>', 'organization (account) id')
    .requiredOption('--name <name>', 'workspace name')
    .action(lazyAction(actions, 'createWorkspace'));

  withStoreOptions(workspaces.command('rename'))
    .description('rename a workspace')
    .requiredOption('--account <id>', 'organization (account) id')
    .requiredOption('--workspace <id>', 'workspace id')
    .requiredOption('--name <name>', 'new name')
    .action(lazyAction(actions, 'renameWorkspace'));

  const budgets = program.command('budgets').description('hard budgets per workspace, member or key (USD per day, week, month, or total)');

  withStoreOptions(budgets.command('set'))
    .description('set (or replace) the budget of a workspace, member or key')
    .requiredOption('--account <id>', 'organization (account) id')
    .requiredOption('--scope <scope>', 'workspace, member or key')
    .requiredOption('--id <id>', 'the workspace, person or key id')
    .requiredOption('--usd <amount>', 'the limit in USD')
    .requiredOption('--period <period>', 'day, week, month or total (total: keys only)')
    .option('--exclude-byok', "count only managed provider access, not the organization's own provider keys")
    .action(lazyAction(actions, 'setBudget'));

  withStoreOptions(budgets.command('list'))
    .description("list an organization's budgets")
    .requiredOption('--account <id>', 'organization (account) id')
    .action(lazyAction(actions, 'listBudgets'));

  withStoreOptions(budgets.command('remove'))
    .description('remove the budget of a workspace, member or key')
    .requiredOption('--account <id>', 'organization (account) id')
    .requiredOption('--scope <scope>', 'workspace, member or key')
    .requiredOption('--id <id>', 'the workspace, person or key id')
    .action(lazyAction(actions, 'removeBudget'));
}
