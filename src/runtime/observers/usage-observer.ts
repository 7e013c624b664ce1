/**
 * Turns the outcome of every admitted model request into its usage-ledger record(s) and queues them
 * (never waiting on the database). Costs come from the model's price; tokens exactly as the upstream
 * reported them, or unknown. Codes an upstream chose are kept only when they look like codes.
 */
import { createLedgerRecordIds } from '../../stores/ledger-record-ids.js';
import { MAIN_CALL, type LedgerCostParts, type LedgerRecord } from '../../stores/ledger-store.js';
import { costNanoUsd, costPartsNanoUsd, type PriceBook } from '../../usage/model-prices.js';
import type { UsageLedger } from '../../usage/usage-ledger.js';
import type { TokenUsage } from '../../core/token-usage.js';
import type { CredentialSource } from '../../routing/failover.js';
import type { FusionCall } from '../../routing/fusion/index.js';
import type { RequestObserver, RequestOutcome } from '../../http/request-outcome.js';

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

/**
 * One `main` record per model request that passed admission, plus one per other upstream call of a
 * fusion request; none for other traffic or refused requests.
 */
export function ledgerRecordsOf(outcome: RequestOutcome, prices: PriceBook, recordId: (startedAtMs: number) => string): LedgerRecord[] {
  if (outcome.kind !== 'model' || !outcome.admitted || outcome.accountId === null) return [];
  const served = outcome.servedBy;
  // Nothing served means no upstream did billable work the router knows of: zero, not unknown.
  const usage = served ? outcome.usage : NO_TOKENS;
  const cost = costOf(prices, served?.providerId ?? null, served?.upstreamModel ?? null, usage);
  const parts = costPartsOf(prices, served?.providerId ?? null, served?.upstreamModel ?? null, usage);
  const main: LedgerRecord = {
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
      costParts: parts,
      meteredNanoUsd: metered(outcome, served?.credentialSource ?? null, cost),
      firstByteMs: outcome.firstByteMs,
      totalMs: outcome.totalMs,
      finishReason: safeCode(outcome.finishReason),
      clientClosed: outcome.clientClosed,
      reservationId: outcome.spendReservation?.id ?? null,
      ...traceIdOf(outcome),
  };
  return [main, ...(outcome.extraCalls ?? []).map((call) => callRecord(outcome, call, prices, recordId))];
}

/** A fusion call's own record: its provider, tokens and cost, linked to the request by its id. */
function callRecord(outcome: RequestOutcome, call: FusionCall, prices: PriceBook, recordId: (startedAtMs: number) => string): LedgerRecord {
  const cost = costOf(prices, call.provider, call.model, call.usage);
  return {
    id: recordId(outcome.startedAt),
    requestId: outcome.requestId,
    call: call.label,
    startedAt: new Date(outcome.startedAt).toISOString(),
    accountId: outcome.accountId!,
    keyId: outcome.keyId,
    routeId: outcome.routeId,
    endpoint: outcome.endpoint,
    providerId: call.provider,
    upstreamModel: call.model,
    credentialSource: call.credentialSource,
    status: CALL_STATUS[call.status],
    errorCode: safeCode(call.error),
    retryCount: call.retryCount,
    attempts: call.attempts.map((attempt) => ({ ...attempt, error: safeCode(attempt.error) })),
    usage: call.usage,
    costNanoUsd: cost,
    costParts: costPartsOf(prices, call.provider, call.model, call.usage),
    meteredNanoUsd: metered(outcome, call.credentialSource, cost),
    firstByteMs: null,
    totalMs: call.latencyMs,
    finishReason: null,
    clientClosed: outcome.clientClosed,
    reservationId: null,
    ...traceIdOf(outcome),
  };
}

/** A request whose trace was recorded (tracing on and sampled) keeps its trace id, so a receipt or bundle leads to it. */
function traceIdOf(outcome: RequestOutcome): { traceId?: string } {
  return outcome.trace?.sampled ? { traceId: outcome.trace.traceId } : {};
}

/** What a call cost: nothing when no provider served it, unknown when its tokens or its model's price are. */
function costOf(prices: PriceBook, providerId: string | null, model: string | null, usage: TokenUsage | null): number | null {
  if (usage === null) return null;
  if (providerId === null) return 0;
  const price = model === null ? undefined : prices.priceOf(providerId, model);
  return price === undefined ? null : costNanoUsd(price, usage, (tool) => prices.serverToolPriceOf(providerId, tool));
}

/** The cost per token type (adding up to costOf's figure) where a price split it; null for no cost or no provider. */
function costPartsOf(prices: PriceBook, providerId: string | null, model: string | null, usage: TokenUsage | null): LedgerCostParts | null {
  if (usage === null || providerId === null || model === null) return null;
  const price = prices.priceOf(providerId, model);
  return price === undefined ? null : costPartsNanoUsd(price, usage, (tool) => prices.serverToolPriceOf(providerId, tool));
}

/**
 * Managed spend is metered at the real cost, or, when the cost is unknown, at the request's whole held
 * estimate (never under the real spend); calls on the account's own keys meter nothing.
 */
function metered(outcome: RequestOutcome, source: CredentialSource | null, cost: number | null): number {
  return source === 'managed' ? (cost ?? outcome.spendReservation?.estimateNanoUsd ?? 0) : 0;
}

/** A call's own outcome as an HTTP-like status (the ledger's `status`). */
const CALL_STATUS: Readonly<Record<FusionCall['status'], number>> = { ok: 200, failed: 502, timeout: 504, empty: 502, invalid: 502, aborted: 499 };

function safeCode(code: string | null): string | null {
  if (code === null) return null;
  return CODE.test(code) ? code : 'upstream_error';
}
