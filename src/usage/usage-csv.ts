/**
 * Usage reports as CSV (RFC 4180): `router usage --csv` and the account app's export are this one
 * function, so a spreadsheet made from either has the same header, rows and totals.
 */
import type { RowTeam } from './usage-attribution.js';
import type { UsageReport, UsageReportRow } from './usage-report.js';

const COLUMNS: readonly [string, (row: UsageReportRow) => string | number][] = [
  ['requests', (row) => row.requests],
  ['failed_requests', (row) => row.failedRequests],
  ['calls', (row) => row.calls],
  ['prompt_tokens', (row) => row.promptTokens],
  ['completion_tokens', (row) => row.completionTokens],
  ['reasoning_tokens', (row) => row.reasoningTokens],
  ['cached_tokens', (row) => row.cachedTokens],
  ['unknown_usage_calls', (row) => row.unknownUsageCalls],
  ['unpriced_calls', (row) => row.unpricedCalls],
  ['cost_usd', (row) => row.costUsd],
  ['managed_spend_usd', (row) => row.meteredUsd],
  // Token types and their cost (appended, so spreadsheets made from the columns above keep working).
  ['cache_write_tokens', (row) => row.cacheWriteTokens],
  ['cache_write_1h_tokens', (row) => row.cacheWrite1hTokens],
  ['input_cost_usd', (row) => row.costByTypeUsd.input],
  ['cache_read_cost_usd', (row) => row.costByTypeUsd.cacheRead],
  ['cache_write_cost_usd', (row) => row.costByTypeUsd.cacheWrite],
  ['cache_write_1h_cost_usd', (row) => row.costByTypeUsd.cacheWrite1h],
  ['output_cost_usd', (row) => row.costByTypeUsd.output],
  ['reasoning_cost_usd', (row) => row.costByTypeUsd.reasoning],
  ['cache_savings_usd', (row) => row.cacheSavingsUsd],
  ['response_cache_hits', (row) => row.responseCacheHits],
  ['response_cache_saved_usd', (row) => row.responseCacheSavedUsd],
];

/**
 * A header, one line per row (the group's value; empty for none), then a `total` line; CRLF-free,
 * newline-terminated. The last two columns say whose usage a line is (usage-attribution.ts `rowTeams`:
 * the member's email and the workspace's name, empty for everyone's); without `teamOf` (every account's
 * report) they are empty.
 */
export function usageReportCsv(report: Pick<UsageReport, 'rows' | 'totals'> & { by: string }, teamOf?: (group: string | null | undefined) => RowTeam): string {
  const team = (group: string | null | undefined) => {
    const of = teamOf?.(group);
    return [csvField(of?.member ?? ''), csvField(of?.workspace ?? '')];
  };
  const line = (first: string, row: UsageReportRow, group: string | null | undefined) => [csvField(first), ...COLUMNS.map(([, pick]) => pick(row)), ...team(group)].join(',');
  const lines = [[report.by, ...COLUMNS.map(([name]) => name), 'member', 'workspace'].join(',')];
  for (const row of report.rows) lines.push(line(row.group ?? '', row, row.group));
  lines.push(line('total', report.totals, undefined));
  return `${lines.join('\n')}\n`;
}

/**
 * One field, quoted when it must be (RFC 4180: a comma, a double quote, CR or LF; quotes doubled). A
 * value a spreadsheet would run as a formula (`=`, `+`, `-`, `@`, tab or CR first) is quoted too and
 * led by an apostrophe, so opening an export never executes anything in it.
 */
export function csvField(value: string): string {
  const inert = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return inert !== value || /[",\n\r]/.test(inert) ? `"${inert.replaceAll('"', '""')}"` : inert;
}
