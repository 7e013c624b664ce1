/**
 * What the account app reads from the usage ledger: data, never HTML (the app renders it). The
 * composition root supplies the implementation (server/ledger-views.ts) over the same read service
 * `router usage` uses (usage/usage-report.ts), so a page and the CLI never disagree. Every method is
 * one query whatever the number of rows, and every one is scoped to the account it is given.
 */
import type { LedgerRecord } from '../stores/ledger-store.js';
import type { CustomerSupportBundle } from '../usage/support-bundle.js';
import type { DailyUsage, DailyUsageQuery, TeamView, UsageReport, UsageReportQuery } from '../usage/usage-report.js';

export interface LedgerViews {
  /** False when the server keeps no ledger (`ledger.enabled: false`): pages say usage is not recorded. */
  readonly recording: boolean;
  /** When each of the account's keys was last used (keys never used are absent); null when not recording. */
  lastUsed(accountId: string): Promise<ReadonlyMap<string, string> | null>;
  /** Per-day usage split by route, provider, key, model, member or workspace. Throws InvalidReportRangeError for a bad zone or range. */
  daily(query: DailyUsageQuery): Promise<DailyUsage>;
  /** The report `router usage` prints for the same arguments (the CSV export). */
  report(query: UsageReportQuery): Promise<UsageReport>;
  /** The people usage was recorded for over the local days [from, to] in `tz`. Throws InvalidReportRangeError for a bad zone or range. */
  peopleWithUsage(query: { accountId: string; from: string; to: string; tz: string }): Promise<string[]>;
  /** The account's latest requests (their `main` records), newest first; with a scope, those its person and/or workspace caused. */
  recentRequests(accountId: string, limit: number, view?: TeamView): Promise<LedgerRecord[]>;
  /** The redacted bundle of one of the account's requests (with a scope, one its person and/or workspace caused); null when there is no such request. */
  supportBundle(accountId: string, requestId: string, view?: TeamView): Promise<CustomerSupportBundle | null>;
}
