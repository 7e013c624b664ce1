/** What `router workspaces …` and `router budgets …` run (defined in workspaces.ts), loaded only when one of them runs. */
import type { Command } from 'commander';
import { isBudgetPeriod, isBudgetScope, type BudgetRecord } from '../../stores/budget-store.js';
import { WORKSPACE_NAME_MAX, type WorkspaceRecord } from '../../stores/workspace-store.js';
import { formatNanoUsd, usdToNano } from '../../usage/nano-usd.js';
import { requireAccount, withCliContext } from '../cli-context.js';
import { CliFailure, emit, log } from '../cli-io.js';
import type { StoreCommandOptions } from '../store-options.js';
import { usageError } from '../usage-error.js';

const publicWorkspace = (workspace: WorkspaceRecord) => ({ id: workspace.id, name: workspace.name, slug: workspace.slug, isDefault: workspace.isDefault, createdAt: workspace.createdAt });
const publicBudget = (budget: BudgetRecord) => ({
  scope: budget.scope,
  id: budget.scopeId,
  limitUsd: formatNanoUsd(budget.limitNanoUsd),
  period: budget.period,
  includeByok: budget.includeByok,
  updatedAt: budget.updatedAt,
});

function workspaceName(command: Command, name: string): string {
  const trimmed = name.trim();
  if (trimmed.length === 0 || trimmed.length > WORKSPACE_NAME_MAX) usageError(command, `a workspace name has 1 to ${WORKSPACE_NAME_MAX} characters`);
  return trimmed;
}

export async function listWorkspaces(options: StoreCommandOptions & { account: string }): Promise<void> {
  await withCliContext(options.config, async ({ store }) => {
    await requireAccount(store, options.account);
    const list = await store.listWorkspaces(options.account);
    emit(options, { workspaces: list.map(publicWorkspace) }, () => {
      for (const workspace of list) log.log(`${workspace.id}  ${workspace.name}${workspace.isDefault ? '  (default)' : ''}`);
    });
  });
}

export async function createWorkspace(this: Command, options: StoreCommandOptions & { account: string; name: string }): Promise<void> {
  const name = workspaceName(this, options.name);
  await withCliContext(options.config, async ({ config, store }) => {
    await requireAccount(store, options.account);
    const account = (await store.getAccount(options.account))!;
    const max = config.plans.find((plan) => plan.id === account.plan)?.maxWorkspaces;
    if (max !== undefined && (await store.listWorkspaces(account.id)).length >= max) {
      throw new CliFailure(`the ${account.plan} plan allows ${max} workspace${max === 1 ? '' : 's'}`);
    }
    const workspace = await store.createWorkspace({ accountId: account.id, name }, 'cli');
    emit(options, { workspace: publicWorkspace(workspace) }, () => log.success(`created workspace ${workspace.name} (${workspace.id})`));
  });
}

export async function renameWorkspace(this: Command, options: StoreCommandOptions & { account: string; workspace: string; name: string }): Promise<void> {
  const name = workspaceName(this, options.name);
  await withCliContext(options.config, async ({ store }) => {
    const workspace = await store.renameWorkspace(options.account, options.workspace, name, 'cli');
    emit(options, { workspace: publicWorkspace(workspace) }, () => log.success(`renamed ${workspace.id} to ${workspace.name}`));
  });
}

export async function setBudget(
  this: Command,
  options: StoreCommandOptions & { account: string; scope: string; id: string; usd: string; period: string; excludeByok?: boolean },
): Promise<void> {
  if (!isBudgetScope(options.scope)) usageError(this, '--scope must be workspace, member or key');
  if (!isBudgetPeriod(options.period)) usageError(this, '--period must be day, week, month or total');
  if (options.period === 'total' && options.scope !== 'key') usageError(this, 'a total budget is for keys only');
  const usd = Number(options.usd);
  if (!/^\d{1,9}(\.\d{1,9})?$/.test(options.usd) || !Number.isFinite(usd)) usageError(this, '--usd must be an amount such as 25 or 0.50');
  await withCliContext(options.config, async ({ store }) => {
    await requireAccount(store, options.account);
    // A budget on a workspace or key of another organization (or none) would never apply: refuse it.
    if (options.scope === 'workspace' && !(await store.getWorkspace(options.account, options.id))) throw new CliFailure(`workspace ${options.id} is not one of ${options.account}'s`);
    if (options.scope === 'key' && (await store.getApiKey(options.id))?.accountId !== options.account) throw new CliFailure(`key ${options.id} is not one of ${options.account}'s`);
    const budget = await store.setBudget(
      { accountId: options.account, scope: options.scope as BudgetRecord['scope'], scopeId: options.id, limitNanoUsd: usdToNano(usd), period: options.period as BudgetRecord['period'], includeByok: !options.excludeByok },
      'cli',
    );
    emit(options, { budget: publicBudget(budget) }, () => log.success(`budget of ${budget.scope} ${budget.scopeId}: USD ${formatNanoUsd(budget.limitNanoUsd)} per ${budget.period}`));
  });
}

export async function listBudgets(options: StoreCommandOptions & { account: string }): Promise<void> {
  await withCliContext(options.config, async ({ store }) => {
    await requireAccount(store, options.account);
    const list = await store.listBudgets(options.account);
    const now = new Date().toISOString();
    const spent = await Promise.all(list.map((budget) => store.readBudgetSpend(budget.accountId, budget.scope, budget.scopeId, budget.period, now)));
    emit(options, { budgets: list.map((budget, i) => ({ ...publicBudget(budget), spentUsd: formatNanoUsd(spent[i] ?? 0) })) }, () => {
      if (list.length === 0) log.info('no budgets');
      list.forEach((budget, i) => log.log(`${budget.scope} ${budget.scopeId}  USD ${formatNanoUsd(spent[i] ?? 0)} of ${formatNanoUsd(budget.limitNanoUsd)} per ${budget.period}`));
    });
  });
}

export async function removeBudget(this: Command, options: StoreCommandOptions & { account: string; scope: string; id: string }): Promise<void> {
  if (!isBudgetScope(options.scope)) usageError(this, '--scope must be workspace, member or key');
  await withCliContext(options.config, async ({ store }) => {
    const removed = await store.removeBudget(options.account, options.scope as BudgetRecord['scope'], options.id, 'cli');
    if (!removed) throw new CliFailure(`${options.scope} ${options.id} has no budget`);
    emit(options, { removed: { scope: options.scope, id: options.id } }, () => log.success(`removed the budget of ${options.scope} ${options.id}`));
  });
}
