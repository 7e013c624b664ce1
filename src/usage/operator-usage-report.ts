/**
 * Usage of every account at once, for the operator (`router usage` without --account): each account's
 * own report (usage/usage-report.ts) merged, so the operator's totals are by construction the sum of
 * the per-account reports, and every row the sum of the accounts' rows with that value. The ledger's
 * queries are per account; this costs one query per account, which an operator command can afford.
 */
import { addSums, emptySums } from '../stores/ledger-rollup.js';
import type { LedgerStore, UsageSums } from '../stores/ledger-store.js';
import { InvalidReportRangeError, localDayRanges } from './local-days.js';
import { usageReport, withUsd, type UsageReport, type UsageReportRow } from './usage-report.js';

/** `key` is one account's; `account` and `plan` only mean something across accounts. */
export type OperatorGrouping = 'day' | 'account' | 'plan' | 'route' | 'provider' | 'model';
export const OPERATOR_GROUPINGS: readonly OperatorGrouping[] = ['day', 'account', 'plan', 'route', 'provider', 'model'];

export interface OperatorUsageQuery {
  from: string;
  to: string;
  by: OperatorGrouping;
  tz: string;
}

export interface OperatorUsageReport extends Omit<UsageReport, 'accountId' | 'by'> {
  /** Null: every account. */
  accountId: null;
  by: OperatorGrouping;
  /** How many accounts were summed (all of them, with usage or not). */
  accounts: number;
}

/** The accounts to sum, with the plan each is on now (`by: 'plan'` groups by it, not by the plan at the time). */
export interface AccountOfReport {
  id: string;
  plan: string;
}

export async function operatorUsageReport(ledger: LedgerStore, accounts: readonly AccountOfReport[], query: OperatorUsageQuery): Promise<OperatorUsageReport> {
  if (!OPERATOR_GROUPINGS.includes(query.by)) throw new InvalidReportRangeError(`--by must be one of ${OPERATOR_GROUPINGS.join(', ')}`);
  // Also checks the range and zone when there is no account to ask about.
  const days = localDayRanges(query.from, query.to, query.tz);
  const perAccount = query.by === 'account' || query.by === 'plan' ? 'day' : query.by;
  const reports: { account: AccountOfReport; report: UsageReport }[] = [];
  for (const account of accounts) {
    reports.push({ account, report: await usageReport(ledger, { accountId: account.id, from: query.from, to: query.to, tz: query.tz, by: perAccount }) });
  }
  const rows = new Map<string | null, UsageSums>(query.by === 'day' ? days.map((day) => [day.label, emptySums(day.label)]) : []);
  const totals = emptySums();
  for (const { account, report } of reports) {
    addSums(totals, sumsOf(report.totals));
    if (query.by === 'account' || query.by === 'plan') {
      if (report.totals.calls > 0) addInto(rows, query.by === 'account' ? account.id : account.plan, report.totals);
    } else {
      for (const row of report.rows) addInto(rows, row.group, row);
    }
  }
  const merged = [...rows.values()];
  // by=day keeps the days' order; the others the ledger's: largest cost first, then by value ('' for none first).
  if (query.by !== 'day') merged.sort((a, b) => b.costNanoUsd - a.costNanoUsd || ((a.group ?? '') < (b.group ?? '') ? -1 : 1));
  return {
    accountId: null,
    accounts: accounts.length,
    from: query.from,
    to: query.to,
    tz: query.tz,
    by: query.by,
    interval: { from: days[0]!.from, to: days[days.length - 1]!.to },
    rows: merged.map(withUsd),
    totals: withUsd(totals),
  };
}

function addInto(rows: Map<string | null, UsageSums>, group: string | null, add: UsageReportRow): void {
  let row = rows.get(group);
  if (!row) rows.set(group, (row = emptySums(group)));
  addSums(row, sumsOf(add));
}

/** A report row without its USD strings (derived from the sums, so recomputed after adding). */
function sumsOf(row: UsageReportRow): UsageSums {
  const { costUsd: _cost, meteredUsd: _metered, costByTypeUsd: _byType, cacheSavingsUsd: _savings, responseCacheSavedUsd: _hitsSaved, ...sums } = row;
  return sums;
}
