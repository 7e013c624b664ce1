/**
 * The usage read service: what `router usage` prints and what the account app draws, from the same
 * functions over the same rollups, so two views of one account never disagree. Each view is one query.
 * Days are calendar days in an explicit time zone; money is exact (nano-USD sums, printed as decimals).
 */
import type { PlanConfig } from '../config/types.js';
import { quotaPeriod } from '../core/quota-period.js';
import { addSums, emptySums } from '../stores/ledger-rollup.js';
import type { KeyFilter, LedgerRecord, LedgerStore, UsageCell, UsageDimension, UsageRange, UsageSums } from '../stores/ledger-store.js';
import { InvalidReportRangeError, assertTimeZone, localDayRanges, parseDay } from './local-days.js';
import { formatNanoUsd, usdToNano } from './nano-usd.js';
import { isTeamDimension, keysInScope, recordedScopeOf, regroupCellsByTeam, type RegroupDimension, type TeamDimension, type TeamDirectory, type UsageScope } from './usage-attribution.js';

export type UsageGrouping = 'day' | UsageDimension | TeamDimension;
export const USAGE_GROUPINGS: readonly UsageGrouping[] = ['day', 'key', 'route', 'provider', 'model', 'member', 'workspace'];

/**
 * Who holds each key of the account (usage-attribution.ts) and whose usage to report: needed to split
 * by member or workspace, or to report one member's or workspace's usage only.
 */
export interface TeamView {
  directory?: TeamDirectory;
  /** Only the usage of these keys' member and/or workspace (a member sees only their own). */
  scope?: UsageScope;
}

/** The view's scope when it names a member or workspace; undefined for everyone's usage. */
function scopeOf(view: TeamView): UsageScope | undefined {
  return view.scope && (view.scope.personId !== undefined || view.scope.workspaceId !== undefined) ? view.scope : undefined;
}

/**
 * The ledger's key filter of a view: its scope's keys (none when it has no scope), narrowed to one key
 * when given. Only for the splits by model, provider and route, which the attributed rollups do not
 * keep: those follow the keys the member holds (or the workspace has) now; every other scoped view is
 * reckoned by who caused each request (`attributedCells`).
 */
function keyFilterOf(view: TeamView, keyId?: string): KeyFilter | undefined {
  if (scopeOf(view) && !view.directory) throw new Error('a usage view with a scope needs the team directory');
  const inScope = view.directory ? keysInScope(view.directory, view.scope) : undefined;
  if (keyId === undefined) return inScope;
  return inScope === undefined || inScope.includes(keyId) ? [keyId] : [];
}

/** Whether a split is reckoned from the attributed rollups: by member or workspace always, by day or key when scoped. */
function isAttributedSplit(view: TeamView, by: UsageGrouping): by is RegroupDimension {
  return isTeamDimension(by) || ((by === 'day' || by === 'key') && scopeOf(view) !== undefined);
}

/**
 * Per-range cells by `by`, from the split by key and its attributed part (two queries), counting each
 * request for the person and workspace that caused it; with a scope, only theirs (usage-attribution.ts).
 */
async function attributedCells(ledger: LedgerStore, accountId: string, ranges: readonly UsageRange[], view: TeamView, by: RegroupDimension, keyId?: string): Promise<UsageCell[]> {
  const only = keyId === undefined ? undefined : [keyId];
  const [byKey, attributed] = await Promise.all([ledger.sumUsageByRangeAnd(accountId, ranges, 'key', only), ledger.sumAttributedUsage(accountId, ranges, only)]);
  return regroupCellsByTeam(byKey, attributed, directoryFor(view, by), by, scopeOf(view));
}

const withoutRange = ({ range: _range, ...sums }: UsageCell): UsageSums => sums;

/** A scoped view's sums per day, every day with a row (zeros included), as sumUsageByRange gives them. */
async function everyDay(ledger: LedgerStore, query: UsageReportQuery, days: readonly UsageRange[]): Promise<UsageSums[]> {
  const cells = new Map((await attributedCells(ledger, query.accountId, days, query, 'day')).map((cell) => [cell.range, withoutRange(cell)]));
  return days.map((day) => cells.get(day.label) ?? emptySums(day.label));
}

function directoryFor(view: TeamView, by: string): TeamDirectory {
  if (!view.directory) throw new Error(`usage by ${by} needs the team directory`);
  return view.directory;
}

export interface UsageReportQuery extends TeamView {
  accountId: string;
  /** First day, `YYYY-MM-DD`, in `tz`. */
  from: string;
  /** Last day, inclusive, `YYYY-MM-DD`, in `tz`. */
  to: string;
  by: UsageGrouping;
  /** IANA time zone for day boundaries, e.g. `UTC`, `Europe/Berlin`. */
  tz: string;
}

export interface UsageReportRow extends UsageSums {
  /** costNanoUsd as an exact decimal string. */
  costUsd: string;
  /** meteredNanoUsd (managed-access spend) as an exact decimal string. */
  meteredUsd: string;
  /** The cost of each token type as exact decimal strings (they add up to costUsd, less records from before the split). */
  costByTypeUsd: Record<TokenType, string>;
  /** What cache reads saved against the input price, as an exact decimal string. */
  cacheSavingsUsd: string;
  /** What requests answered from the response cache would have cost (their originals' cost), as an exact decimal string. */
  responseCacheSavedUsd: string;
}

/** The token types the ledger prices apart, in the order every view lists them. */
export const TOKEN_TYPES = ['input', 'cacheRead', 'cacheWrite', 'cacheWrite1h', 'output', 'reasoning'] as const;
export type TokenType = (typeof TOKEN_TYPES)[number];

/** Each token type's cost in the sums. */
export const TOKEN_TYPE_COST: Readonly<Record<TokenType, (sums: UsageSums) => number>> = {
  input: (sums) => sums.inputCostNanoUsd,
  cacheRead: (sums) => sums.cacheReadCostNanoUsd,
  cacheWrite: (sums) => sums.cacheWriteCostNanoUsd,
  cacheWrite1h: (sums) => sums.cacheWrite1hCostNanoUsd,
  output: (sums) => sums.outputCostNanoUsd,
  reasoning: (sums) => sums.reasoningCostNanoUsd,
};

export interface UsageReport {
  accountId: string;
  from: string;
  to: string;
  tz: string;
  by: UsageGrouping;
  /** The UTC interval the report covers: [start of `from`, end of `to`) in `tz`. */
  interval: { from: string; to: string };
  /** by=day: every day, zeros included, in order; otherwise one row per value seen, largest cost first. */
  rows: UsageReportRow[];
  /** The rows summed (group null). */
  totals: UsageReportRow;
}

export { InvalidReportRangeError };

export async function usageReport(ledger: LedgerStore, query: UsageReportQuery): Promise<UsageReport> {
  if (!USAGE_GROUPINGS.includes(query.by)) throw new InvalidReportRangeError(`--by must be one of ${USAGE_GROUPINGS.join(', ')}`);
  const days = localDayRanges(query.from, query.to, query.tz);
  const interval = { from: days[0]!.from, to: days[days.length - 1]!.to };
  const by = query.by;
  let sums: UsageSums[];
  if (by === 'day') sums = isAttributedSplit(query, by) ? await everyDay(ledger, query, days) : await ledger.sumUsageByRange(query.accountId, days, keyFilterOf(query));
  else if (isAttributedSplit(query, by)) sums = (await attributedCells(ledger, query.accountId, [{ label: 'all', ...interval }], query, by)).map(withoutRange);
  else sums = await ledger.sumUsageBy(query.accountId, interval.from, interval.to, by, keyFilterOf(query));
  const rows = sums.map(withUsd);
  return { accountId: query.accountId, from: query.from, to: query.to, tz: query.tz, by: query.by, interval, rows, totals: withUsd(total(sums)) };
}

export interface DailyUsageQuery extends Omit<UsageReportQuery, 'by'> {
  /** What each day is split by. */
  by: UsageDimension | TeamDimension;
  /** Only this key's usage (one of the account's keys: the caller checks whose it is). */
  keyId?: string;
}

/** Per-day usage split by one dimension: what the account app charts and tabulates, from one query. */
export interface DailyUsage {
  accountId: string;
  from: string;
  to: string;
  tz: string;
  by: UsageDimension | TeamDimension;
  interval: { from: string; to: string };
  /** Every day of the range, in order. */
  days: string[];
  /** The non-empty (day, value) cells, in day order. */
  cells: UsageCell[];
  /** One row per value over the whole range, largest cost first: `usageReport` with the same `by`. */
  rows: UsageReportRow[];
  /** One row per day, zeros included: `usageReport` with `by: 'day'`. */
  dayTotals: UsageReportRow[];
  totals: UsageReportRow;
}

export async function dailyUsage(ledger: LedgerStore, query: DailyUsageQuery): Promise<DailyUsage> {
  const ranges = localDayRanges(query.from, query.to, query.tz);
  const by = query.by;
  const cells = isAttributedSplit(query, by)
    ? await attributedCells(ledger, query.accountId, ranges, query, by, query.keyId)
    : await ledger.sumUsageByRangeAnd(query.accountId, ranges, by, keyFilterOf(query, query.keyId));
  const byDay = new Map(ranges.map((range) => [range.label, emptySums(range.label)]));
  const byValue = new Map<string | null, UsageSums>();
  for (const cell of cells) {
    addSums(byDay.get(cell.range)!, cell);
    let row = byValue.get(cell.group);
    if (!row) byValue.set(cell.group, (row = emptySums(cell.group)));
    addSums(row, cell);
  }
  // The order sumUsageBy gives: largest cost first, then by value ('' for none sorts first, as in SQL).
  const rows = [...byValue.values()].sort((a, b) => b.costNanoUsd - a.costNanoUsd || ((a.group ?? '') < (b.group ?? '') ? -1 : 1));
  const dayTotals = [...byDay.values()];
  return {
    accountId: query.accountId,
    from: query.from,
    to: query.to,
    tz: query.tz,
    by: query.by,
    interval: { from: ranges[0]!.from, to: ranges[ranges.length - 1]!.to },
    days: ranges.map((range) => range.label),
    cells,
    rows: rows.map(withUsd),
    dayTotals: dayTotals.map(withUsd),
    totals: withUsd(total(dayTotals)),
  };
}

/** Today's date (`YYYY-MM-DD`) in `tz`. */
export function localToday(nowMs: number, tz: string): string {
  assertTimeZone(tz);
  const today = new Intl.DateTimeFormat('en-CA', { timeZone: tz, year: 'numeric', month: '2-digit', day: '2-digit' }).format(new Date(nowMs));
  parseDay(today);
  return today;
}

/** The days from the first of the current month to today in `tz`: the default range of `router usage`. */
export function currentMonthDays(nowMs: number, tz: string): { from: string; to: string } {
  const today = localToday(nowMs, tz);
  return { from: `${today.slice(0, 8)}01`, to: today };
}

/** The last `count` days up to today in `tz`, today included: the account app's chart range. */
export function lastDays(nowMs: number, tz: string, count: number): { from: string; to: string } {
  const today = localToday(nowMs, tz);
  const from = new Date(parseDay(today) - (count - 1) * 86_400_000).toISOString().slice(0, 10);
  return { from, to: today };
}

/** The people usage was recorded for over [from, to] (local days in `tz`), from the attributed rollups (one query). Throws InvalidReportRangeError. */
export async function peopleWithUsage(ledger: LedgerStore, query: { accountId: string; from: string; to: string; tz: string }): Promise<string[]> {
  const days = localDayRanges(query.from, query.to, query.tz);
  const cells = await ledger.sumAttributedUsage(query.accountId, [{ label: 'all', from: days[0]!.from, to: days[days.length - 1]!.to }]);
  return [...new Set(cells.map((cell) => cell.personId).filter((id): id is string => id !== null))];
}

/** When each of the account's keys was last used (one query; keys never used are absent). */
export function lastUsedByKey(ledger: LedgerStore, accountId: string): Promise<{ keyId: string; lastAt: string }[]> {
  return ledger.lastUsedByKey(accountId);
}

export interface ManagedSpend {
  /** `YYYY-MM`, calendar month in UTC (the cap's period, like the monthly quota's). */
  period: string;
  resetsAt: string;
  /** Metered managed-access spend this month. */
  spentUsd: string;
  /** Estimates held for managed requests in flight. */
  reservedUsd: string;
  /** The plan's cap; null when the plan is not resellable. */
  capUsd: string | null;
}

/** The account's managed-access spend against its plan's cap this month (one query). */
export async function managedSpend(ledger: LedgerStore, input: { accountId: string; plan: PlanConfig | undefined; nowMs: number }): Promise<ManagedSpend> {
  const period = quotaPeriod(input.nowMs);
  const standing = await ledger.readSpend(input.accountId, period.key, new Date(input.nowMs).toISOString());
  const cap = input.plan?.managedSpendCapUsd;
  return {
    period: period.key,
    resetsAt: period.resetsAt,
    spentUsd: formatNanoUsd(standing.spentNanoUsd),
    reservedUsd: formatNanoUsd(standing.reservedNanoUsd),
    capUsd: cap === undefined ? null : formatNanoUsd(usdToNano(cap)),
  };
}

/**
 * The account's requests, newest first (one query per page; pass the last row's startedAt as `before`);
 * with a scope, those its person and/or workspace caused (recorded with each request), whoever holds the key now.
 */
export function listRequests(ledger: LedgerStore, input: { accountId: string; before?: string; limit?: number } & TeamView): Promise<LedgerRecord[]> {
  const scope = scopeOf(input);
  const recorded = scope ? recordedScopeOf(directoryFor(input, 'member or workspace'), scope) : undefined;
  return ledger.listRequests({
    accountId: input.accountId,
    limit: Math.min(Math.max(input.limit ?? 50, 1), 500),
    ...(input.before ? { before: input.before } : {}),
    ...(recorded ? { recorded } : {}),
  });
}

/** Sums with their money as exact decimal strings (every report row, the operator's too). */
export function withUsd(sums: UsageSums): UsageReportRow {
  const costByTypeUsd = Object.fromEntries(TOKEN_TYPES.map((type) => [type, formatNanoUsd(TOKEN_TYPE_COST[type](sums))])) as Record<TokenType, string>;
  return { ...sums, costUsd: formatNanoUsd(sums.costNanoUsd), meteredUsd: formatNanoUsd(sums.meteredNanoUsd), costByTypeUsd, cacheSavingsUsd: formatNanoUsd(sums.cacheSavingsNanoUsd), responseCacheSavedUsd: formatNanoUsd(sums.responseCacheSavedNanoUsd) };
}

function total(rows: readonly UsageSums[]): UsageSums {
  const sum = emptySums();
  for (const row of rows) addSums(sum, row);
  return sum;
}
