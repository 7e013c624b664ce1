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
  const [budget, spend] = await Promise.all([keyBudget(deps.store, key), deps.ledger.sumKeySpend(key.accountId, key.id, usageWindowStarts(nowMs))]);
  const limit = budget ? await limitFigures(deps.store, budget, nowMs) : { limit: null, limit_remaining: null, limit_reset: null, include_byok_in_limit: false };
  return {
    label: keyLabel(key),
    name: key.name,
    ...limit,
    ...usageFigures(spend),
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
}

export async function keyBudget(store: BudgetStore, key: Pick<ApiKeyRecord, 'id' | 'accountId'>): Promise<BudgetRecord | undefined> {
  return (await store.listBudgets(key.accountId)).find((budget) => budget.scope === 'key' && budget.scopeId === key.id);
}

async function limitFigures(store: BudgetStore, budget: BudgetRecord, nowMs: number) {
  const spent = await store.readBudgetSpend(budget.accountId, 'key', budget.scopeId, budget.period, new Date(nowMs).toISOString());
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
