/**
 * Guardrails (docs/teams.md): allowed and denied models and providers and a zero-data-retention
 * requirement on a workspace, a member or a key, and, per key, which guardrails and budgets apply to it
 * (its workspace's, its member's and its own: their intersection is what the key may use). The
 * `guardrail_denied` and `budget_exceeded` errors link here. Everyone reads what their role may see;
 * admins and owners write (route-roles.ts). A change is forgotten by this instance's controls cache at once.
 */
import { getQuery, type Router } from 'h3';
import { controlsFor } from '../../accounts/account-controls.js';
import type { BudgetScope } from '../../stores/budget-store.js';
import type { GuardrailRecord, GuardrailRules } from '../../stores/guardrail-store.js';
import { describeRules, parseGuardrailForm, servedModelNames } from '../control-forms.js';
import { allTargets, findTarget, SCOPE_WORDS, targetOptionGroups, visibleTargets, type ControlTarget } from '../control-targets.js';
import { formProblem } from '../form-state.js';
import { signedInAction, signedInPage, type PageContext } from '../page-kit.js';
import { roleAllows } from '../route-roles.js';
import type { WebDeps } from '../web-deps.js';

export function registerGuardrailPages(router: Router, deps: WebDeps): void {
  const app = deps.paths.app;
  const { store } = deps;
  const providers = deps.config.providers.providers.map((provider) => ({ id: provider.id.toLowerCase(), name: provider.name, zdr: provider.policy?.retentionDays === 0 }));
  const providerIds = providers.map((provider) => provider.id);
  const providerName = (id: string) => providers.find((provider) => provider.id === id)?.name ?? id;
  const served = servedModelNames(deps.config);
  const profiles = deps.config.routes.map((route) => route.id);

  async function read(page: PageContext) {
    const [workspaces, members, keys, guardrails, budgets] = await Promise.all([
      store.listWorkspaces(page.account.id),
      store.listMembers(page.account.id),
      store.listApiKeys(page.account.id),
      store.listGuardrails(page.account.id),
      store.listBudgets(page.account.id),
    ]);
    const groups = visibleTargets({ role: page.role, personId: page.person.id }, { workspaces, members, keys, nowMs: deps.clock.now() });
    return { workspaces, keys, guardrails, budgets, groups };
  }

  async function view(page: PageContext, extra: Record<string, unknown> = {}, status?: number, editTarget?: string): Promise<string> {
    const { workspaces, keys, guardrails, budgets, groups } = await read(page);
    const targets = new Map(allTargets(groups).map((target) => [target.value, target]));
    const labelOf = (scope: string, id: string) => targets.get(`${scope}:${id}`)?.label ?? id;
    const shown = guardrails.filter((guardrail) => targets.has(`${guardrail.scope}:${guardrail.scopeId}`));
    // A key's own guardrail or budget reads "its own"; the others name their workspace or member.
    const appliedWords = (scope: BudgetScope, id: string) => (scope === 'key' ? 'Its own' : `${SCOPE_WORDS[scope]} ${labelOf(scope, id)}`);
    // Per key: what applies to it, through the same function the pipeline uses (accounts/account-controls.ts).
    const applying = groups.keys.map((target) => {
      const key = keys.find((candidate) => candidate.id === target.id)!;
      const applied = controlsFor({ workspaces, budgets, guardrails }, { accountId: page.account.id, keyId: key.id, workspaceId: key.workspaceId, personId: key.personId });
      const workspace = workspaces.find((candidate) => candidate.id === applied.workspaceId);
      return {
        label: target.label,
        workspace: workspace?.name ?? '—',
        guardrails: applied.guardrails.map((guardrail) => ({ words: appliedWords(guardrail.scope, guardrail.scopeId), anchor: `guardrail-${guardrail.scope}-${guardrail.scopeId}` })),
        budgets: applied.budgets.map((budget) => appliedWords(budget.record.scope, budget.record.scopeId)),
      };
    });
    const editing = editTarget ? targets.get(editTarget) : undefined;
    const current = editing ? guardrails.find((guardrail) => guardrail.scope === editing.scope && guardrail.scopeId === editing.id) : undefined;
    return page.view(
      'guardrails',
      {
        title: 'Guardrails',
        manages: roleAllows(page.role, 'admin'),
        guardrails: shown.map((guardrail) => ({
          scopeWord: SCOPE_WORDS[guardrail.scope],
          label: labelOf(guardrail.scope, guardrail.scopeId),
          target: `${guardrail.scope}:${guardrail.scopeId}`,
          anchor: `guardrail-${guardrail.scope}-${guardrail.scopeId}`,
          rules: describeRules(guardrail, providerName),
        })),
        applying,
        targetGroups: targetOptionGroups(groups),
        providers,
        profiles,
        editingTarget: editing?.value ?? '',
        editing: current ? formValues(current) : null,
        ...extra,
      },
      status ? { status } : {},
    );
  }

  router.get(
    `${app}/guardrails`,
    signedInPage(deps, (event, page) => {
      const target = getQuery(event).target;
      return view(page, {}, undefined, typeof target === 'string' ? target.slice(0, 200) : undefined);
    }),
  );

  router.post(
    `${app}/guardrails`,
    signedInAction(deps, async (_event, page, form) => {
      const { groups } = await read(page);
      const target = findTarget(groups, form.target);
      const action = `${app}/guardrails`;
      if (!target) return view(page, formProblem(action, form, { target: 'Choose a workspace, member or key from the list.' }), 400);
      const parsed = parseGuardrailForm(form, served, providerIds);
      if (!parsed.ok) return view(page, formProblem(action, form, parsed.errors), 400);
      await store.setGuardrail({ accountId: page.account.id, scope: target.scope, scopeId: target.id, ...parsed.value }, page.actor);
      deps.controls.forget(page.account.id);
      return view(page, { notice: `Guardrail of ${describeTarget(target)} saved: ${describeRules(parsed.value, providerName).join('; ')}.` });
    }),
  );

  router.post(
    `${app}/guardrails/remove`,
    signedInAction(deps, async (_event, page, form) => {
      const { groups } = await read(page);
      const target = findTarget(groups, form.target);
      if (!target) return view(page, { problem: 'Choose a workspace, member or key from the list.' }, 400);
      const removed = await store.removeGuardrail(page.account.id, target.scope, target.id, page.actor);
      deps.controls.forget(page.account.id);
      return removed ? view(page, { notice: `Guardrail of ${describeTarget(target)} removed.` }) : view(page, { problem: `${describeTarget(target)} has no guardrail.` }, 404);
    }),
  );
}

function describeTarget(target: ControlTarget): string {
  return `${SCOPE_WORDS[target.scope].toLowerCase()} ${target.label}`;
}

/** An existing guardrail as the form's fields, to edit it. */
function formValues(rules: GuardrailRecord | GuardrailRules): Record<string, string> {
  return {
    allowedModels: (rules.allowedModels ?? []).join('\n'),
    deniedModels: rules.deniedModels.join('\n'),
    providers: rules.allowedProviders === null ? 'any' : 'only',
    ...Object.fromEntries((rules.allowedProviders ?? []).map((id) => [`allow.${id}`, 'on'])),
    ...Object.fromEntries(rules.deniedProviders.map((id) => [`deny.${id}`, 'on'])),
    ...(rules.requireZdr ? { requireZdr: 'on' } : {}),
  };
}
