/**
 * Turns the outcome of every admitted model request into its usage-ledger record(s) and queues them
 * (never waiting on the database). Costs come from the model's price; tokens exactly as the upstream
 * reported them, or unknown. Codes an upstream chose are kept only when they look like codes.
 */
import { createLedgerRecordIds } from '../stores/ledger-record-ids.js';
import { MAIN_CALL, type LedgerRecord } from '../stores/ledger-store.js';
import { costNanoUsd, type PriceBook } from '../usage/model-prices.js';
import type { UsageLedger } from '../usage/usage-ledger.js';
import type { RequestObserver, RequestOutcome } from './request-outcome.js';

const CODE = /^[A-Za-z0-9_.:-]{1,64}$/;
const NO_TOKENS = { prompt: 0, completion: 0, reasoning: 0, cached: 0 };

export function createUsageObserver(ledger: UsageLedger, prices: PriceBook): RequestObserver {
  const recordId = createLedgerRecordIds();
  return {
    onRequestFinished(outcome) {
      const records = ledgerRecordsOf(outcome, prices, recordId);
      if (records.length > 0) ledger.append(records);
    },
  };
}

/** One `main` record per model request that passed admission; none for other traffic or refused requests. */
export function ledgerRecordsOf(outcome: RequestOutcome, prices: PriceBook, recordId: (startedAtMs: number) => string): LedgerRecord[] {
  if (outcome.kind !== 'model' || !outcome.admitted || outcome.accountId === null) return [];
  const served = outcome.servedBy;
  // Nothing served means no upstream did billable work the router knows of: zero, not unknown.
  const usage = served ? outcome.usage : NO_TOKENS;
  const price = served ? prices.priceOf(served.providerId, served.upstreamModel) : undefined;
  const cost = usage === null ? null : served === null ? 0 : price === undefined ? null : costNanoUsd(price, usage);
  const managed = served?.credentialSource === 'managed';
  return [
    {
      id: recordId(outcome.startedAt),
      requestId: outcome.requestId,
      call: MAIN_CALL,
      startedAt: new Date(outcome.startedAt).toISOString(),
      accountId: outcome.accountId,
      keyId: outcome.keyId,
      routeId: outcome.routeId,
      endpoint: outcome.endpoint,
      providerId: served?.providerId ?? null,
      upstreamModel: served?.upstreamModel ?? null,
      credentialSource: served?.credentialSource ?? null,
      status: outcome.status,
      errorCode: safeCode(outcome.errorCode),
      retryCount: outcome.retryCount,
      attempts: outcome.attempts.map((attempt) => ({ ...attempt, error: safeCode(attempt.error) })),
      usage,
      costNanoUsd: cost,
      // Managed spend is metered at the real cost, or at the held estimate when the cost is unknown.
      meteredNanoUsd: managed ? (cost ?? outcome.spendReservation?.estimateNanoUsd ?? 0) : 0,
      firstByteMs: outcome.firstByteMs,
      totalMs: outcome.totalMs,
      clientClosed: outcome.clientClosed,
      reservationId: outcome.spendReservation?.id ?? null,
    },
  ];
}

function safeCode(code: string | null): string | null {
  if (code === null) return null;
  return CODE.test(code) ? code : 'upstream_error';
}
