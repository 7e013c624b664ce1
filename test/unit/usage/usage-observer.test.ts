import { describe, expect, it } from 'vitest';
import type { RequestOutcome } from '../../../src/http/request-outcome.js';
import { ledgerRecordsOf } from '../../../src/runtime/observers/usage-observer.js';
import { createLedgerRecordIds, ledgerRecordIdFloor } from '../../../src/stores/ledger-record-ids.js';
import { createPriceBook } from '../../../src/usage/model-prices.js';
import type { ProviderConfig } from '../../../src/config/types.js';

const recordId = createLedgerRecordIds();
const prices = createPriceBook([{ id: 'openai', prices: { 'gpt-4.1': { input: 2, cachedInput: 0.5, output: 8 } } } as unknown as ProviderConfig]);

function outcome(overrides: Partial<RequestOutcome> = {}): RequestOutcome {
  return {
    requestId: 'req_1',
    kind: 'model',
    endpoint: '/v1/chat/completions',
    startedAt: Date.UTC(2026, 10, 15, 12),
    finishedAt: Date.UTC(2026, 10, 15, 12) + 40,
    accountId: 'acct_a',
    keyId: 'key_1',
    workspaceId: null,
    personId: null,
    routeId: 'router/frontier',
    counted: true,
    admitted: true,
    insured: false,
    quotaWeight: 1,
    status: 200,
    errorCode: null,
    servedBy: { providerId: 'openai', upstreamModel: 'gpt-4.1', credentialSource: 'byok' },
    retryCount: 0,
    attempts: [{ provider: 'openai', model: 'gpt-4.1', status: 200, error: null, latencyMs: 30 }],
    usage: { prompt: 1000, completion: 100, reasoning: 10, cached: 200 },
    firstByteMs: 35,
    totalMs: 40,
    finishReason: 'stop',
    clientClosed: false,
    spendReservation: null,
    ...overrides,
  };
}

describe('usage records from request outcomes', () => {
  it('records a served request with its tokens and its cost at the model price', () => {
    const [record, ...rest] = ledgerRecordsOf(outcome(), prices, recordId);
    expect(rest).toEqual([]);
    expect(record).toMatchObject({
      id: expect.stringMatching(/^use_[0-9a-z]{9}[0-9a-f]{10}[0-9a-z]+$/),
      requestId: 'req_1',
      call: 'main',
      startedAt: '2026-11-15T12:00:00.000Z',
      providerId: 'openai',
      credentialSource: 'byok',
      usage: { prompt: 1000, completion: 100, reasoning: 10, cached: 200 },
      // 800 × 2000 + 200 × 500 + 100 × 8000 nano-USD
      costNanoUsd: 2_500_000,
      // The same cost split per token type, whole nano-dollars adding up to it; the reads saved 200 × 1500.
      costParts: { input: 1_600_000, cacheRead: 100_000, cacheWrite: 0, cacheWrite1h: 0, output: 720_000, reasoning: 80_000, cacheSavings: 300_000 },
      finishReason: 'stop',
      meteredNanoUsd: 0,
      reservationId: null,
    });
  });

  it('gives records ids that sort by their start, so time ranges are id ranges', () => {
    const ids = [3, 1, 2].map((minute) => ledgerRecordsOf(outcome({ startedAt: Date.UTC(2026, 10, 15, 12, minute) }), prices, recordId)[0]!.id);
    expect([...ids].sort()).toEqual([ids[1], ids[2], ids[0]]);
    expect(ids[1]! >= ledgerRecordIdFloor(Date.UTC(2026, 10, 15, 12, 1))).toBe(true);
    expect(ids[1]! < ledgerRecordIdFloor(Date.UTC(2026, 10, 15, 12, 1, 0, 1))).toBe(true);
  });

  it('marks tokens unknown (never guessed) when the upstream reported none, and the cost with them', () => {
    const [record] = ledgerRecordsOf(outcome({ usage: null }), prices, recordId);
    expect(record).toMatchObject({ usage: null, costNanoUsd: null });
  });

  it('records an insured answer at cost 0 on managed access, charging no spend cap or budget, and marks it', () => {
    const managed = { providerId: 'openai', upstreamModel: 'gpt-4.1', credentialSource: 'managed' as const };
    const [paid] = ledgerRecordsOf(outcome({ servedBy: managed, usage: { prompt: 1000, completion: 0, reasoning: 0, cached: 0 }, finishReason: null }), prices, recordId);
    expect(paid).toMatchObject({ costNanoUsd: 2_000_000, meteredNanoUsd: 2_000_000, budgetNanoUsd: 2_000_000 });
    expect(paid!.insured).toBeUndefined();
    const [insured] = ledgerRecordsOf(outcome({ servedBy: managed, usage: { prompt: 1000, completion: 0, reasoning: 0, cached: 0 }, finishReason: null, insured: true }), prices, recordId);
    expect(insured).toMatchObject({ usage: { prompt: 1000, completion: 0 }, costNanoUsd: 0, costParts: null, meteredNanoUsd: 0, budgetNanoUsd: 0, insured: true });
    // Unknown tokens (a stream cut before its usage) cost 0 too, never the held estimate.
    const [cut] = ledgerRecordsOf(outcome({ servedBy: managed, usage: null, errorCode: 'upstream_stream_interrupted', insured: true }), prices, recordId);
    expect(cut).toMatchObject({ usage: null, costNanoUsd: 0, meteredNanoUsd: 0, budgetNanoUsd: 0, insured: true });
  });

  it('leaves the cost unknown for a model without a price', () => {
    const [record] = ledgerRecordsOf(outcome({ servedBy: { providerId: 'openai', upstreamModel: 'gpt-9', credentialSource: 'byok' } }), prices, recordId);
    expect(record).toMatchObject({ usage: { prompt: 1000 }, costNanoUsd: null });
  });

  it('records a request no upstream served with zero tokens and its attempts', () => {
    const [record] = ledgerRecordsOf(
      outcome({ servedBy: null, usage: null, status: 502, errorCode: 'all_upstreams_failed', retryCount: 1, attempts: [{ provider: 'openai', model: 'gpt-4.1', status: 503, error: 'server_error', latencyMs: 5 }] }),
      prices,
      recordId,
    );
    expect(record).toMatchObject({ providerId: null, usage: { prompt: 0, completion: 0, reasoning: 0, cached: 0 }, costNanoUsd: 0, errorCode: 'all_upstreams_failed', retryCount: 1 });
  });

  it('meters managed spend at the cost, or at the held estimate when the cost is unknown, and settles the reservation', () => {
    const managed = { providerId: 'openai', upstreamModel: 'gpt-4.1', credentialSource: 'managed' as const };
    const reservation = { id: 'spr_1', estimateNanoUsd: 9_000_000 };
    expect(ledgerRecordsOf(outcome({ servedBy: managed, spendReservation: reservation }), prices, recordId)[0]).toMatchObject({ meteredNanoUsd: 2_500_000, reservationId: 'spr_1' });
    expect(ledgerRecordsOf(outcome({ servedBy: managed, spendReservation: reservation, usage: null }), prices, recordId)[0]).toMatchObject({ meteredNanoUsd: 9_000_000 });
    expect(ledgerRecordsOf(outcome({ servedBy: null, spendReservation: reservation, status: 502 }), prices, recordId)[0]).toMatchObject({ meteredNanoUsd: 0, reservationId: 'spr_1' });
  });

  it('keeps an upstream-chosen code only when it looks like a code', () => {
    const [record] = ledgerRecordsOf(
      outcome({ errorCode: 'boom! <script>', attempts: [{ provider: 'openai', model: 'gpt-4.1', status: 500, error: 'Internal error: prompt was "hello"', latencyMs: 1 }] }),
      prices,
      recordId,
    );
    expect(record!.errorCode).toBe('upstream_error');
    expect(record!.attempts[0]!.error).toBe('upstream_error');
  });

  it('records nothing for the model list, for requests refused before admission, or without an account', () => {
    expect(ledgerRecordsOf(outcome({ kind: 'other' }), prices, recordId)).toEqual([]);
    expect(ledgerRecordsOf(outcome({ admitted: false, status: 429, errorCode: 'rate_limit_exceeded' }), prices, recordId)).toEqual([]);
    expect(ledgerRecordsOf(outcome({ accountId: null }), prices, recordId)).toEqual([]);
  });
});
