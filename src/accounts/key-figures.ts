/**
 * A key as OpenRouter's key API shows it (`GET /api/v1/key`, `/api/v1/keys`): its spend limit (the
 * key-scope budget, stores/budget-store.ts: one mechanism with the organization's budgets), its cost per
 * UTC window from the usage ledger's rollups (the same rows the app's usage page sums), its kind, expiry
 * and state. Amounts are USD numbers, exact to the nano-USD the ledger keeps.
 *
 * `usage` is the cost of the key's requests served on the operator's provider keys (managed access),
 * `byok_usage` the cost of those served on the organization's own provider keys: together they are the
 * key's cost on the app's usage page. The limit counts `usage`, plus `byok_usage` when
 * `include_byok_in_limit` is set.
 */
import type { ApiKeyRecord } from '../stores/store.js';
import type { BudgetPeriod, BudgetRecord, BudgetStore } from '../stores/budget-store.js';
import type { KeySpendWindows, LedgerStore } from '../stores/ledger-store.js';

const NANO_PER_USD = 1e9;
const DAY_MS = 86_400_000;

/** OpenRouter's limit_reset, and the budget period it is. */
export type LimitReset = 'daily' | 'weekly' | 'monthly';
export const LIMIT_RESETS: readonly LimitReset[] = ['daily', 'weekly', 'monthly'];
const PERIOD_OF_RESET: Readonly<Record<LimitReset, BudgetPeriod>> = { daily: 'day', weekly: 'week', monthly: 'month' };

export function budgetPeriodOf(reset: LimitReset | null): BudgetPeriod {
  return reset === null ? 'total' : PERIOD_OF_RESET[reset];
}

export function limitResetOf(period: BudgetPeriod): LimitReset | null {
  return period === 'day' ? 'daily' : period === 'week' ? 'weekly' : period === 'month' ? 'monthly' : null;
}

/** nano-USD as a USD number (the ledger's integers divided once; exact to the nano-USD in print). */
export function usd(nano: number): number {
  return nano / NANO_PER_USD;
}

/** Start (ISO) of the UTC day, week (Monday) and month that hold `nowMs`: the windows of usage_daily|weekly|monthly. */
export function usageWindowStarts(nowMs: number): Record<'day' | 'week' | 'month', string> {
  const dayStart = Math.floor(nowMs / DAY_MS) * DAY_MS;
  const weekday = (((Math.floor(nowMs / DAY_MS) + 3) % 7) + 7) % 7; // 1970-01-01 was a Thursday
  const at = new Date(nowMs);
  return {
    day: new Date(dayStart).toISOString(),
    week: new Date(dayStart - weekday * DAY_MS).toISOString(),
    month: new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), 1)).toISOString(),
  };
}

/** The key's masked display: never more of the secret than the app lists. */
export function keyLabel(key: Pick<ApiKeyRecord, 'prefix' | 'last4'>): string {
  return `${key.prefix}…${key.last4}`;
}

export interface KeyFiguresDeps {
  store: BudgetStore;
  ledger: LedgerStore;
}

/** The fields /v1/key and /v1/keys share, in OpenRouter's names. */
export async function keyFigures(deps: KeyFiguresDeps, key: ApiKeyRecord, nowMs: number): Promise<Record<string, unknown>> {
  return (await keysFigures(deps, [key], nowMs))[0]!;
}

/**
 * keyFigures for a page of one organization's keys with a fixed number of store queries, whatever
 * their number (GET /api/v1/keys): the budgets, the spend of the key budgets among them and the
 * ledger's windows, each once for the whole page.
 */
export async function keysFigures(deps: KeyFiguresDeps, keys: readonly ApiKeyRecord[], nowMs: number): Promise<Record<string, unknown>[]> {
  const accountId = keys[0]?.accountId;
  if (accountId === undefined) return [];
  if (keys.some((key) => key.accountId !== accountId)) throw new Error('keysFigures: keys of one organization only');
  const ids = keys.map((key) => key.id);
  const [budgets, spend] = await Promise.all([keyBudgets(deps.store, accountId, ids), deps.ledger.sumKeysSpend(accountId, ids, usageWindowStarts(nowMs))]);
  const limited = [...budgets.values()];
  const spent = await deps.store.readBudgetsSpend(accountId, limited, new Date(nowMs).toISOString());
  const spentByKey = new Map(limited.map((budget, index) => [budget.scopeId, spent[index] ?? 0]));
  return keys.map((key) => {
    const budget = budgets.get(key.id);
    return {
      label: keyLabel(key),
      name: key.name,
      ...(budget ? limitFigures(budget, spentByKey.get(key.id) ?? 0) : NO_LIMIT),
      ...usageFigures(spend.get(key.id)!),
      is_management_key: key.kind === 'management',
      // OpenRouter's older name for a management key.
      is_provisioning_key: key.kind === 'management',
      disabled: key.disabledAt !== null,
      expires_at: key.expiresAt,
      created_at: key.createdAt,
      updated_at: key.updatedAt,
      workspace_id: key.workspaceId,
      creator_user_id: null,
    };
  });
}

const NO_LIMIT = { limit: null, limit_remaining: null, limit_reset: null, include_byok_in_limit: false };

export async function keyBudget(store: BudgetStore, key: Pick<ApiKeyRecord, 'id' | 'accountId'>): Promise<BudgetRecord | undefined> {
  return (await keyBudgets(store, key.accountId, [key.id])).get(key.id);
}

/** The key-scope budgets of these keys of the organization, by key id (one query). */
async function keyBudgets(store: BudgetStore, accountId: string, keyIds: readonly string[]): Promise<Map<string, BudgetRecord>> {
  const wanted = new Set(keyIds);
  return new Map((await store.listBudgets(accountId)).filter((budget) => budget.scope === 'key' && wanted.has(budget.scopeId)).map((budget) => [budget.scopeId, budget]));
}

function limitFigures(budget: BudgetRecord, spent: number) {
  return {
    limit: usd(budget.limitNanoUsd),
    limit_remaining: usd(Math.max(0, budget.limitNanoUsd - spent)),
    limit_reset: limitResetOf(budget.period),
    include_byok_in_limit: budget.includeByok,
  };
}

function usageFigures(spend: KeySpendWindows) {
  return {
    usage: usd(spend.total.managedNanoUsd),
    usage_daily: usd(spend.day.managedNanoUsd),
    usage_weekly: usd(spend.week.managedNanoUsd),
    usage_monthly: usd(spend.month.managedNanoUsd),
    byok_usage: usd(spend.total.byokNanoUsd),
    byok_usage_daily: usd(spend.day.byokNanoUsd),
    byok_usage_weekly: usd(spend.week.byokNanoUsd),
    byok_usage_monthly: usd(spend.month.byokNanoUsd),
  };
}
