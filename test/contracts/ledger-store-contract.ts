/**
 * The behaviour every LedgerStore must show, run against SQLite and PostgreSQL. `makeLedger` returns a
 * fresh, migrated, empty ledger and the main store on the same database (for audit events), plus a
 * second ledger connection to the same database (for atomicity across instances).
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createLedgerRecordIds } from '../../src/stores/ledger-record-ids.js';
import { emptySums } from '../../src/stores/ledger-rollup.js';
import type { LedgerRecord, LedgerStore, RecordedScope } from '../../src/stores/ledger-store.js';
import type { Store } from '../../src/stores/store.js';

export interface LedgerFixture {
  ledger: LedgerStore;
  store: Store;
  /** Another connection (another instance) to the same database. */
  openAnother(): Promise<LedgerStore>;
  close(): Promise<void>;
}

export type MakeLedger = () => Promise<LedgerFixture>;

let sequence = 0;
const recordId = createLedgerRecordIds();

/** A served, priced chat completion record; override any field (the id follows `startedAt`, as the writer's do). */
export function ledgerRecord(overrides: Partial<LedgerRecord> = {}): LedgerRecord {
  sequence += 1;
  const startedAt = overrides.startedAt ?? '2026-11-15T12:00:00.000Z';
  return {
    id: recordId(Date.parse(startedAt)),
    requestId: `req_${sequence}`,
    call: 'main',
    startedAt: '2026-11-15T12:00:00.000Z',
    accountId: 'acct_a',
    keyId: 'key_1',
    routeId: 'router/frontier',
    endpoint: '/v1/chat/completions',
    providerId: 'openai',
    upstreamModel: 'gpt-4.1',
    credentialSource: 'byok',
    status: 200,
    errorCode: null,
    retryCount: 0,
    attempts: [{ provider: 'openai', model: 'gpt-4.1', status: 200, error: null, latencyMs: 12 }],
    usage: { prompt: 10, completion: 20, reasoning: 5, cached: 2 },
    costNanoUsd: 1000,
    costParts: null,
    meteredNanoUsd: 0,
    firstByteMs: 15,
    totalMs: 40,
    finishReason: 'stop',
    clientClosed: false,
    reservationId: null,
    ...overrides,
  };
}

const { group: _group, lastAt: _lastAt, ...ZERO } = emptySums();

const NOV = { from: '2026-11-01T00:00:00.000Z', to: '2026-12-01T00:00:00.000Z' };

export function runLedgerStoreContract(name: string, makeLedger: MakeLedger): void {
  describe(`${name} ledger store contract`, () => {
    let fixture: LedgerFixture;
    let ledger: LedgerStore;

    beforeEach(async () => {
      fixture = await makeLedger();
      ledger = fixture.ledger;
    });
    afterEach(async () => {
      await fixture.close();
    });

    it('stores every field of a record and finds it by request id, scoped to the account when asked', async () => {
      const served = ledgerRecord({ requestId: 'req_same', clientClosed: true, reservationId: 'spr_1', credentialSource: 'managed', meteredNanoUsd: 1000 });
      const unknown = ledgerRecord({ requestId: 'req_same', accountId: 'acct_b', usage: null, costNanoUsd: null, startedAt: '2026-11-15T12:00:01.000Z' });
      const failed = ledgerRecord({
        providerId: null,
        upstreamModel: null,
        credentialSource: null,
        status: 502,
        errorCode: 'all_upstreams_failed',
        retryCount: 1,
        firstByteMs: null,
        usage: { prompt: 0, completion: 0, reasoning: 0, cached: 0 },
        costNanoUsd: 0,
        attempts: [
          { provider: 'openai', model: 'gpt-4.1', status: 503, error: 'server_error', latencyMs: 3 },
          { provider: 'anthropic', model: 'claude', status: null, error: 'timeout', latencyMs: 1500 },
        ],
      });
      expect(await ledger.writeBatch([served, unknown, failed])).toEqual({ written: 3 });
      expect(await ledger.findRecords({ requestId: 'req_same' })).toEqual([unknown, served]);
      expect(await ledger.findRecords({ requestId: 'req_same', accountId: 'acct_a' })).toEqual([served]);
      expect(await ledger.findRecords({ requestId: failed.requestId })).toEqual([failed]);
      expect(await ledger.findRecords({ requestId: 'req_missing' })).toEqual([]);
    });

    it('keeps the server tool calls a record reports and their cost, a part of its cost, and sums it', async () => {
      const searched = ledgerRecord({
        requestId: 'req_search',
        usage: { prompt: 10, completion: 5, reasoning: 0, cached: 0, serverToolCalls: { web_search: 3 } },
        costNanoUsd: 30_000_100,
        costParts: { input: 40, cacheRead: 0, cacheWrite: 0, cacheWrite1h: 0, output: 60, reasoning: 0, serverTools: 30_000_000, cacheSavings: 0 },
      });
      await ledger.writeBatch([searched]);
      expect(await ledger.findRecords({ requestId: 'req_search' })).toEqual([searched]);
      const [total] = await ledger.sumUsageBy('acct_a', NOV.from, NOV.to, 'key');
      expect(total).toMatchObject({ costNanoUsd: 30_000_100, serverToolsCostNanoUsd: 30_000_000 });
    });

    it('keeps a response-cache hit (the request it replayed, the spend it saved) and sums hits and savings', async () => {
      const hit = ledgerRecord({
        requestId: 'req_hit',
        providerId: null,
        upstreamModel: null,
        credentialSource: null,
        usage: { prompt: 0, completion: 0, reasoning: 0, cached: 0 },
        costNanoUsd: 0,
        costParts: null,
        meteredNanoUsd: 0,
        responseCache: { hitOf: 'req_original', savedNanoUsd: 1_234_567 },
      });
      const { id: _hitId, ...hitFields } = hit;
      const unknownSaving = ledgerRecord({ ...hitFields, requestId: 'req_hit_2', responseCache: { hitOf: 'req_original', savedNanoUsd: null } });
      const paid = ledgerRecord({ requestId: 'req_original' });
      await ledger.writeBatch([hit, unknownSaving, paid]);
      expect(await ledger.findRecords({ requestId: 'req_hit' })).toEqual([hit]);
      expect((await ledger.findRecords({ requestId: 'req_hit_2' }))[0]?.responseCache).toEqual({ hitOf: 'req_original', savedNanoUsd: null });
      expect((await ledger.findRecords({ requestId: 'req_original' }))[0]?.responseCache).toBeUndefined();
      const [total] = await ledger.sumUsageBy('acct_a', NOV.from, NOV.to, 'key');
      expect(total).toMatchObject({ requests: 3, responseCacheHits: 2, responseCacheSavedNanoUsd: 1_234_567, costNanoUsd: paid.costNanoUsd });
    });

    it('keeps the preset a request used (slug and version), and none on a request without one', async () => {
      const withPreset = ledgerRecord({ requestId: 'req_preset', preset: { slug: 'code-review', version: 3 } });
      const without = ledgerRecord({ requestId: 'req_plain' });
      await ledger.writeBatch([withPreset, without]);
      expect(await ledger.findRecords({ requestId: 'req_preset' })).toEqual([withPreset]);
      expect((await ledger.findRecords({ requestId: 'req_plain' }))[0]?.preset).toBeUndefined();
    });

    it('keeps cache-write tokens and the cost of each token type, and sums them exactly', async () => {
      const parts = { input: 300, cacheRead: 20, cacheWrite: 125, cacheWrite1h: 200, output: 275, reasoning: 80, serverTools: 0, cacheSavings: 180 };
      const cached = ledgerRecord({
        requestId: 'req_cache',
        usage: { prompt: 500, completion: 40, reasoning: 8, cached: 100, cacheWrite: 300, cacheWrite1h: 120 },
        costNanoUsd: 1000,
        costParts: parts,
      });
      const plain = ledgerRecord({ costNanoUsd: 500, costParts: { input: 100, cacheRead: 0, cacheWrite: 0, cacheWrite1h: 0, output: 400, reasoning: 0, serverTools: 0, cacheSavings: 0 } });
      const unknown = ledgerRecord({ usage: null, costNanoUsd: null });
      await ledger.writeBatch([cached, plain, unknown]);
      expect(await ledger.findRecords({ requestId: 'req_cache' })).toEqual([cached]);
      expect(await ledger.findRecords({ requestId: unknown.requestId })).toEqual([unknown]);
      const [total] = await ledger.sumUsageBy('acct_a', NOV.from, NOV.to, 'key');
      expect(total).toMatchObject({
        cacheWriteTokens: 300,
        cacheWrite1hTokens: 120,
        costNanoUsd: 1500,
        inputCostNanoUsd: 400,
        cacheReadCostNanoUsd: 20,
        cacheWriteCostNanoUsd: 125,
        cacheWrite1hCostNanoUsd: 200,
        outputCostNanoUsd: 675,
        reasoningCostNanoUsd: 80,
        cacheSavingsNanoUsd: 180,
      });
      const [day] = await ledger.sumUsageByRange('acct_a', [{ label: 'nov', ...NOV }]);
      expect(day).toEqual({ ...total, group: 'nov' });
    });

    it('skips records already written, so a retried batch never counts twice', async () => {
      const records = [ledgerRecord(), ledgerRecord()];
      await ledger.writeBatch(records);
      expect(await ledger.writeBatch([...records, ledgerRecord()])).toEqual({ written: 1 });
      const [byKey] = await ledger.sumUsageBy('acct_a', NOV.from, NOV.to, 'key');
      expect(byKey).toMatchObject({ requests: 3, calls: 3, promptTokens: 30, costNanoUsd: 3000 });
    });

    it('sums every dimension exactly, with none as null and models named provider/model, largest cost first', async () => {
      await ledger.writeBatch([
        ledgerRecord({ keyId: 'key_1', costNanoUsd: 100 }),
        ledgerRecord({ keyId: 'key_2', providerId: 'anthropic', upstreamModel: 'claude', costNanoUsd: 700, usage: { prompt: 1, completion: 2, reasoning: 0, cached: 0 } }),
        ledgerRecord({ keyId: 'key_2', routeId: 'router/fusion', call: 'judge', costNanoUsd: 50 }),
        ledgerRecord({ keyId: 'key_1', providerId: null, upstreamModel: null, credentialSource: null, status: 403, errorCode: 'spend_cap_reached', costNanoUsd: 0, usage: { prompt: 0, completion: 0, reasoning: 0, cached: 0 } }),
        ledgerRecord({ keyId: 'key_1', usage: null, costNanoUsd: null, errorCode: 'upstream_stream_interrupted' }),
        ledgerRecord({ keyId: 'key_1', upstreamModel: 'gpt-unpriced', costNanoUsd: null }),
        ledgerRecord({ accountId: 'acct_other', costNanoUsd: 99_999 }),
      ]);
      const byKey = await ledger.sumUsageBy('acct_a', NOV.from, NOV.to, 'key');
      expect(byKey).toEqual([
        { ...ZERO, group: 'key_2', requests: 1, calls: 2, promptTokens: 11, completionTokens: 22, reasoningTokens: 5, cachedTokens: 2, costNanoUsd: 750, lastAt: '2026-11-15T12:00:00.000Z' },
        {
          ...ZERO,
          group: 'key_1',
          requests: 4,
          failedRequests: 2,
          calls: 4,
          promptTokens: 20,
          completionTokens: 40,
          reasoningTokens: 10,
          cachedTokens: 4,
          unknownUsageCalls: 1,
          unpricedCalls: 1,
          costNanoUsd: 100,
          lastAt: '2026-11-15T12:00:00.000Z',
        },
      ]);
      expect((await ledger.sumUsageBy('acct_a', NOV.from, NOV.to, 'provider')).map((row) => [row.group, row.calls])).toEqual([
        ['anthropic', 1],
        ['openai', 4],
        [null, 1],
      ]);
      expect((await ledger.sumUsageBy('acct_a', NOV.from, NOV.to, 'model')).map((row) => [row.group, row.costNanoUsd])).toEqual([
        ['anthropic/claude', 700],
        ['openai/gpt-4.1', 150],
        [null, 0],
        ['openai/gpt-unpriced', 0],
      ]);
      expect((await ledger.sumUsageBy('acct_a', NOV.from, NOV.to, 'route')).map((row) => [row.group, row.requests, row.calls])).toEqual([
        ['router/frontier', 5, 5],
        ['router/fusion', 0, 1],
      ]);
    });

    it('puts each record in the range its start falls in, every range answered in order, empty ones as zeros', async () => {
      await ledger.writeBatch([
        ledgerRecord({ startedAt: '2026-11-14T18:29:59.999Z', costNanoUsd: 1 }),
        ledgerRecord({ startedAt: '2026-11-14T18:30:00.000Z', costNanoUsd: 10 }),
        ledgerRecord({ startedAt: '2026-11-15T18:29:00.000Z', costNanoUsd: 100 }),
        ledgerRecord({ startedAt: '2026-11-16T20:00:00.000Z', costNanoUsd: 1000 }),
      ]);
      // Local days in a zone at UTC+5:30: day boundaries fall on the half hour.
      const ranges = [
        { label: '2026-11-14', from: '2026-11-13T18:30:00.000Z', to: '2026-11-14T18:30:00.000Z' },
        { label: '2026-11-15', from: '2026-11-14T18:30:00.000Z', to: '2026-11-15T18:30:00.000Z' },
        { label: '2026-11-16', from: '2026-11-15T18:30:00.000Z', to: '2026-11-16T18:30:00.000Z' },
      ];
      const rows = await ledger.sumUsageByRange('acct_a', ranges);
      expect(rows.map((row) => [row.group, row.requests, row.costNanoUsd, row.lastAt])).toEqual([
        ['2026-11-14', 1, 1, '2026-11-14T18:29:59.999Z'],
        ['2026-11-15', 2, 110, '2026-11-15T18:29:00.000Z'],
        ['2026-11-16', 0, 0, null],
      ]);
      expect(await ledger.sumUsageByRange('acct_nobody', ranges.slice(0, 1))).toEqual([{ ...ZERO, group: '2026-11-14', lastAt: null }]);
    });

    it('splits each range by a dimension in one query: cells sum to the range totals and to the dimension totals', async () => {
      await ledger.writeBatch([
        ledgerRecord({ startedAt: '2026-11-14T10:00:00.000Z', keyId: 'key_1', providerId: 'openai', costNanoUsd: 1 }),
        ledgerRecord({ startedAt: '2026-11-14T11:00:00.000Z', keyId: 'key_2', providerId: 'anthropic', upstreamModel: 'claude', costNanoUsd: 20 }),
        ledgerRecord({ startedAt: '2026-11-14T12:00:00.000Z', keyId: 'key_2', providerId: 'anthropic', upstreamModel: 'claude', costNanoUsd: 30 }),
        ledgerRecord({ startedAt: '2026-11-16T09:00:00.000Z', keyId: 'key_1', providerId: null, upstreamModel: null, status: 502, errorCode: 'all_upstreams_failed', costNanoUsd: 0 }),
        ledgerRecord({ startedAt: '2026-11-14T10:00:00.000Z', accountId: 'acct_other', keyId: 'key_9' }),
      ]);
      const ranges = ['14', '15', '16'].map((day) => ({ label: `2026-11-${day}`, from: `2026-11-${day}T00:00:00.000Z`, to: `2026-11-${Number(day) + 1}T00:00:00.000Z` }));
      const byProvider = await ledger.sumUsageByRangeAnd('acct_a', ranges, 'provider');
      expect(byProvider.map((cell) => [cell.range, cell.group, cell.requests, cell.costNanoUsd])).toEqual([
        ['2026-11-14', 'anthropic', 2, 50],
        ['2026-11-14', 'openai', 1, 1],
        ['2026-11-16', null, 1, 0],
      ]);
      expect(byProvider[2]).toMatchObject({ failedRequests: 1, lastAt: '2026-11-16T09:00:00.000Z' });
      const days = await ledger.sumUsageByRange('acct_a', ranges);
      const wholeRange = { from: ranges[0]!.from, to: ranges[2]!.to };
      for (const dimension of ['key', 'route', 'provider', 'model'] as const) {
        const cells = await ledger.sumUsageByRangeAnd('acct_a', ranges, dimension);
        for (const day of days) {
          const inDay = cells.filter((cell) => cell.range === day.group);
          expect(inDay.reduce((sum, cell) => sum + cell.requests, 0), `${dimension} ${day.group}`).toBe(day.requests);
          expect(inDay.reduce((sum, cell) => sum + cell.promptTokens + cell.completionTokens, 0)).toBe(day.promptTokens + day.completionTokens);
        }
        for (const row of await ledger.sumUsageBy('acct_a', wholeRange.from, wholeRange.to, dimension)) {
          const ofValue = cells.filter((cell) => cell.group === row.group);
          expect(ofValue.reduce((sum, cell) => sum + cell.costNanoUsd, 0), `${dimension} ${row.group}`).toBe(row.costNanoUsd);
        }
      }
      expect(await ledger.sumUsageByRangeAnd('acct_nobody', ranges, 'key')).toEqual([]);
      // One key's usage only (the per-key view): its cells add up to what the split by key gives it.
      const byKey = await ledger.sumUsageByRangeAnd('acct_a', ranges, 'key');
      for (const keyId of new Set(byKey.map((cell) => cell.group).filter((group): group is string => group !== null))) {
        const ofKey = await ledger.sumUsageByRangeAnd('acct_a', ranges, 'provider', [keyId]);
        const expected = byKey.filter((cell) => cell.group === keyId);
        expect(ofKey.reduce((sum, cell) => sum + cell.requests, 0), keyId).toBe(expected.reduce((sum, cell) => sum + cell.requests, 0));
        expect(ofKey.reduce((sum, cell) => sum + cell.costNanoUsd, 0), keyId).toBe(expected.reduce((sum, cell) => sum + cell.costNanoUsd, 0));
      }
      expect(await ledger.sumUsageByRangeAnd('acct_a', ranges, 'route', ['key_9'])).toEqual([]);
    });

    it('narrows every split to a set of keys (a member’s or a workspace’s): the parts add up, an empty set matches nothing', async () => {
      await ledger.writeBatch([
        ledgerRecord({ startedAt: '2026-11-14T10:00:00.000Z', keyId: 'key_1', providerId: 'openai', costNanoUsd: 1 }),
        ledgerRecord({ startedAt: '2026-11-14T11:00:00.000Z', keyId: 'key_2', providerId: 'anthropic', upstreamModel: 'claude', costNanoUsd: 20 }),
        ledgerRecord({ startedAt: '2026-11-15T12:00:00.000Z', keyId: 'key_3', providerId: 'openai', costNanoUsd: 300 }),
        ledgerRecord({ startedAt: '2026-11-15T12:30:00.000Z', keyId: null, providerId: 'openai', costNanoUsd: 4000 }),
        ledgerRecord({ startedAt: '2026-11-14T10:00:00.000Z', accountId: 'acct_other', keyId: 'key_2', costNanoUsd: 50_000 }),
      ]);
      const ranges = ['14', '15'].map((day) => ({ label: `2026-11-${day}`, from: `2026-11-${day}T00:00:00.000Z`, to: `2026-11-${Number(day) + 1}T00:00:00.000Z` }));
      const cost = (rows: readonly { costNanoUsd: number }[]) => rows.reduce((sum, row) => sum + row.costNanoUsd, 0);
      expect(cost(await ledger.sumUsageByRange('acct_a', ranges))).toBe(4321);
      expect(cost(await ledger.sumUsageByRange('acct_a', ranges, ['key_1', 'key_3']))).toBe(301);
      expect((await ledger.sumUsageByRange('acct_a', ranges, ['key_2'])).map((row) => [row.group, row.requests])).toEqual([
        ['2026-11-14', 1],
        ['2026-11-15', 0],
      ]);
      expect((await ledger.sumUsageBy('acct_a', NOV.from, NOV.to, 'provider', ['key_1', 'key_2', 'key_3'])).map((row) => [row.group, row.costNanoUsd])).toEqual([
        ['openai', 301],
        ['anthropic', 20],
      ]);
      expect(await ledger.sumUsageBy('acct_a', NOV.from, NOV.to, 'key', [])).toEqual([]);
      expect(cost(await ledger.sumUsageByRange('acct_a', ranges, []))).toBe(0);
      expect((await ledger.sumUsageByRangeAnd('acct_a', ranges, 'key', ['key_2', 'key_3'])).map((cell) => [cell.range, cell.group, cell.costNanoUsd])).toEqual([
        ['2026-11-14', 'key_2', 20],
        ['2026-11-15', 'key_3', 300],
      ]);
      expect(await ledger.sumUsageByRangeAnd('acct_a', ranges, 'key', [])).toEqual([]);
      const listed = await ledger.listRequests({ accountId: 'acct_a', limit: 10, keyIds: ['key_2', 'key_3'] });
      expect(listed.map((record) => record.keyId)).toEqual(['key_3', 'key_2']);
      expect(await ledger.listRequests({ accountId: 'acct_a', limit: 10, keyIds: [] })).toEqual([]);
      expect(await ledger.listRequests({ accountId: 'acct_a', limit: 10 })).toHaveLength(4);
    });

    it('sums usage per range, key and the person and workspace the key had when it ran (version 18), in the same batch as the rollups', async () => {
      await ledger.writeBatch([
        ledgerRecord({ startedAt: '2026-11-14T10:00:00.000Z', keyId: 'key_1', personId: 'psn_ann', workspaceId: 'wks_1', costNanoUsd: 1 }),
        // The same key in the same quarter hour, after it moved to another workspace and was handed over.
        ledgerRecord({ startedAt: '2026-11-14T10:05:00.000Z', keyId: 'key_1', personId: 'psn_admin', workspaceId: 'wks_2', costNanoUsd: 20 }),
        ledgerRecord({ startedAt: '2026-11-14T10:06:00.000Z', keyId: 'key_1', personId: 'psn_admin', workspaceId: 'wks_2', costNanoUsd: 300, call: 'judge' }),
        ledgerRecord({ startedAt: '2026-11-15T09:00:00.000Z', keyId: 'key_cli', costNanoUsd: 4000 }),
        ledgerRecord({ startedAt: '2026-11-15T09:00:00.000Z', keyId: 'key_1', accountId: 'acct_other', personId: 'psn_x', costNanoUsd: 50_000 }),
      ]);
      const ranges = ['14', '15'].map((day) => ({ label: `2026-11-${day}`, from: `2026-11-${day}T00:00:00.000Z`, to: `2026-11-${Number(day) + 1}T00:00:00.000Z` }));
      const cells = await ledger.sumAttributedUsage('acct_a', ranges);
      expect(cells.map((cell) => [cell.range, cell.keyId, cell.personId, cell.workspaceId, cell.requests, cell.calls, cell.costNanoUsd])).toEqual([
        ['2026-11-14', 'key_1', 'psn_admin', 'wks_2', 1, 2, 320],
        ['2026-11-14', 'key_1', 'psn_ann', 'wks_1', 1, 1, 1],
        ['2026-11-15', 'key_cli', null, null, 1, 1, 4000],
      ]);
      expect(cells[0]!.lastAt).toBe('2026-11-14T10:06:00.000Z');
      // The attributed sums are the rollups' own, split further.
      const byKey = await ledger.sumUsageByRangeAnd('acct_a', ranges, 'key');
      expect(byKey.map((cell) => [cell.range, cell.group, cell.costNanoUsd])).toEqual([
        ['2026-11-14', 'key_1', 321],
        ['2026-11-15', 'key_cli', 4000],
      ]);
      expect((await ledger.sumAttributedUsage('acct_a', ranges, ['key_cli'])).map((cell) => cell.keyId)).toEqual(['key_cli']);
      expect(await ledger.sumAttributedUsage('acct_a', ranges, [])).toEqual([]);
      // Raw requests by whom they were recorded for; one recorded without (key_cli) counts for its key's holder now.
      const costsOf = async (recorded: RecordedScope) => (await ledger.listRequests({ accountId: 'acct_a', limit: 10, recorded })).map((record) => record.costNanoUsd);
      expect(await costsOf({ person: { id: 'psn_ann', keyIdsNow: [] } })).toEqual([1]);
      expect(await costsOf({ person: { id: 'psn_admin', keyIdsNow: ['key_1', 'key_cli'] } })).toEqual([4000, 20]);
      expect(await costsOf({ person: { id: 'psn_admin', keyIdsNow: ['key_1'] }, workspace: { id: 'wks_1', keyIdsNow: [] } })).toEqual([]);
      expect(await costsOf({ workspace: { id: 'wks_1', keyIdsNow: ['key_1'] } })).toEqual([1]);
      // A record id already stored is not counted twice here either.
      const again = ledgerRecord({ startedAt: '2026-11-15T09:30:00.000Z', keyId: 'key_cli', costNanoUsd: 5 });
      await ledger.writeBatch([again]);
      await ledger.writeBatch([again]);
      expect((await ledger.sumAttributedUsage('acct_a', ranges, ['key_cli']))[0]!.costNanoUsd).toBe(4005);
    });

    it('sums one key’s cost by credential source, all time and since the start of its UTC day, week and month', async () => {
      await ledger.writeBatch([
        ledgerRecord({ keyId: 'key_s', credentialSource: 'managed', costNanoUsd: 1_000, meteredNanoUsd: 1_000, startedAt: '2026-10-31T23:59:59.000Z' }),
        ledgerRecord({ keyId: 'key_s', credentialSource: 'managed', costNanoUsd: 20_000, meteredNanoUsd: 20_000, startedAt: '2026-11-23T00:00:00.000Z' }),
        ledgerRecord({ keyId: 'key_s', credentialSource: 'byok', costNanoUsd: 300_000, meteredNanoUsd: 0, startedAt: '2026-11-25T00:00:00.000Z' }),
        ledgerRecord({ keyId: 'key_s', credentialSource: 'byok', costNanoUsd: 4_000_000, meteredNanoUsd: 0, startedAt: '2026-11-02T10:00:00.000Z' }),
        ledgerRecord({ keyId: 'key_other', credentialSource: 'managed', costNanoUsd: 50_000_000, meteredNanoUsd: 50_000_000, startedAt: '2026-11-25T00:00:00.000Z' }),
        ledgerRecord({ keyId: 'key_s', accountId: 'acct_other', credentialSource: 'managed', costNanoUsd: 600_000_000, meteredNanoUsd: 600_000_000 }),
      ]);
      const spend = await ledger.sumKeySpend('acct_a', 'key_s', { day: '2026-11-25T00:00:00.000Z', week: '2026-11-23T00:00:00.000Z', month: '2026-11-01T00:00:00.000Z' });
      expect(spend).toEqual({
        total: { managedNanoUsd: 21_000, byokNanoUsd: 4_300_000 },
        day: { managedNanoUsd: 0, byokNanoUsd: 300_000 },
        week: { managedNanoUsd: 20_000, byokNanoUsd: 300_000 },
        month: { managedNanoUsd: 20_000, byokNanoUsd: 4_300_000 },
      });
      const none = { managedNanoUsd: 0, byokNanoUsd: 0 };
      expect(await ledger.sumKeySpend('acct_a', 'key_never', { day: '2026-11-25T00:00:00.000Z', week: '2026-11-23T00:00:00.000Z', month: '2026-11-01T00:00:00.000Z' })).toEqual({ total: none, day: none, week: none, month: none });
    });

    it('sums several keys’ cost in one call, each as sumKeySpend would, zeros for a key without usage, and only the account’s', async () => {
      const since = { day: '2026-11-25T00:00:00.000Z', week: '2026-11-23T00:00:00.000Z', month: '2026-11-01T00:00:00.000Z' };
      await ledger.writeBatch([
        ledgerRecord({ keyId: 'key_1', credentialSource: 'managed', costNanoUsd: 1_000, meteredNanoUsd: 1_000, startedAt: '2026-10-31T23:59:59.000Z' }),
        ledgerRecord({ keyId: 'key_1', credentialSource: 'byok', costNanoUsd: 300_000, meteredNanoUsd: 0, startedAt: '2026-11-25T00:00:00.000Z' }),
        ledgerRecord({ keyId: 'key_2', credentialSource: 'managed', costNanoUsd: 20_000, meteredNanoUsd: 20_000, startedAt: '2026-11-23T00:00:00.000Z' }),
        ledgerRecord({ keyId: 'key_3', credentialSource: 'managed', costNanoUsd: 7, meteredNanoUsd: 7 }),
        ledgerRecord({ keyId: 'key_1', accountId: 'acct_other', credentialSource: 'managed', costNanoUsd: 600_000_000, meteredNanoUsd: 600_000_000 }),
      ]);
      const spend = await ledger.sumKeysSpend('acct_a', ['key_1', 'key_2', 'key_never'], since);
      expect([...spend.keys()]).toEqual(['key_1', 'key_2', 'key_never']);
      for (const keyId of ['key_1', 'key_2', 'key_never']) expect(spend.get(keyId)).toEqual(await ledger.sumKeySpend('acct_a', keyId, since));
      expect(spend.get('key_1')!.total).toEqual({ managedNanoUsd: 1_000, byokNanoUsd: 300_000 });
      expect((await ledger.sumKeysSpend('acct_a', [], since)).size).toBe(0);
    });

    it('reports the last use of each key, beyond raw retention too', async () => {
      await ledger.writeBatch([
        ledgerRecord({ keyId: 'key_1', startedAt: '2026-10-01T00:00:00.000Z' }),
        ledgerRecord({ keyId: 'key_1', startedAt: '2026-11-02T08:00:00.000Z' }),
        ledgerRecord({ keyId: 'key_2', startedAt: '2026-11-03T09:10:11.012Z' }),
        ledgerRecord({ keyId: 'key_9', accountId: 'acct_other' }),
      ]);
      await ledger.prune({ recordsBefore: '2026-12-01T00:00:00.000Z', now: '2026-12-01T00:00:00.000Z', limit: 1000 });
      expect(await ledger.lastUsedByKey('acct_a')).toEqual([
        { keyId: 'key_1', lastAt: '2026-11-02T08:00:00.000Z' },
        { keyId: 'key_2', lastAt: '2026-11-03T09:10:11.012Z' },
      ]);
    });

    it('lists an account’s requests newest first, page by page, without the extra calls', async () => {
      const records = [1, 2, 3].map((n) => ledgerRecord({ startedAt: `2026-11-1${n}T00:00:00.000Z` }));
      await ledger.writeBatch([...records, ledgerRecord({ call: 'judge' }), ledgerRecord({ accountId: 'acct_other' })]);
      const first = await ledger.listRequests({ accountId: 'acct_a', limit: 2 });
      expect(first.map((r) => r.id)).toEqual([records[2]!.id, records[1]!.id]);
      const next = await ledger.listRequests({ accountId: 'acct_a', limit: 2, before: first[1]!.startedAt });
      expect(next.map((r) => r.id)).toEqual([records[0]!.id]);
    });

    it('counts requests by error code since an instant, for one account or all', async () => {
      await ledger.writeBatch([
        ledgerRecord({ errorCode: 'all_upstreams_failed', status: 502 }),
        ledgerRecord({ errorCode: 'all_upstreams_failed', status: 502, accountId: 'acct_b' }),
        ledgerRecord({ errorCode: 'spend_cap_reached', status: 402 }),
        ledgerRecord({ errorCode: 'spend_cap_reached', status: 402, startedAt: '2026-11-01T00:00:00.000Z' }),
        ledgerRecord({ errorCode: 'upstream_error', call: 'judge' }),
      ]);
      const since = '2026-11-10T00:00:00.000Z';
      expect(await ledger.countErrors({ since })).toEqual([
        { code: 'all_upstreams_failed', count: 2 },
        { code: 'spend_cap_reached', count: 1 },
      ]);
      expect(await ledger.countErrors({ since, accountId: 'acct_b' })).toEqual([{ code: 'all_upstreams_failed', count: 1 }]);
    });

    it('prunes old raw records in bounded steps and keeps the rollups', async () => {
      await ledger.writeBatch([1, 2, 3].map(() => ledgerRecord({ startedAt: '2026-09-01T00:00:00.000Z' })).concat(ledgerRecord()));
      const before = await ledger.sumUsageBy('acct_a', '2026-01-01T00:00:00.000Z', NOV.to, 'key');
      const cut = { recordsBefore: '2026-10-01T00:00:00.000Z', now: '2026-11-15T12:00:00.000Z' };
      expect(await ledger.prune({ ...cut, limit: 2 })).toEqual({ records: 2, reservations: 0 });
      expect(await ledger.prune({ ...cut, limit: 2 })).toEqual({ records: 1, reservations: 0 });
      expect(await ledger.prune({ ...cut, limit: 2 })).toEqual({ records: 0, reservations: 0 });
      expect(await ledger.listRequests({ accountId: 'acct_a', limit: 10 })).toHaveLength(1);
      expect(await ledger.sumUsageBy('acct_a', '2026-01-01T00:00:00.000Z', NOV.to, 'key')).toEqual(before);
    });

    describe('managed spend', () => {
      const NOW = '2026-11-15T12:00:00.000Z';
      const reserve = (id: string, nanoUsd: number, capNanoUsd: number, store = ledger, now = NOW) =>
        store.reserveSpend({ id, accountId: 'acct_a', period: '2026-11', nanoUsd, capNanoUsd, expiresAt: '2026-11-15T12:15:00.000Z', now });

      it('holds estimates while spent + reserved is below the cap, and refuses at the cap', async () => {
        expect(await reserve('spr_1', 600, 1000)).toEqual({ reserved: true, spentNanoUsd: 0, reservedNanoUsd: 600 });
        expect(await reserve('spr_2', 600, 1000)).toEqual({ reserved: true, spentNanoUsd: 0, reservedNanoUsd: 1200 });
        expect(await reserve('spr_3', 1, 1000)).toEqual({ reserved: false, spentNanoUsd: 0, reservedNanoUsd: 1200 });
        expect(await ledger.readSpend('acct_a', '2026-11', NOW)).toEqual({ spentNanoUsd: 0, reservedNanoUsd: 1200 });
        expect(await ledger.readSpend('acct_a', '2026-12', NOW)).toEqual({ spentNanoUsd: 0, reservedNanoUsd: 0 });
      });

      it('settles a reservation to the metered cost in the same batch as its record', async () => {
        await reserve('spr_1', 600, 1000);
        await ledger.writeBatch([
          ledgerRecord({ credentialSource: 'managed', costNanoUsd: 250, meteredNanoUsd: 250, reservationId: 'spr_1' }),
          ledgerRecord({ credentialSource: 'byok', costNanoUsd: 999 }),
        ]);
        expect(await ledger.readSpend('acct_a', '2026-11', NOW)).toEqual({ spentNanoUsd: 250, reservedNanoUsd: 0 });
        const [sums] = await ledger.sumUsageBy('acct_a', NOV.from, NOV.to, 'key');
        expect(sums).toMatchObject({ costNanoUsd: 1249, meteredNanoUsd: 250 });
        // A record that was already written releases nothing twice and adds nothing twice.
        expect(await reserve('spr_2', 100, 1000)).toMatchObject({ reserved: true, spentNanoUsd: 250 });
        await ledger.writeBatch([ledgerRecord({ credentialSource: 'managed', meteredNanoUsd: 50, reservationId: 'spr_2' })]);
        expect(await ledger.readSpend('acct_a', '2026-11', NOW)).toEqual({ spentNanoUsd: 300, reservedNanoUsd: 0 });
      });

      it('stops counting a reservation once it expired (an instance that crashed) and prunes it', async () => {
        await reserve('spr_1', 900, 1000);
        expect(await reserve('spr_2', 1, 1000, ledger, '2026-11-15T12:15:00.000Z')).toMatchObject({ reserved: true, reservedNanoUsd: 1 });
        expect(await ledger.prune({ recordsBefore: '2026-01-01T00:00:00.000Z', now: '2026-11-15T12:15:00.000Z', limit: 10 })).toEqual({ records: 0, reservations: 2 });
      });

      it('lets concurrent reservations from two connections overshoot the cap by less than one estimate', async () => {
        const other = await fixture.openAnother();
        try {
          const estimate = 70;
          const cap = 1000;
          const results = await Promise.all(Array.from({ length: 40 }, (_, i) => reserve(`spr_${i}`, estimate, cap, i % 2 === 0 ? ledger : other)));
          const admitted = results.filter((result) => result.reserved).length;
          // Each admission saw spent + reserved below the cap: exactly ceil(cap / estimate) fit.
          expect(admitted).toBe(Math.ceil(cap / estimate));
          const { reservedNanoUsd } = await ledger.readSpend('acct_a', '2026-11', NOW);
          expect(reservedNanoUsd).toBe(admitted * estimate);
          expect(reservedNanoUsd).toBeLessThan(cap + estimate);
        } finally {
          await other.close();
        }
      });
    });

    it('records a configuration fact once per change, as an operator audit event', async () => {
      const change = (fingerprint: string) =>
        ledger.recordConfigChange({ action: 'config.plans', fingerprint, details: { plans: [fingerprint] }, at: '2026-11-15T12:00:00.000Z' });
      expect(await change('a')).toBe(true);
      expect(await change('a')).toBe(false);
      expect(await change('b')).toBe(true);
      const events = await fixture.store.listAuditEvents({});
      expect(events.map((event) => [event.action, event.actor, event.details])).toEqual([
        ['config.plans', 'system', { plans: ['b'], fingerprint: 'b' }],
        ['config.plans', 'system', { plans: ['a'], fingerprint: 'a' }],
      ]);
    });

    it('answers ping once migrated', async () => {
      await expect(ledger.ping()).resolves.toBeUndefined();
    });
  });
}
