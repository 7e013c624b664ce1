/**
 * Turns the outcome of every admitted model request into its usage-ledger record(s) and queues them
 * (never waiting on the database). Costs come from the model's price; tokens exactly as the upstream
 * reported them, or unknown. Codes an upstream chose are kept only when they look like codes.
 */
import { createLedgerRecordIds } from '../../stores/ledger-record-ids.js';
import { MAIN_CALL, type LedgerAttempt, type LedgerCostParts, type LedgerRecord } from '../../stores/ledger-store.js';
import { costNanoUsd, costPartsNanoUsd, type PriceBook } from '../../usage/model-prices.js';
import type { UsageLedger } from '../../usage/usage-ledger.js';
import type { TokenUsage } from '../../core/token-usage.js';
import type { AttemptSummary, CredentialSource } from '../../routing/failover.js';
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
  // Zero-completion insurance (usage/zero-completion-insurance.ts): recorded at cost 0, so no spend cap,
  // budget or key limit is charged, and marked; its tokens stay as the upstream reported them.
  const cost = outcome.insured ? 0 : costOf(prices, served?.providerId ?? null, served?.upstreamModel ?? null, usage);
  const parts = outcome.insured ? null : costPartsOf(prices, served?.providerId ?? null, served?.upstreamModel ?? null, usage);
  // Fields set one by one rather than spread in: object spreads of optional parts cost more than the rest
  // of the record (bench/profile-router.mjs); an absent optional field stays absent.
  const startedAt = new Date(outcome.startedAt).toISOString();
  const main: LedgerRecord = {
    id: recordId(outcome.startedAt),
    requestId: outcome.requestId,
    call: MAIN_CALL,
    startedAt,
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
    attempts: safeAttempts(outcome.attempts),
    usage,
    costNanoUsd: cost,
    costParts: parts,
    meteredNanoUsd: metered(outcome, served?.credentialSource ?? null, cost),
    budgetNanoUsd: budgeted(outcome, served !== null, cost),
    firstByteMs: outcome.firstByteMs,
    totalMs: outcome.totalMs,
    finishReason: safeCode(outcome.finishReason),
    clientClosed: outcome.clientClosed,
    reservationId: outcome.spendReservation?.id ?? null,
  };
  setSubject(main, outcome);
  if (outcome.insured) main.insured = true;
  if (outcome.trace?.sampled) main.traceId = outcome.trace.traceId;
  if (outcome.cacheHit) main.responseCache = { hitOf: outcome.cacheHit.originalRequestId, savedNanoUsd: outcome.cacheHit.savedNanoUsd };
  if (outcome.preset) main.preset = outcome.preset;
  if (outcome.extraCalls === undefined || outcome.extraCalls.length === 0) return [main];
  return [main, ...outcome.extraCalls.map((call) => callRecord(outcome, call, prices, recordId, startedAt))];
}

/** A fusion call's own record: its provider, tokens and cost, linked to the request by its id. */
function callRecord(outcome: RequestOutcome, call: FusionCall, prices: PriceBook, recordId: (startedAtMs: number) => string, startedAt: string): LedgerRecord {
  const cost = costOf(prices, call.provider, call.model, call.usage);
  const record: LedgerRecord = {
    id: recordId(outcome.startedAt),
    requestId: outcome.requestId,
    call: call.label,
    startedAt,
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
    attempts: safeAttempts(call.attempts),
    usage: call.usage,
    costNanoUsd: cost,
    costParts: costPartsOf(prices, call.provider, call.model, call.usage),
    meteredNanoUsd: metered(outcome, call.credentialSource, cost),
    budgetNanoUsd: budgeted(outcome, true, cost),
    firstByteMs: null,
    totalMs: call.latencyMs,
    finishReason: null,
    clientClosed: outcome.clientClosed,
    reservationId: null,
  };
  setSubject(record, outcome);
  if (outcome.trace?.sampled) record.traceId = outcome.trace.traceId;
  return record;
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

/**
 * What a call adds to its key's, workspace's and member's budgets: its cost, or, when a provider served it
 * and the cost is unknown, the request's whole held estimate (never under the real spend).
 */
function budgeted(outcome: RequestOutcome, served: boolean, cost: number | null): number {
  return cost ?? (served ? (outcome.spendReservation?.estimateNanoUsd ?? 0) : 0);
}

/** The workspace and person the request counted for, when known (absent otherwise: the record's columns stay null). */
function setSubject(record: LedgerRecord, outcome: RequestOutcome): void {
  if (outcome.workspaceId) record.workspaceId = outcome.workspaceId;
  if (outcome.personId) record.personId = outcome.personId;
}

/** The attempts with any code an upstream chose kept only when it looks like a code (no copy when all do). */
function safeAttempts(attempts: readonly AttemptSummary[]): readonly LedgerAttempt[] {
  for (const attempt of attempts) {
    if (attempt.error !== null && !CODE.test(attempt.error)) return attempts.map((each) => ({ ...each, error: safeCode(each.error) }));
  }
  return attempts;
}

/** A call's own outcome as an HTTP-like status (the ledger's `status`). */
const CALL_STATUS: Readonly<Record<FusionCall['status'], number>> = { ok: 200, failed: 502, timeout: 504, empty: 502, invalid: 502, aborted: 499 };

function safeCode(code: string | null): string | null {
  if (code === null) return null;
  return CODE.test(code) ? code : 'upstream_error';
}
