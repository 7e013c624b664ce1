import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { addSums, bucketStartOf, rollUp, rollUpAttribution, rollupCountsOf, rollupKeyOf, type RollupCounts } from '../../../src/stores/ledger-rollup.js';
import { MAIN_CALL, type LedgerRecord } from '../../../src/stores/ledger-store.js';
import { ledgerRecord } from '../../contracts/ledger-store-contract.js';

const optional = <T>(value: fc.Arbitrary<T>) => fc.option(value, { nil: null });
const count = fc.nat({ max: 10_000 });

/** Records of a few accounts, keys, routes and quarter hours, served or not, with and without usage, costs and cache hits. */
const record: fc.Arbitrary<LedgerRecord> = fc
  .record({
    call: fc.constantFrom('main', 'panel:1'),
    minute: fc.nat({ max: 59 }),
    hour: fc.constantFrom(10, 11),
    accountId: fc.constantFrom('acct_a', 'acct_b'),
    keyId: optional(fc.constantFrom('key_1', 'key_2')),
    routeId: optional(fc.constantFrom('router/frontier', 'router/fusion')),
    providerId: optional(fc.constantFrom('openai', 'anthropic')),
    personId: optional(fc.constantFrom('per_1')),
    workspaceId: optional(fc.constantFrom('ws_1')),
    errorCode: optional(fc.constantFrom('all_upstreams_failed')),
    usage: optional(fc.record({ prompt: count, completion: count, reasoning: count, cached: count, cacheWrite: fc.option(count, { nil: undefined }), cacheWrite1h: fc.option(count, { nil: undefined }) })),
    costNanoUsd: optional(count),
    meteredNanoUsd: count,
    costParts: optional(fc.record({ input: count, cacheRead: count, cacheWrite: count, cacheWrite1h: count, output: count, reasoning: count, serverTools: count, cacheSavings: count })),
    responseCache: fc.option(fc.record({ hitOf: fc.constant('req_earlier'), savedNanoUsd: optional(count) }), { nil: undefined }),
  })
  .map(({ minute, hour, usage, ...fields }) => {
    const startedAt = `2026-11-15T${hour}:${String(minute).padStart(2, '0')}:07.123Z`;
    const cleanUsage = usage && Object.fromEntries(Object.entries(usage).filter(([, value]) => value !== undefined));
    return ledgerRecord({ ...fields, startedAt, usage: cleanUsage as LedgerRecord['usage'] } as Partial<LedgerRecord>);
  });

/** One record's counts as the ledger defined them before rows were summed in place (the reference). */
function countsOf(each: LedgerRecord): RollupCounts {
  const main = each.call === MAIN_CALL;
  const served = each.providerId !== null;
  const usage = each.usage;
  return {
    requests: main ? 1 : 0,
    failedRequests: main && each.errorCode !== null ? 1 : 0,
    calls: 1,
    promptTokens: usage?.prompt ?? 0,
    completionTokens: usage?.completion ?? 0,
    reasoningTokens: usage?.reasoning ?? 0,
    cachedTokens: usage?.cached ?? 0,
    unknownUsageCalls: served && usage === null ? 1 : 0,
    unpricedCalls: usage !== null && served && each.costNanoUsd === null ? 1 : 0,
    costNanoUsd: each.costNanoUsd ?? 0,
    meteredNanoUsd: each.meteredNanoUsd,
    cacheWriteTokens: usage?.cacheWrite ?? 0,
    cacheWrite1hTokens: usage?.cacheWrite1h ?? 0,
    inputCostNanoUsd: each.costParts?.input ?? 0,
    cacheReadCostNanoUsd: each.costParts?.cacheRead ?? 0,
    cacheWriteCostNanoUsd: each.costParts?.cacheWrite ?? 0,
    cacheWrite1hCostNanoUsd: each.costParts?.cacheWrite1h ?? 0,
    outputCostNanoUsd: each.costParts?.output ?? 0,
    reasoningCostNanoUsd: each.costParts?.reasoning ?? 0,
    cacheSavingsNanoUsd: each.costParts?.cacheSavings ?? 0,
    serverToolsCostNanoUsd: each.costParts?.serverTools ?? 0,
    responseCacheHits: each.responseCache && main ? 1 : 0,
    responseCacheSavedNanoUsd: each.responseCache?.savedNanoUsd ?? 0,
    lastAt: each.startedAt,
  };
}

/** The reference sums: one counts object per record, added up with addSums. */
function summedOneByOne(records: LedgerRecord[], idOf: (record: LedgerRecord) => string) {
  const rows = new Map<string, RollupCounts>();
  for (const each of records) {
    const id = idOf(each);
    const row = rows.get(id);
    if (row) addSums(row, countsOf(each));
    else rows.set(id, countsOf(each));
  }
  return rows;
}

describe('ledger rollups: a batch summed in place', () => {
  it('rollUp gives each row the sums of its records one by one (property)', () => {
    fc.assert(
      fc.property(fc.array(record, { maxLength: 40 }), (records) => {
        const rows = rollUp(records);
        const expected = summedOneByOne(records, (each) => JSON.stringify(rollupKeyOf(each)));
        expect(rows).toHaveLength(expected.size);
        for (const { key, counts } of rows) expect(counts).toEqual(expected.get(JSON.stringify(key)));
      }),
    );
  });

  it('rollUpAttribution does the same per key, person and workspace (property)', () => {
    fc.assert(
      fc.property(fc.array(record, { maxLength: 40 }), (records) => {
        const idOf = (each: LedgerRecord) => JSON.stringify([each.accountId, bucketStartOf(each.startedAt), each.keyId ?? '', each.personId ?? '', each.workspaceId ?? '']);
        const rows = rollUpAttribution(records);
        const expected = summedOneByOne(records, idOf);
        expect(rows).toHaveLength(expected.size);
        for (const { key, counts } of rows) expect(counts).toEqual(expected.get(JSON.stringify([key.accountId, key.bucketStart, key.keyId, key.personId, key.workspaceId])));
      }),
    );
  });

  it('rollupCountsOf counts one record as the reference does (property)', () => {
    fc.assert(fc.property(record, (each) => void expect(rollupCountsOf(each)).toEqual(countsOf(each))));
  });

  it('counts a record of its own as it reads', () => {
    const counts = rollupCountsOf(ledgerRecord({ usage: { prompt: 10, completion: 20, reasoning: 5, cached: 2, cacheWrite: 3 }, costNanoUsd: null, errorCode: 'x', responseCache: { hitOf: 'req_earlier', savedNanoUsd: null } } as Partial<LedgerRecord>));
    expect(counts).toMatchObject({ requests: 1, failedRequests: 1, calls: 1, promptTokens: 10, completionTokens: 20, reasoningTokens: 5, cachedTokens: 2, cacheWriteTokens: 3, unpricedCalls: 1, unknownUsageCalls: 0, responseCacheHits: 1, responseCacheSavedNanoUsd: 0, lastAt: '2026-11-15T12:00:00.000Z' });
  });
});
