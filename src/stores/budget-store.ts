/**
 * Budgets per workspace, member and key, in nano-USD per day, week, month or in total (keys), shared with
 * the key API (an OpenRouter key's `limit`/`limit_reset` is a key-scope budget): one mechanism, not two.
 * Budgets are hard: the spend gate (usage/spend-gate.ts) holds a request's estimate against every budget
 * that applies before the call, atomically for all instances (LedgerStore.reserveBudgets), and the ledger
 * settles it to the real cost in the transaction that records it (budget-meter.ts).
 */

export type BudgetScope = 'workspace' | 'member' | 'key';
/** day/week/month reset at 00:00 UTC (week: Monday); total never resets. */
export type BudgetPeriod = 'day' | 'week' | 'month' | 'total';

export const BUDGET_SCOPES: readonly BudgetScope[] = ['workspace', 'member', 'key'];
export const BUDGET_PERIODS: readonly BudgetPeriod[] = ['day', 'week', 'month', 'total'];

export interface BudgetRecord {
  accountId: string;
  scope: BudgetScope;
  scopeId: string;
  limitNanoUsd: number;
  period: BudgetPeriod;
  /** Whether requests on the organization's own provider keys count (OpenRouter's include_byok_in_limit). */
  includeByok: boolean;
  createdAt: string;
  updatedAt: string;
}

/** A budget that applies to a request, with the words that name it in a refusal (`workspace "Research"`). */
export interface AppliedBudget {
  record: BudgetRecord;
  label: string;
}

export interface BudgetStore {
  /** Upsert per (account, scope, scopeId); audited as `budget.set`. */
  setBudget(input: Omit<BudgetRecord, 'createdAt' | 'updatedAt'>, actor: string): Promise<BudgetRecord>;
  removeBudget(accountId: string, scope: BudgetScope, scopeId: string, actor: string): Promise<boolean>;
  listBudgets(accountId: string): Promise<BudgetRecord[]>;
  /** Spent (settled + held) in the budget's current period, nano-USD. */
  readBudgetSpend(accountId: string, scope: BudgetScope, scopeId: string, period: BudgetPeriod, at: string): Promise<number>;
  /** readBudgetSpend for several of the account's budgets in one query, in their order (GET /api/v1/keys: the page's key limits at once). */
  readBudgetsSpend(accountId: string, budgets: ReadonlyArray<Pick<BudgetRecord, 'scope' | 'scopeId' | 'period'>>, at: string): Promise<number[]>;
}

/** One budget a request's estimate is held against: its meter row and its limit. */
export interface BudgetHold {
  scope: BudgetScope;
  scopeId: string;
  /** budget-periods.ts's key of the budget's current period. */
  periodKey: string;
  limitNanoUsd: number;
  /** false: only managed spend counts against it (requests on the organization's own keys do not). */
  includeByok: boolean;
}

export interface BudgetReservationInput {
  /** The request's reservation id, which its ledger record names to release every hold it settles. */
  id: string;
  /**
   * The managed-access spend cap, checked and held in the same transaction when the request uses the
   * operator's keys (the cap is then one more limit of the same kind: LedgerStore.reserveSpend's check).
   */
  managedCap?: { period: string; capNanoUsd: number };
  accountId: string;
  holds: readonly BudgetHold[];
  nanoUsd: number;
  /** A reservation not settled by then (its instance crashed) stops counting. */
  expiresAt: string;
  now: string;
}

/** Admitted only when every hold's spent + held was below its limit; otherwise the first that was not. */
export type BudgetReservation =
  | { reserved: true }
  | { reserved: false; refusedBy: BudgetHold | 'managed_cap'; spentNanoUsd: number; reservedNanoUsd: number };

export function isBudgetScope(value: unknown): value is BudgetScope {
  return typeof value === 'string' && (BUDGET_SCOPES as readonly string[]).includes(value);
}

export function isBudgetPeriod(value: unknown): value is BudgetPeriod {
  return typeof value === 'string' && (BUDGET_PERIODS as readonly string[]).includes(value);
}
