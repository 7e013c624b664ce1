/**
 * A request's receipt (GET /v1/generation?id=…): what its ledger records say, in the shape of
 * OpenRouter's generation endpoint where it has a field (id, created_at, model, provider_name,
 * total_cost, cache_discount, tokens_*, native_tokens_*, latency, finish_reason, is_byok, cancelled,
 * provider_responses), with the router's own beside them (route, first_byte_latency, cost_details,
 * calls, insured). Pure: the caller finds the records (docs/api.md#the-receipt-of-a-request).
 */
import { MAIN_CALL, type LedgerCostParts, type LedgerRecord } from '../stores/ledger-store.js';

const usd = (nano: number): number => nano / 1e9;

export interface GenerationReceipt {
  data: {
    id: string;
    created_at: string;
    route: string | null;
    api_type: string;
    model: string | null;
    provider_name: string | null;
    is_byok: boolean;
    status: number;
    error_code: string | null;
    finish_reason: string | null;
    cancelled: boolean;
    /**
     * Zero-completion insurance (docs/usage.md#zero-completion-insurance): the answer ended empty (no
     * completion tokens, no finish reason) or in an error, so it cost nothing and its quota unit was given back.
     */
    insured: boolean;
    /** The preset the request named (docs/presets.md): its slug and the version applied; null when none. */
    preset: { slug: string; version: number } | null;
    /** A response-cache hit (docs/caching.md): the request whose answer was replayed (its own receipt) and what that answer cost; null otherwise. */
    response_cache: { hit: true; original_id: string; saved_cost: number | null } | null;
    /** USD over every upstream call of the request (fusion's panel and judge too); null when one's cost is unknown. */
    total_cost: number | null;
    /** The main call's cost per token type, USD (as its answer's usage.cost_details); null when unknown. */
    cost_details: Record<string, number> | null;
    /** What cache reads saved against the input price, USD (OpenRouter's cache_discount). */
    cache_discount: number | null;
    tokens_prompt: number | null;
    tokens_completion: number | null;
    native_tokens_prompt: number | null;
    native_tokens_completion: number | null;
    native_tokens_reasoning: number | null;
    native_tokens_cached: number | null;
    native_tokens_cache_write: number | null;
    native_tokens_cache_write_1h: number | null;
    /** Server tool calls the upstream reported, by tool name (`{"web_search": 2}`); null when its usage is unknown. */
    server_tool_calls: Readonly<Record<string, number>> | null;
    /** Milliseconds from the request's arrival to the end of its response. */
    latency: number;
    /** Milliseconds from the request's arrival to the first byte sent back; null when none was. */
    first_byte_latency: number | null;
    retries: number;
    /** Each upstream attempt of the main call, in order, with its outcome. */
    provider_responses: { provider_name: string; model: string; status: number | null; error_code: string | null; latency: number }[];
    /**
     * The email of the member whose key made the request, as it was when it ran (receipt-member.ts: a
     * member's key sees it on its own person's requests only); null when none or not the caller's to see.
     */
    member: string | null;
    /** The request's OpenTelemetry trace id when its trace was recorded (tracing on and sampled); null otherwise. */
    trace_id: string | null;
    /** The request's other upstream calls (fusion), each with its own cost and tokens. */
    calls: { call: string; provider_name: string | null; model: string | null; status: number; error_code: string | null; total_cost: number | null; tokens_prompt: number | null; tokens_completion: number | null; latency: number }[];
  };
}

const API_TYPES: Readonly<Record<string, string>> = { '/v1/chat/completions': 'completions', '/v1/responses': 'responses', '/v1/messages': 'messages', '/v1/embeddings': 'embeddings', '/v1/rerank': 'rerank' };

/** The `main` record a receipt is of: the newest request among the records. */
export function receiptRecord(records: readonly LedgerRecord[]): LedgerRecord | undefined {
  return records.filter((record) => record.call === MAIN_CALL).sort((a, b) => (a.id < b.id ? 1 : -1))[0];
}

/**
 * The receipt of the newest request among the records (request ids may come from the client, so one id
 * can name several requests of the account: the latest wins); undefined when there is no `main` record.
 */
export function generationReceipt(records: readonly LedgerRecord[]): GenerationReceipt | undefined {
  const main = receiptRecord(records);
  if (!main) return undefined;
  const others = records.filter((record) => record.call !== MAIN_CALL && record.startedAt === main.startedAt);
  const all = [main, ...others];
  const unknownCost = all.some((record) => record.providerId !== null && record.costNanoUsd === null);
  const usage = main.usage;
  return {
    data: {
      id: main.requestId,
      created_at: main.startedAt,
      route: main.routeId,
      api_type: API_TYPES[main.endpoint] ?? main.endpoint,
      model: main.upstreamModel,
      provider_name: main.providerId,
      is_byok: main.credentialSource === 'byok',
      status: main.status,
      error_code: main.errorCode,
      finish_reason: main.finishReason,
      cancelled: main.clientClosed,
      insured: main.insured === true,
      trace_id: main.traceId ?? null,
      member: null,
      preset: main.preset ? { slug: main.preset.slug, version: main.preset.version } : null,
      response_cache: main.responseCache ? { hit: true, original_id: main.responseCache.hitOf, saved_cost: main.responseCache.savedNanoUsd === null ? null : usd(main.responseCache.savedNanoUsd) } : null,
      total_cost: unknownCost ? null : usd(all.reduce((sum, record) => sum + (record.costNanoUsd ?? 0), 0)),
      cost_details: main.costParts ? costDetails(main.costParts) : null,
      cache_discount: main.costParts ? usd(main.costParts.cacheSavings) : null,
      tokens_prompt: usage?.prompt ?? null,
      tokens_completion: usage?.completion ?? null,
      native_tokens_prompt: usage?.prompt ?? null,
      native_tokens_completion: usage?.completion ?? null,
      native_tokens_reasoning: usage ? usage.reasoning : null,
      native_tokens_cached: usage ? usage.cached : null,
      native_tokens_cache_write: usage ? (usage.cacheWrite ?? 0) : null,
      native_tokens_cache_write_1h: usage ? (usage.cacheWrite1h ?? 0) : null,
      server_tool_calls: usage ? (usage.serverToolCalls ?? {}) : null,
      latency: main.totalMs,
      first_byte_latency: main.firstByteMs,
      retries: main.retryCount,
      provider_responses: main.attempts.map((attempt) => ({
        provider_name: attempt.provider,
        model: attempt.model,
        status: attempt.status,
        error_code: attempt.error,
        latency: attempt.latencyMs,
      })),
      calls: others.map((record) => ({
        call: record.call,
        provider_name: record.providerId,
        model: record.upstreamModel,
        status: record.status,
        error_code: record.errorCode,
        total_cost: record.costNanoUsd === null ? null : usd(record.costNanoUsd),
        tokens_prompt: record.usage?.prompt ?? null,
        tokens_completion: record.usage?.completion ?? null,
        latency: record.totalMs,
      })),
    },
  };
}

/** The same names as an answer's usage.cost_details (usage/response-cost.ts). */
function costDetails(parts: LedgerCostParts): Record<string, number> {
  return {
    input: usd(parts.input),
    cache_read: usd(parts.cacheRead),
    cache_write: usd(parts.cacheWrite),
    cache_write_1h: usd(parts.cacheWrite1h),
    output: usd(parts.output),
    reasoning: usd(parts.reasoning),
    server_tools: usd(parts.serverTools),
    cache_savings: usd(parts.cacheSavings),
  };
}
