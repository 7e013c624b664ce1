/**
 * The account app's per-day split (dailyUsage, one query) against `router usage`'s reports (usageReport):
 * for any records and any of several time zones, its per-day rows, its per-value rows and its totals are
 * exactly the reports' for the same days, zone and dimension.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LedgerStore, UsageDimension } from '../../../src/stores/ledger-store.js';
import { createSqliteLedgerStore } from '../../../src/stores/sqlite/create-sqlite-ledger-store.js';
import { dailyUsage, lastDays, usageReport } from '../../../src/usage/usage-report.js';
import { ledgerRecord } from '../../contracts/ledger-store-contract.js';

const ZONES = ['UTC', 'Asia/Kathmandu', 'America/St_Johns', 'Europe/Berlin', 'Pacific/Chatham'];
const START = Date.parse('2026-10-20T00:00:00.000Z');

describe('dailyUsage', () => {
  let ledger: LedgerStore;
  let account = 0;
  beforeAll(async () => {
    ledger = createSqliteLedgerStore({ path: ':memory:', now: () => '2026-11-15T12:00:00.000Z' });
    await ledger.migrate();
  });
  afterAll(() => ledger.close());

  it('equals usageReport per day, per value and in total, in every zone and split', async () => {
    const record = fc.record({
      offsetMinutes: fc.integer({ min: 0, max: 40 * 24 * 60 }),
      key: fc.constantFrom('key_1', 'key_2', null),
      route: fc.constantFrom('router/frontier', 'router/fusion'),
      provider: fc.constantFrom('openai', 'anthropic', null),
      prompt: fc.integer({ min: 0, max: 5000 }),
      completion: fc.integer({ min: 0, max: 5000 }),
      cost: fc.option(fc.integer({ min: 0, max: 10_000_000 })),
      failed: fc.boolean(),
    });
    await fc.assert(
      fc.asyncProperty(fc.array(record, { maxLength: 25 }), fc.constantFrom(...ZONES), fc.constantFrom<UsageDimension>('key', 'route', 'provider', 'model'), async (specs, tz, by) => {
        const accountId = `acct_${account++}`;
        await ledger.writeBatch(
          specs.map((spec) =>
            ledgerRecord({
              accountId,
              startedAt: new Date(START + spec.offsetMinutes * 60_000).toISOString(),
              keyId: spec.key,
              routeId: spec.route,
              providerId: spec.provider,
              upstreamModel: spec.provider ? `${spec.provider}-model` : null,
              usage: { prompt: spec.prompt, completion: spec.completion, reasoning: 0, cached: 0 },
              costNanoUsd: spec.cost,
              status: spec.failed ? 502 : 200,
              errorCode: spec.failed ? 'all_upstreams_failed' : null,
            }),
          ),
        );
        const range = lastDays(Date.parse('2026-11-28T12:00:00.000Z'), tz, 30);
        const daily = await dailyUsage(ledger, { accountId, ...range, tz, by });
        const perDay = await usageReport(ledger, { accountId, ...range, tz, by: 'day' });
        const perValue = await usageReport(ledger, { accountId, ...range, tz, by });
        expect(daily.dayTotals).toEqual(perDay.rows);
        expect(daily.totals).toEqual(perDay.totals);
        expect(daily.totals).toEqual(perValue.totals);
        expect(daily.rows).toEqual(perValue.rows);
        expect(daily.days).toEqual(perDay.rows.map((row) => row.group));
        expect(daily.interval).toEqual(perDay.interval);
      }),
      { numRuns: 60 },
    );
  });

  it('spans the last 30 local days, today included', () => {
    // 2026-11-28 03:00 UTC is still the 27th in New York.
    expect(lastDays(Date.parse('2026-11-28T03:00:00.000Z'), 'America/New_York', 30)).toEqual({ from: '2026-10-29', to: '2026-11-27' });
    expect(lastDays(Date.parse('2026-11-28T03:00:00.000Z'), 'UTC', 30)).toEqual({ from: '2026-10-30', to: '2026-11-28' });
    expect(() => lastDays(0, 'Mars/Olympus', 30)).toThrow(/unknown time zone "Mars\/Olympus"/);
  });
});
