/**
 * Reading the budget and guardrail forms (pure; no I/O): every field bounded and checked, an error per
 * field in words a person can act on. Model rules must match at least one model or route profile this
 * router serves, so a typo in an allow list cannot silently refuse every request.
 */
import { globMatches } from '../config/model-globs.js';
import { routeTargets } from '../config/route-targets.js';
import type { RouterConfig } from '../config/types.js';
import { BUDGET_PERIODS, type BudgetPeriod, type BudgetScope } from '../stores/budget-store.js';
import { GUARDRAIL_ENTRY_MAX, GUARDRAIL_LIST_MAX, type GuardrailRules } from '../stores/guardrail-store.js';
import { usdToNano } from '../usage/nano-usd.js';

export const PERIOD_LABELS: Readonly<Record<BudgetPeriod, string>> = { day: 'per day', week: 'per week (from Monday)', month: 'per month', total: 'in total (keys only)' };

export type Parsed<T> = { ok: true; value: T } | { ok: false; errors: Record<string, string> };

export interface BudgetInput {
  limitNanoUsd: number;
  period: BudgetPeriod;
  includeByok: boolean;
}

/** At most 9 whole digits and 9 decimals (nano-USD is the ledger's unit), like `router budgets set --usd`. */
const USD = /^\d{1,9}(\.\d{1,9})?$/;
/** Keeps every limit an exact integer of nano-USD (below 2^53), with room for spend beyond it. */
export const MAX_BUDGET_USD = 1_000_000;

export function parseBudgetForm(form: Readonly<Record<string, string>>, scope: BudgetScope): Parsed<BudgetInput> {
  const errors: Record<string, string> = {};
  const usd = (form.usd ?? '').trim().replace(/^\$/, '');
  if (!USD.test(usd)) errors.usd = 'Enter an amount in USD, such as 25 or 0.50.';
  else if (Number(usd) > MAX_BUDGET_USD) errors.usd = `A budget is at most USD ${MAX_BUDGET_USD.toLocaleString('en-US')}; for no limit, remove the budget.`;
  const period = form.period ?? '';
  if (!(BUDGET_PERIODS as readonly string[]).includes(period)) errors.period = 'Choose a period from the list.';
  else if (period === 'total' && scope !== 'key') errors.period = 'A total budget (one that never resets) is for keys only: choose day, week or month.';
  if (Object.keys(errors).length > 0) return { ok: false, errors };
  return { ok: true, value: { limitNanoUsd: usdToNano(Number(usd)), period: period as BudgetPeriod, includeByok: form.includeByok === 'on' } };
}

/** The names model rules are matched against: route profiles, concrete models, and each target as `provider/model`. */
export function servedModelNames(config: Pick<RouterConfig, 'routes' | 'catalog'>): string[] {
  const names = new Set<string>();
  for (const route of config.routes) {
    names.add(route.id);
    for (const { target } of routeTargets(route)) names.add(`${target.provider}/${target.model}`);
  }
  for (const model of config.catalog.concreteModels) {
    names.add(model.id);
    for (const endpoint of model.endpoints) names.add(`${endpoint.provider}/${endpoint.model}`);
  }
  return [...names].sort();
}

/** What a model list entry may hold: a model id's characters and `*`. */
const ENTRY = /^[A-Za-z0-9._:/@*-]+$/;

/** One model list: entries separated by lines or commas, each a model id or `*` glob that matches something served. */
function parseModelList(raw: string | undefined, field: string, served: readonly string[], errors: Record<string, string>): string[] {
  const entries = [...new Set((raw ?? '').split(/[\n,]+/).map((entry) => entry.trim()).filter((entry) => entry !== ''))];
  if (entries.length > GUARDRAIL_LIST_MAX) {
    errors[field] = `List at most ${GUARDRAIL_LIST_MAX} models (use * to match many).`;
    return [];
  }
  for (const entry of entries) {
    if (entry.length > GUARDRAIL_ENTRY_MAX || !ENTRY.test(entry)) {
      errors[field] = `“${entry.slice(0, 40)}” is not a model id or pattern: use letters, digits, . _ : / @ - and * (at most ${GUARDRAIL_ENTRY_MAX} characters).`;
      return [];
    }
    if (!served.some((name) => globMatches(entry, name))) {
      errors[field] = `“${entry}” matches no model or route profile this router serves (for example router/frontier, openai/* or anthropic/claude-*).`;
      return [];
    }
  }
  return entries;
}

/** The provider checkboxes (`allow.<id>`, `deny.<id>`) of configured providers that are ticked. */
function checkedProviders(form: Readonly<Record<string, string>>, prefix: string, providerIds: readonly string[]): string[] {
  return providerIds.filter((id) => form[`${prefix}.${id}`] === 'on').map((id) => id.toLowerCase());
}

export function parseGuardrailForm(form: Readonly<Record<string, string>>, served: readonly string[], providerIds: readonly string[]): Parsed<GuardrailRules> {
  const errors: Record<string, string> = {};
  const allowed = parseModelList(form.allowedModels, 'allowedModels', served, errors);
  const deniedModels = parseModelList(form.deniedModels, 'deniedModels', served, errors);
  const onlySome = form.providers === 'only';
  const allowedProviders = onlySome ? checkedProviders(form, 'allow', providerIds) : null;
  if (onlySome && allowedProviders!.length === 0) errors.providers = 'Tick at least one provider, or choose “Any provider”.';
  const deniedProviders = checkedProviders(form, 'deny', providerIds);
  const requireZdr = form.requireZdr === 'on';
  if (Object.keys(errors).length > 0) return { ok: false, errors };
  const rules: GuardrailRules = { allowedModels: allowed.length > 0 ? allowed : null, deniedModels, allowedProviders, deniedProviders, requireZdr };
  if (allowsEverything(rules)) return { ok: false, errors: { allowedModels: 'This guardrail would allow everything: set at least one rule, or remove the guardrail instead.' } };
  return { ok: true, value: rules };
}

export function allowsEverything(rules: GuardrailRules): boolean {
  return rules.allowedModels === null && rules.deniedModels.length === 0 && rules.allowedProviders === null && rules.deniedProviders.length === 0 && !rules.requireZdr;
}

/** A guardrail's rules in a few words each, for the lists. */
export function describeRules(rules: GuardrailRules, providerName: (id: string) => string): string[] {
  const parts: string[] = [];
  if (rules.allowedModels !== null) parts.push(`Only models: ${rules.allowedModels.join(', ')}`);
  if (rules.deniedModels.length > 0) parts.push(`Never models: ${rules.deniedModels.join(', ')}`);
  if (rules.allowedProviders !== null) parts.push(`Only providers: ${rules.allowedProviders.map(providerName).join(', ')}`);
  if (rules.deniedProviders.length > 0) parts.push(`Never providers: ${rules.deniedProviders.map(providerName).join(', ')}`);
  if (rules.requireZdr) parts.push('Zero data retention required');
  return parts;
}
