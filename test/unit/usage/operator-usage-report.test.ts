/**
 * `router usage` without --account: every account's usage, whatever the records, zone and grouping, is
 * the per-account reports summed: its totals equal the sum of theirs, its rows the sum of their rows
 * with the same value (by account: each account's totals; by plan: its accounts' totals).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { addSums, emptySums } from '../../../src/stores/ledger-rollup.js';
import type { UsageSums } from '../../../src/stores/ledger-store.js';
import { createSqliteLedgerStore } from '../../../src/stores/sqlite/create-sqlite-ledger-store.js';
import { operatorUsageReport, OPERATOR_GROUPINGS } from '../../../src/usage/operator-usage-report.js';
import { InvalidReportRangeError, usageReport, withUsd, type UsageReportRow } from '../../../src/usage/usage-report.js';
import { ledgerRecord } from '../../contracts/ledger-store-contract.js';

const START = Date.parse('2026-11-01T00:00:00.000Z');
const RANGE = { from: '2026-11-01', to: '2026-11-10' };
const ACCOUNTS = [
  { id: 'acct_a', plan: 'free' },
  { id: 'acct_b', plan: 'pro' },
  { id: 'acct_c', plan: 'pro' },
  { id: 'acct_idle', plan: 'max' },
];

const sumOf = (rows: readonly UsageReportRow[], group: string | null = null): UsageSums => {
  const sum = emptySums(group);
  for (const { costUsd: _c, meteredUsd: _m, costByTypeUsd: _t, cacheSavingsUsd: _s, responseCacheSavedUsd: _h, ...row } of rows) addSums(sum, row);
  return sum;
};
const numbers = ({ group: _g, lastAt: _l, costUsd: _c, meteredUsd: _m, costByTypeUsd: _t, cacheSavingsUsd: _s, responseCacheSavedUsd: _h, ...rest }: Partial<UsageReportRow> & UsageSums) => rest;

describe('operatorUsageReport', () => {
  it('is the per-account reports summed, in every grouping and zone', async () => {
    const record = fc.record({
      account: fc.constantFrom('acct_a', 'acct_b', 'acct_c'),
      offsetMinutes: fc.integer({ min: -24 * 60, max: 11 * 24 * 60 }),
      route: fc.constantFrom('router/frontier', 'router/fusion'),
      provider: fc.constantFrom('openai', 'anthropic', null),
      prompt: fc.integer({ min: 0, max: 5000 }),
      cost: fc.option(fc.integer({ min: 0, max: 10_000_000 })),
      failed: fc.boolean(),
    });
    await fc.assert(
      fc.asyncProperty(fc.array(record, { maxLength: 20 }), fc.constantFrom('UTC', 'Asia/Kathmandu', 'America/St_Johns'), fc.constantFrom(...OPERATOR_GROUPINGS), async (specs, tz, by) => {
        const ledger = createSqliteLedgerStore({ path: ':memory:', now: () => '2026-11-15T12:00:00.000Z' });
        await ledger.migrate();
        try {
          await ledger.writeBatch(
            specs.map((spec) =>
              ledgerRecord({
                accountId: spec.account,
                startedAt: new Date(START + spec.offsetMinutes * 60_000).toISOString(),
                routeId: spec.route,
                providerId: spec.provider,
                upstreamModel: spec.provider ? `${spec.provider}-model` : null,
                usage: { prompt: spec.prompt, completion: 7, reasoning: 0, cached: 0 },
                costNanoUsd: spec.cost,
                status: spec.failed ? 502 : 200,
                errorCode: spec.failed ? 'all_upstreams_failed' : null,
              }),
            ),
          );
          const all = await operatorUsageReport(ledger, ACCOUNTS, { ...RANGE, tz, by });
          const dimension = by === 'account' || by === 'plan' ? 'day' : by;
          const each = await Promise.all(ACCOUNTS.map(async (account) => ({ account, report: await usageReport(ledger, { accountId: account.id, ...RANGE, tz, by: dimension }) })));

          expect(all.totals).toEqual(withUsd(sumOf(each.map(({ report }) => report.totals))));
          expect(numbers(sumOf(all.rows))).toEqual(numbers(all.totals));
          expect(all.accounts).toBe(ACCOUNTS.length);
          const expectedRow = (group: string | null) => {
            if (by === 'account') return each.find(({ account }) => account.id === group)!.report.totals;
            if (by === 'plan') return sumOf(each.filter(({ account }) => account.plan === group).map(({ report }) => report.totals), group);
            return sumOf(each.flatMap(({ report }) => report.rows.filter((row) => row.group === group)), group);
          };
          for (const row of all.rows) expect(numbers(row)).toEqual(numbers(expectedRow(row.group)));
          if (by === 'day') expect(all.rows.map((row) => row.group)).toEqual(each[0]!.report.rows.map((row) => row.group));
          else expect(all.rows.every((row) => row.calls > 0)).toBe(true);
        } finally {
          await ledger.close();
        }
      }),
      { numRuns: 60 },
    );
  });

  it('refuses a grouping that belongs to one account, and a bad range even with no accounts', async () => {
    const ledger = createSqliteLedgerStore({ path: ':memory:', now: () => '2026-11-15T12:00:00.000Z' });
    await ledger.migrate();
    try {
      await expect(operatorUsageReport(ledger, ACCOUNTS, { ...RANGE, tz: 'UTC', by: 'key' as never })).rejects.toThrow(InvalidReportRangeError);
      await expect(operatorUsageReport(ledger, [], { from: '2026-11-10', to: '2026-11-01', tz: 'UTC', by: 'day' })).rejects.toThrow(InvalidReportRangeError);
      const empty = await operatorUsageReport(ledger, [], { ...RANGE, tz: 'UTC', by: 'day' });
      expect(empty.rows).toHaveLength(10);
      expect(empty.totals.requests).toBe(0);
    } finally {
      await ledger.close();
    }
  });
});
