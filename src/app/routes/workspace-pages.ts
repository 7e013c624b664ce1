/**
 * Workspaces and budgets (docs/teams.md): the organization's workspaces with the keys and budget of each,
 * creating (within the plan's maxWorkspaces), renaming them and choosing the default, and hard budgets in USD per day, week or
 * month (or in total, for keys) on a workspace, a member or a key. Everyone reads what their role may see
 * (control-targets.ts); admins and owners write (route-roles.ts). Every change is forgotten by this
 * instance's controls cache at once, so the next request sees it (other instances within its TTL).
 */
import type { Router } from 'h3';
import type { BudgetRecord } from '../../stores/budget-store.js';
import { NotFoundInStoreError } from '../../stores/store.js';
import { WORKSPACE_NAME_MAX, WorkspaceConflictError } from '../../stores/workspace-store.js';
import { formatNanoUsd } from '../../usage/nano-usd.js';
import { parseBudgetForm, PERIOD_LABELS } from '../control-forms.js';
import { allTargets, findTarget, SCOPE_WORDS, targetOptionGroups, visibleTargets, type TargetGroups } from '../control-targets.js';
import { formProblem } from '../form-state.js';
import { errorPage, signedInAction, signedInPage, type PageContext } from '../page-kit.js';
import { roleAllows } from '../route-roles.js';
import type { WebDeps } from '../web-deps.js';

export function registerWorkspacePages(router: Router, deps: WebDeps): void {
  const app = deps.paths.app;
  const { store } = deps;

  async function targetsOf(page: PageContext): Promise<{ groups: TargetGroups; workspaces: Awaited<ReturnType<typeof store.listWorkspaces>>; keys: Awaited<ReturnType<typeof store.listApiKeys>> }> {
    const [workspaces, members, keys] = await Promise.all([store.listWorkspaces(page.account.id), store.listMembers(page.account.id), store.listApiKeys(page.account.id)]);
    return { groups: visibleTargets({ role: page.role, personId: page.person.id }, { workspaces, members, keys, nowMs: deps.clock.now() }), workspaces, keys };
  }

  const maxWorkspacesOf = (page: PageContext): number | null => page.plan?.maxWorkspaces ?? null;
  const planLimitWords = (page: PageContext, max: number) => `The ${page.plan?.name ?? page.account.plan} plan allows ${max} workspace${max === 1 ? '' : 's'}, the default included.`;

  async function view(page: PageContext, extra: Record<string, unknown> = {}, status?: number): Promise<string> {
    const [{ groups, workspaces, keys }, budgets] = await Promise.all([targetsOf(page), store.listBudgets(page.account.id)]);
    const now = new Date(deps.clock.now()).toISOString();
    const targets = new Map(allTargets(groups).map((target) => [target.value, target]));
    const shown = budgets.filter((budget) => targets.has(`${budget.scope}:${budget.scopeId}`));
    const spent = await Promise.all(shown.map((budget) => store.readBudgetSpend(page.account.id, budget.scope, budget.scopeId, budget.period, now)));
    const budgetViews = shown.map((budget, i) => budgetView(budget, spent[i] ?? 0, targets.get(`${budget.scope}:${budget.scopeId}`)!.label));
    const budgetOf = new Map(budgetViews.map((budget) => [`${budget.scope}:${budget.scopeId}`, budget]));
    const defaultId = workspaces.find((workspace) => workspace.isDefault)?.id;
    const live = keys.filter((key) => key.revokedAt === null && groups.keys.some((target) => target.id === key.id));
    const maxWorkspaces = maxWorkspacesOf(page);
    return page.view(
      'workspaces',
      {
        title: 'Workspaces',
        manages: roleAllows(page.role, 'admin'),
        nameMax: WORKSPACE_NAME_MAX,
        atLimit: maxWorkspaces !== null && workspaces.length >= maxWorkspaces,
        limitWords: maxWorkspaces === null ? null : planLimitWords(page, maxWorkspaces),
        workspaces: workspaces.map((workspace) => ({
          ...workspace,
          keyCount: live.filter((key) => (key.workspaceId ?? defaultId) === workspace.id).length,
          budget: budgetOf.get(`workspace:${workspace.id}`) ?? null,
        })),
        budgets: budgetViews,
        targetGroups: targetOptionGroups(groups),
        periods: Object.entries(PERIOD_LABELS).map(([value, label]) => ({ value, label })),
        ...extra,
      },
      status ? { status } : {},
    );
  }

  /** The budget as the list shows it: limit, what its current period has spent (settled and held), the share used. */
  function budgetView(budget: BudgetRecord, spentNano: number, label: string) {
    const share = budget.limitNanoUsd > 0 ? Math.min(100, Math.round((spentNano / budget.limitNanoUsd) * 100)) : 100;
    return {
      scope: budget.scope,
      scopeId: budget.scopeId,
      scopeWord: SCOPE_WORDS[budget.scope],
      label,
      limitUsd: formatNanoUsd(budget.limitNanoUsd),
      spentUsd: formatNanoUsd(spentNano),
      share,
      periodLabel: PERIOD_LABELS[budget.period].replace(/ \(.*\)$/, ''),
      includeByok: budget.includeByok,
    };
  }

  const changed = (page: PageContext) => deps.controls.forget(page.account.id);

  router.get(`${app}/workspaces`, signedInPage(deps, (_event, page) => view(page)));

  router.post(
    `${app}/workspaces`,
    signedInAction(deps, async (_event, page, form) => {
      const name = (form.name ?? '').trim();
      const again = (message: string, status: number) => view(page, formProblem(`${app}/workspaces`, form, { name: message }), status);
      if (name.length === 0 || name.length > WORKSPACE_NAME_MAX) return again(`Give the workspace a name of 1 to ${WORKSPACE_NAME_MAX} characters.`, 400);
      const max = maxWorkspacesOf(page);
      if (max !== null && (await store.listWorkspaces(page.account.id)).length >= max) {
        const upgrade = page.role === 'owner' ? 'Upgrade the plan on the Billing page for more.' : 'An owner can upgrade the plan for more.';
        return again(`${planLimitWords(page, max)} ${upgrade}`, 409);
      }
      try {
        const workspace = await store.createWorkspace({ accountId: page.account.id, name }, page.actor);
        return view(page, { notice: `Workspace ${workspace.name} created. Keys made in it count against its budget and follow its guardrail.` });
      } catch (error) {
        if (error instanceof WorkspaceConflictError) return again(`A workspace named like that already exists (${error.slug}). Choose another name.`, 409);
        throw error;
      }
    }),
  );

  router.post(
    `${app}/workspaces/:id/rename`,
    signedInAction(deps, async (event, page, form) => {
      const id = event.context.params?.id ?? '';
      const name = (form.name ?? '').trim();
      const action = `${app}/workspaces/${id}/rename`;
      if (name.length === 0 || name.length > WORKSPACE_NAME_MAX) return view(page, formProblem(action, form, { name: `Give the workspace a name of 1 to ${WORKSPACE_NAME_MAX} characters.` }), 400);
      try {
        const renamed = await store.renameWorkspace(page.account.id, id, name, page.actor);
        changed(page);
        return view(page, { notice: `Workspace renamed to ${renamed.name}.` });
      } catch (error) {
        if (error instanceof NotFoundInStoreError) return errorPage(deps, event, 404, 'No such workspace', 'This workspace does not exist in your organization.');
        if (error instanceof WorkspaceConflictError) return view(page, formProblem(action, form, { name: `A workspace named like that already exists (${error.slug}). Choose another name.` }), 409);
        throw error;
      }
    }),
  );

  router.post(
    `${app}/workspaces/:id/default`,
    signedInAction(deps, async (event, page) => {
      try {
        const workspace = await store.setDefaultWorkspace(page.account.id, event.context.params?.id ?? '', page.actor);
        changed(page);
        return view(page, { notice: `${workspace.name} is now the default workspace: keys without a workspace of their own are in it from now on.` });
      } catch (error) {
        if (error instanceof NotFoundInStoreError) return errorPage(deps, event, 404, 'No such workspace', 'This workspace does not exist in your organization.');
        throw error;
      }
    }),
  );

  router.post(
    `${app}/budgets`,
    signedInAction(deps, async (_event, page, form) => {
      const { groups } = await targetsOf(page);
      const target = findTarget(groups, form.target);
      const action = `${app}/budgets`;
      if (!target) return view(page, formProblem(action, form, { target: 'Choose a workspace, member or key from the list.' }), 400);
      const parsed = parseBudgetForm(form, target.scope);
      if (!parsed.ok) return view(page, formProblem(action, form, parsed.errors), 400);
      const budget = await store.setBudget({ accountId: page.account.id, scope: target.scope, scopeId: target.id, ...parsed.value }, page.actor);
      changed(page);
      return view(page, { notice: `Budget of ${target.label} set: USD ${formatNanoUsd(budget.limitNanoUsd)} ${PERIOD_LABELS[budget.period].replace(/ \(.*\)$/, '')}. Requests over it are refused before they reach a provider.` });
    }),
  );

  router.post(
    `${app}/budgets/remove`,
    signedInAction(deps, async (_event, page, form) => {
      const { groups } = await targetsOf(page);
      const target = findTarget(groups, form.target);
      if (!target) return view(page, { problem: 'Choose a workspace, member or key from the list.' }, 400);
      const removed = await store.removeBudget(page.account.id, target.scope, target.id, page.actor);
      changed(page);
      return removed ? view(page, { notice: `Budget of ${target.label} removed.` }) : view(page, { problem: `${target.label} has no budget.` }, 404);
    }),
  );
}
