import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { RECORD_COLUMNS, recordRow, recordValues } from '../../../src/stores/ledger-sql.js';
import type { LedgerRecord } from '../../../src/stores/ledger-store.js';

const maybe = <T>(arbitrary: fc.Arbitrary<T>) => fc.option(arbitrary, { nil: null });
const count = fc.nat({ max: 1_000_000 });

/** Any record the ledger may be handed, optional fields present or absent. */
const records: fc.Arbitrary<LedgerRecord> = fc.record(
  {
    id: fc.string(),
    requestId: fc.string(),
    call: fc.constantFrom('main', 'panel-1', 'judge'),
    startedAt: fc.date({ noInvalidDate: true }).map((date) => date.toISOString()),
    accountId: fc.string(),
    keyId: maybe(fc.string()),
    routeId: maybe(fc.string()),
    endpoint: fc.constant('/v1/chat/completions'),
    providerId: maybe(fc.string()),
    upstreamModel: maybe(fc.string()),
    credentialSource: fc.constantFrom('byok' as const, 'managed' as const, null),
    status: fc.integer({ min: 100, max: 599 }),
    errorCode: maybe(fc.string()),
    retryCount: fc.nat({ max: 5 }),
    attempts: fc.array(fc.record({ provider: fc.string(), model: fc.string(), status: maybe(fc.integer({ min: 100, max: 599 })), error: maybe(fc.string()), latencyMs: count }), { maxLength: 3 }),
    usage: maybe(
      fc.record(
        { prompt: count, completion: count, reasoning: count, cached: count, cacheWrite: count, cacheWrite1h: count, serverToolCalls: fc.dictionary(fc.string(), count) },
        { requiredKeys: ['prompt', 'completion', 'reasoning', 'cached'] },
      ),
    ),
    costNanoUsd: maybe(count),
    costParts: maybe(fc.record({ input: count, cacheRead: count, cacheWrite: count, cacheWrite1h: count, output: count, reasoning: count, serverTools: count, cacheSavings: count })),
    meteredNanoUsd: count,
    firstByteMs: maybe(count),
    totalMs: count,
    finishReason: maybe(fc.string()),
    clientClosed: fc.boolean(),
    reservationId: maybe(fc.string()),
    workspaceId: maybe(fc.string()),
    personId: maybe(fc.string()),
    budgetNanoUsd: count,
    traceId: fc.string(),
    insured: fc.boolean(),
    responseCache: fc.record({ hitOf: fc.string(), savedNanoUsd: maybe(count) }),
    preset: fc.record({ slug: fc.string(), version: fc.nat() }),
  },
  {
    requiredKeys: ['id', 'requestId', 'call', 'startedAt', 'accountId', 'keyId', 'routeId', 'endpoint', 'providerId', 'upstreamModel', 'credentialSource', 'status', 'errorCode', 'retryCount', 'attempts', 'usage', 'costNanoUsd', 'costParts', 'meteredNanoUsd', 'firstByteMs', 'totalMs', 'finishReason', 'clientClosed', 'reservationId'],
  },
);

describe('recordRow (the SQLite ledger’s positional insert)', () => {
  it('gives every column the value recordValues names it with, in RECORD_COLUMNS order', () => {
    fc.assert(
      fc.property(records, (record) => {
        const named = recordValues(record);
        expect(recordRow(record)).toEqual(RECORD_COLUMNS.map((column) => named[column]));
      }),
    );
  });
});
