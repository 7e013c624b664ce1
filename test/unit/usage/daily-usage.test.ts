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

  it('splits by member and workspace and narrows to one member or workspace: the sums of exactly their keys’ records', async () => {
    const directory = {
      keys: [
        { keyId: 'key_1', personId: 'psn_a', workspaceId: 'wks_1' },
        { keyId: 'key_2', personId: 'psn_b', workspaceId: 'wks_1' },
        { keyId: 'key_3', personId: 'psn_a', workspaceId: 'wks_2' },
        { keyId: 'key_cli', personId: null, workspaceId: 'wks_2' },
      ],
      people: new Map([['psn_a', 'a@example.com'], ['psn_b', 'b@example.com']]),
      workspaces: new Map([['wks_1', 'One'], ['wks_2', 'Two']]),
    };
    const holder = new Map(directory.keys.map((key) => [key.keyId, key]));
    const record = fc.record({
      offsetMinutes: fc.integer({ min: 12 * 24 * 60, max: 38 * 24 * 60 }),
      key: fc.constantFrom('key_1', 'key_2', 'key_3', 'key_cli', 'key_gone', null),
      prompt: fc.integer({ min: 0, max: 5000 }),
      cost: fc.integer({ min: 0, max: 10_000_000 }),
    });
    const scopes = fc.constantFrom<{ personId?: string; workspaceId?: string }>({}, { personId: 'psn_a' }, { personId: 'psn_b' }, { workspaceId: 'wks_2' }, { personId: 'psn_a', workspaceId: 'wks_1' }, { personId: 'psn_nobody' });
    await fc.assert(
      fc.asyncProperty(fc.array(record, { maxLength: 25 }), fc.constantFrom(...ZONES), fc.constantFrom('member' as const, 'workspace' as const, 'provider' as const), scopes, async (specs, tz, by, scope) => {
        const accountId = `acct_${account++}`;
        await ledger.writeBatch(
          specs.map((spec) =>
            ledgerRecord({ accountId, startedAt: new Date(START + spec.offsetMinutes * 60_000).toISOString(), keyId: spec.key, usage: { prompt: spec.prompt, completion: 0, reasoning: 0, cached: 0 }, costNanoUsd: spec.cost }),
          ),
        );
        const range = lastDays(Date.parse('2026-11-28T12:00:00.000Z'), tz, 30);
        const daily = await dailyUsage(ledger, { accountId, ...range, tz, by, directory, scope });
        const report = await usageReport(ledger, { accountId, ...range, tz, by, directory, scope });
        expect(daily.rows).toEqual(report.rows);
        expect(daily.totals).toEqual(report.totals);
        // The oracle: the records of the scope's keys, straight from the specs (all fall in the range).
        const inScope = specs.filter((spec) => {
          if (scope.personId === undefined && scope.workspaceId === undefined) return true;
          const key = spec.key === null ? undefined : holder.get(spec.key);
          return key !== undefined && (scope.personId === undefined || key.personId === scope.personId) && (scope.workspaceId === undefined || key.workspaceId === scope.workspaceId);
        });
        expect(report.totals.requests).toBe(inScope.length);
        expect(report.totals.costNanoUsd).toBe(inScope.reduce((sum, spec) => sum + spec.cost, 0));
        if (by === 'provider') return;
        const valueOf = (key: string | null) => {
          const found = key === null ? undefined : holder.get(key);
          return (by === 'member' ? found?.personId : found?.workspaceId) ?? null;
        };
        const expected = new Map<string | null, number>();
        for (const spec of inScope) expected.set(valueOf(spec.key), (expected.get(valueOf(spec.key)) ?? 0) + 1);
        expect(new Map(report.rows.map((row) => [row.group, row.requests]))).toEqual(expected);
        expect(report.rows.map((row) => row.costNanoUsd)).toEqual([...report.rows.map((row) => row.costNanoUsd)].sort((a, b) => b - a));
      }),
      { numRuns: 60 },
    );
  });

  it('splits by the member and workspace recorded with each request (version 18), the key\u2019s current holder where none was', async () => {
    const directory = {
      keys: [
        { keyId: 'key_1', personId: 'psn_a', workspaceId: 'wks_1' },
        { keyId: 'key_2', personId: 'psn_b', workspaceId: 'wks_2' },
        { keyId: 'key_cli', personId: null, workspaceId: 'wks_2' },
      ],
      people: new Map([['psn_a', 'a@example.com'], ['psn_b', 'b@example.com'], ['psn_gone', 'gone@example.com']]),
      workspaces: new Map([['wks_1', 'One'], ['wks_2', 'Two']]),
    };
    const holder = new Map(directory.keys.map((key) => [key.keyId, key]));
    // A key handed over or moved since: its records name who held it and where it was when they ran.
    const record = fc.record({
      offsetMinutes: fc.integer({ min: 12 * 24 * 60, max: 38 * 24 * 60 }),
      key: fc.constantFrom('key_1', 'key_2', 'key_cli', null),
      personId: fc.option(fc.constantFrom('psn_a', 'psn_b', 'psn_gone'), { nil: undefined }),
      workspaceId: fc.option(fc.constantFrom('wks_1', 'wks_2'), { nil: undefined }),
      cost: fc.integer({ min: 0, max: 10_000_000 }),
    });
    await fc.assert(
      fc.asyncProperty(fc.array(record, { maxLength: 25 }), fc.constantFrom(...ZONES), fc.constantFrom('member' as const, 'workspace' as const), async (specs, tz, by) => {
        const accountId = `acct_${account++}`;
        await ledger.writeBatch(
          specs.map((spec) =>
            ledgerRecord({
              accountId,
              startedAt: new Date(START + spec.offsetMinutes * 60_000).toISOString(),
              keyId: spec.key,
              ...(spec.personId ? { personId: spec.personId } : {}),
              ...(spec.workspaceId ? { workspaceId: spec.workspaceId } : {}),
              costNanoUsd: spec.cost,
            }),
          ),
        );
        const range = lastDays(Date.parse('2026-11-28T12:00:00.000Z'), tz, 30);
        const daily = await dailyUsage(ledger, { accountId, ...range, tz, by, directory });
        const report = await usageReport(ledger, { accountId, ...range, tz, by, directory });
        expect(daily.rows).toEqual(report.rows);
        const valueOf = (spec: (typeof specs)[number]) => {
          const recorded = by === 'member' ? spec.personId : spec.workspaceId;
          if (recorded) return recorded;
          const found = spec.key === null ? undefined : holder.get(spec.key);
          return (by === 'member' ? found?.personId : found?.workspaceId) ?? null;
        };
        const expected = new Map<string | null, [number, number]>();
        for (const spec of specs) {
          const [requests, cost] = expected.get(valueOf(spec)) ?? [0, 0];
          expected.set(valueOf(spec), [requests + 1, cost + spec.cost]);
        }
        expect(new Map(report.rows.map((row) => [row.group, [row.requests, row.costNanoUsd]]))).toEqual(expected);
        expect(report.totals.requests).toBe(specs.length);
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
