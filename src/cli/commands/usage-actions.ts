/** What `router usage` runs (defined in usage.ts), loaded only when it runs. */
import type { Command } from 'commander';
import { systemClock } from '../../core/clock.js';
import { NotFoundInStoreError } from '../../stores/store.js';
import { OPERATOR_GROUPINGS, operatorUsageReport, type OperatorGrouping, type OperatorUsageReport } from '../../usage/operator-usage-report.js';
import { currentMonthDays, InvalidReportRangeError, USAGE_GROUPINGS, usageReport, type UsageGrouping, type UsageReport, type UsageReportRow } from '../../usage/usage-report.js';
import { withCliContext, withLedgerStore } from '../cli-context.js';
import type { StoreCommandOptions } from '../store-options.js';
import { emit, log } from '../cli-io.js';
import { usageReportCsv } from '../../usage/usage-csv.js';
import { isTeamDimension, loadTeamDirectory, rowTeams, withRecordedPeople, type RowTeam, type TeamDirectory, type UsageScope } from '../../usage/usage-attribution.js';
import { usageError } from '../usage-error.js';

interface UsageOptions extends StoreCommandOptions {
  account?: string;
  from?: string;
  to?: string;
  by: string;
  tz: string;
  csv?: boolean;
  member?: string;
  workspace?: string;
}

/** The scope --member (an email) and --workspace (a name or id) name; throws NotFoundInStoreError for one the account does not have. */
function scopeOf(directory: TeamDirectory, options: Pick<UsageOptions, 'member' | 'workspace'>): UsageScope {
  const scope: UsageScope = {};
  if (options.member !== undefined) {
    const email = options.member.trim().toLowerCase();
    const person = [...directory.people].find(([, address]) => address === email);
    if (!person) throw new NotFoundInStoreError('member', options.member);
    scope.personId = person[0];
  }
  if (options.workspace !== undefined) {
    const wanted = options.workspace.trim();
    const workspace = [...directory.workspaces].find(([id, name]) => id === wanted || name.toLowerCase() === wanted.toLowerCase());
    if (!workspace) throw new NotFoundInStoreError('workspace', options.workspace);
    scope.workspaceId = workspace[0];
  }
  return scope;
}

export async function showUsage(this: Command, options: UsageOptions): Promise<void> {
  if (options.json && options.csv) usageError(this, '--json and --csv exclude each other');
  if (!options.account && (options.member !== undefined || options.workspace !== undefined)) usageError(this, '--member and --workspace need --account (members and workspaces belong to one account)');
  const groupings: readonly string[] = options.account ? USAGE_GROUPINGS : OPERATOR_GROUPINGS;
  if (!groupings.includes(options.by)) {
    const oneAccounts = options.by === 'key' || isTeamDimension(options.by);
    usageError(this, `--by must be one of ${groupings.join(', ')}${options.account ? ' with --account' : ` without --account (${oneAccounts ? `${options.by}s belong to one account: add --account` : 'every account'})`}`);
  }
  await withCliContext(options.config, async ({ config, store }) => {
    // Who holds each key of the account: the member and workspace columns, splits and filters.
    let team: { directory: TeamDirectory; scope: UsageScope } | null = null;
    const report = await withLedgerStore(config, async (ledger) => {
      try {
        const month = currentMonthDays(systemClock.now(), options.tz);
        const range = { from: options.from ?? month.from, to: options.to ?? month.to, tz: options.tz };
        if (!options.account) return await operatorUsageReport(ledger, await store.listAccounts(), { ...range, by: options.by as OperatorGrouping });
        const account = await store.getAccount(options.account);
        if (!account) throw new NotFoundInStoreError('account', options.account);
        const directory = await loadTeamDirectory(store, account.id);
        team = { directory, scope: scopeOf(directory, options) };
        return await usageReport(ledger, { ...range, accountId: account.id, by: options.by as UsageGrouping, ...team });
      } catch (error) {
        if (error instanceof InvalidReportRangeError) usageError(this, error.message);
        throw error;
      }
    });
    // Assigned in the callback above, which TypeScript's narrowing does not follow.
    const resolved = team as { directory: TeamDirectory; scope: UsageScope } | null;
    const teamOf = resolved ? rowTeams(await withRecordedPeople(store, resolved.directory, report.by, report.rows.map((row) => row.group)), report.by, resolved.scope) : undefined;
    const keyNames = report.by === 'key' && report.accountId ? new Map((await store.listApiKeys(report.accountId)).map((key) => [key.id, key.name])) : new Map<string, string | null>();
    if (options.csv) process.stdout.write(usageReportCsv(report, teamOf));
    else if (teamOf) {
      // Each row says whose usage it is, as the CSV's member and workspace columns do.
      const withTeam = { ...report, rows: report.rows.map((row) => ({ ...row, ...teamOf(row.group) })), totals: { ...report.totals, ...teamOf(undefined) } };
      emit(options, withTeam, () => printTable(report, keyNames, teamOf));
    } else emit(options, report, () => printTable(report, keyNames));
  });
}

function printTable(report: UsageReport | OperatorUsageReport, keyNames: ReadonlyMap<string, string | null>, teamOf?: (group: string | null | undefined) => RowTeam): void {
  // The table is the command's output (stdout, pipeable); remarks about it are log lines.
  const whose = report.accountId ?? `all ${report.accounts} accounts`;
  const scope = teamOf?.(undefined);
  const only = [scope?.member ? `member ${scope.member}` : '', scope?.workspace ? `workspace ${scope.workspace}` : ''].filter(Boolean).join(', ');
  process.stdout.write(`usage of ${whose}${only ? ` (${only} only)` : ''} from ${report.from} to ${report.to} (${report.tz}), by ${report.by}\n`);
  const label = (row: UsageReportRow) => {
    if (row.group === null) return report.by === 'member' ? '(no member)' : '(none)';
    if (report.by === 'member') return teamOf?.(row.group).member ?? row.group;
    if (report.by === 'workspace') return `${teamOf?.(row.group).workspace ?? row.group} (${row.group})`;
    const name = keyNames.get(row.group);
    return name ? `${row.group} (${name})` : row.group;
  };
  const header = [report.by, 'requests', 'failed', 'prompt', 'cached', 'cache write', 'completion', 'reasoning', 'cost USD', 'cache saved USD', 'cache hits', 'hits saved USD'];
  const values = (row: UsageReportRow) =>
    [row.requests, row.failedRequests, row.promptTokens, row.cachedTokens, row.cacheWriteTokens, row.completionTokens, row.reasoningTokens, row.costUsd, row.cacheSavingsUsd, row.responseCacheHits, row.responseCacheSavedUsd].map(String);
  const cells = report.rows.map((row) => [label(row), ...values(row)]);
  cells.push(['total', ...values(report.totals)]);
  process.stdout.write(alignedTable(header, cells));
  // The total's cost split by token type (the parts add up to the cost, less records from before the split).
  const { costByTypeUsd: byType, cacheWrite1hTokens } = report.totals;
  process.stdout.write(
    `\ncost by token type, USD: input ${byType.input}, cache read ${byType.cacheRead}, cache write 5m ${byType.cacheWrite}, ` +
      `cache write 1h ${byType.cacheWrite1h} (${cacheWrite1hTokens} tokens), output ${byType.output}, reasoning ${byType.reasoning}\n`,
  );
  if (report.totals.unknownUsageCalls > 0) log.warn(`${report.totals.unknownUsageCalls} calls were served without usage from the upstream: their tokens and cost are unknown, not counted`);
  if (report.totals.unpricedCalls > 0) log.warn(`${report.totals.unpricedCalls} calls used models without a price in providers.yaml: their cost is not counted`);
  if (report.totals.meteredNanoUsd > 0) log.info(`managed-access spend in this range: USD ${report.totals.meteredUsd}`);
}

/** Columns padded to their widest cell: the first left-aligned, numbers right-aligned. */
function alignedTable(header: readonly string[], cells: readonly (readonly string[])[]): string {
  const widths = header.map((title, column) => Math.max(title.length, ...cells.map((row) => row[column]!.length)));
  const line = (values: readonly string[]) => values.map((value, column) => (column === 0 ? value.padEnd(widths[column]!) : value.padStart(widths[column]!))).join('  ');
  return `${[line(header), ...cells.map(line)].join('\n')}\n`;
}
