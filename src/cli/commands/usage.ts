/**
 * `router usage`: an account's usage from the ledger, by day (in an explicit time zone) or by key,
 * route, provider or model, as a table, one JSON document or CSV; without --account, every account's
 * (usage/operator-usage-report.ts: the per-account reports summed), by day, account, plan, route,
 * provider or model. The numbers are those of the read service the account app uses
 * (usage/usage-report.ts), so every view agrees.
 */
import type { Command } from 'commander';
import { systemClock } from '../../core/clock.js';
import { NotFoundInStoreError } from '../../stores/store.js';
import { OPERATOR_GROUPINGS, operatorUsageReport, type OperatorGrouping, type OperatorUsageReport } from '../../usage/operator-usage-report.js';
import { currentMonthDays, InvalidReportRangeError, USAGE_GROUPINGS, usageReport, type UsageGrouping, type UsageReport, type UsageReportRow } from '../../usage/usage-report.js';
import { withCliContext, withLedgerStore, withStoreOptions, type StoreCommandOptions } from '../cli-context.js';
import { emit, log } from '../cli-io.js';
import { usageReportCsv } from '../../usage/usage-csv.js';
import { usageError } from '../usage-error.js';

interface UsageOptions extends StoreCommandOptions {
  account?: string;
  from?: string;
  to?: string;
  by: string;
  tz: string;
  csv?: boolean;
}

export function registerUsageCommand(program: Command): void {
  withStoreOptions(program.command('usage'))
    .description("usage from the ledger (requests, tokens and cost): an account's by day, key, route, provider or model; without --account every account's, by day, account, plan, route, provider or model")
    .option('--account <id>', "one account's usage (default: every account's)")
    .option('--from <date>', 'first day, YYYY-MM-DD in --tz (default: the first of this month)')
    .option('--to <date>', 'last day, inclusive, YYYY-MM-DD in --tz (default: today)')
    .option('--by <grouping>', `with --account one of ${USAGE_GROUPINGS.join(', ')}; without, one of ${OPERATOR_GROUPINGS.join(', ')}`, 'day')
    .option('--tz <zone>', 'IANA time zone for day boundaries', 'UTC')
    .option('--csv', 'print CSV (a header, one line per row, then the totals)')
    .action(async function (this: Command, options: UsageOptions) {
      if (options.json && options.csv) usageError(this, '--json and --csv exclude each other');
      const groupings: readonly string[] = options.account ? USAGE_GROUPINGS : OPERATOR_GROUPINGS;
      if (!groupings.includes(options.by)) {
        usageError(this, `--by must be one of ${groupings.join(', ')}${options.account ? ' with --account' : ` without --account (${options.by === 'key' ? 'keys belong to one account: add --account' : 'every account'})`}`);
      }
      await withCliContext(options.config, async ({ config, store }) => {
        const report = await withLedgerStore(config, async (ledger) => {
          try {
            const month = currentMonthDays(systemClock.now(), options.tz);
            const range = { from: options.from ?? month.from, to: options.to ?? month.to, tz: options.tz };
            if (!options.account) return await operatorUsageReport(ledger, await store.listAccounts(), { ...range, by: options.by as OperatorGrouping });
            const account = await store.getAccount(options.account);
            if (!account) throw new NotFoundInStoreError('account', options.account);
            return await usageReport(ledger, { ...range, accountId: account.id, by: options.by as UsageGrouping });
          } catch (error) {
            if (error instanceof InvalidReportRangeError) usageError(this, error.message);
            throw error;
          }
        });
        const keyNames = report.by === 'key' && report.accountId ? new Map((await store.listApiKeys(report.accountId)).map((key) => [key.id, key.name])) : new Map<string, string | null>();
        if (options.csv) process.stdout.write(usageReportCsv(report));
        else emit(options, report, () => printTable(report, keyNames));
      });
    });
}

function printTable(report: UsageReport | OperatorUsageReport, keyNames: ReadonlyMap<string, string | null>): void {
  // The table is the command's output (stdout, pipeable); remarks about it are log lines.
  const whose = report.accountId ?? `all ${report.accounts} accounts`;
  process.stdout.write(`usage of ${whose} from ${report.from} to ${report.to} (${report.tz}), by ${report.by}\n`);
  const label = (row: UsageReportRow) => {
    if (row.group === null) return '(none)';
    const name = keyNames.get(row.group);
    return name ? `${row.group} (${name})` : row.group;
  };
  const header = [report.by, 'requests', 'failed', 'prompt', 'cached', 'cache write', 'completion', 'reasoning', 'cost USD', 'cache saved USD'];
  const values = (row: UsageReportRow) =>
    [row.requests, row.failedRequests, row.promptTokens, row.cachedTokens, row.cacheWriteTokens, row.completionTokens, row.reasoningTokens, row.costUsd, row.cacheSavingsUsd].map(String);
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
