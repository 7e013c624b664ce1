/**
 * SQL both ledger stores share (it is the same in SQLite and PostgreSQL), and the mapping of their rows
 * back to records: the drivers differ only in how they hand back timestamps, JSON, booleans and 64-bit sums.
 */
import type { AttributedCell, KeySpendWindows, LedgerAttempt, LedgerCostParts, LedgerRecord, UsageCell, UsageDimension, UsageSums } from './ledger-store.js';

/** A cost part's column in usage_records and usage_rollups (version 7), by its name in LedgerCostParts. */
const COST_PART_COLUMN = {
  input: 'input_cost_nano_usd',
  cacheRead: 'cache_read_cost_nano_usd',
  cacheWrite: 'cache_write_cost_nano_usd',
  cacheWrite1h: 'cache_write_1h_cost_nano_usd',
  output: 'output_cost_nano_usd',
  reasoning: 'reasoning_cost_nano_usd',
  serverTools: 'server_tools_cost_nano_usd',
  cacheSavings: 'cache_savings_nano_usd',
} as const satisfies Record<keyof LedgerCostParts, string>;

export const COST_PART_COLUMNS = [
  'input_cost_nano_usd',
  'cache_read_cost_nano_usd',
  'cache_write_cost_nano_usd',
  'cache_write_1h_cost_nano_usd',
  'output_cost_nano_usd',
  'reasoning_cost_nano_usd',
  'cache_savings_nano_usd',
  'server_tools_cost_nano_usd',
] as const;

/** The columns of usage_records, in insert order. */
export const RECORD_COLUMNS = [
  'id',
  'request_id',
  'call',
  'started_at',
  'account_id',
  'key_id',
  'route_id',
  'endpoint',
  'provider_id',
  'upstream_model',
  'credential_source',
  'status',
  'error_code',
  'retry_count',
  'attempts',
  'prompt_tokens',
  'completion_tokens',
  'reasoning_tokens',
  'cached_tokens',
  'cost_nano_usd',
  'metered_nano_usd',
  'first_byte_ms',
  'total_ms',
  'client_closed',
  'reservation_id',
  'cache_write_tokens',
  'cache_write_1h_tokens',
  ...COST_PART_COLUMNS,
  'trace_id',
  'finish_reason',
  'server_tool_calls',
  'response_cache_hit_of',
  'response_cache_saved_nano_usd',
  'workspace_id',
  'person_id',
  'insured',
  'preset_slug',
  'preset_version',
] as const;

export const ROLLUP_KEY_COLUMNS = ['account_id', 'bucket_start', 'key_id', 'route_id', 'provider_id', 'upstream_model', 'credential_source'] as const;

/** Summed columns of usage_rollups (last_at is kept as the latest, not summed). */
export const ROLLUP_SUM_COLUMNS = [
  'requests',
  'failed_requests',
  'calls',
  'prompt_tokens',
  'completion_tokens',
  'reasoning_tokens',
  'cached_tokens',
  'unknown_usage_calls',
  'unpriced_calls',
  'cost_nano_usd',
  'metered_nano_usd',
  'cache_write_tokens',
  'cache_write_1h_tokens',
  ...COST_PART_COLUMNS,
  'response_cache_hits',
  'response_cache_saved_nano_usd',
] as const;

/** The select list of every usage view over usage_rollups aliased `r`. */
export const USAGE_SUMS_SQL = [...ROLLUP_SUM_COLUMNS.map((column) => `COALESCE(SUM(r.${column}), 0) AS ${column}`), 'MAX(r.last_at) AS last_at'].join(', ');

export const DIMENSION_SQL: Readonly<Record<UsageDimension, string>> = {
  key: 'r.key_id',
  route: 'r.route_id',
  provider: 'r.provider_id',
  model: "CASE WHEN r.provider_id = '' THEN '' ELSE r.provider_id || '/' || r.upstream_model END",
};

export type Int = number | string;
type Instant = string | Date;

export type UsageSumsRow = { grp: string | null; last_at: Instant | null } & Record<(typeof ROLLUP_SUM_COLUMNS)[number], Int>;
export type UsageCellRow = UsageSumsRow & { range_label: string };
export type AttributedCellRow = UsageCellRow & { person_id: string; workspace_id: string };

/** The columns of usage_attribution_rollups (version 18), in insert order. */
export const ATTRIBUTION_ROLLUP_COLUMNS = ['account_id', 'bucket_start', 'key_id', 'person_id', 'workspace_id', ...ROLLUP_SUM_COLUMNS, 'last_at'] as const;

export interface LedgerRecordRow {
  id: string;
  request_id: string;
  call: string;
  started_at: Instant;
  account_id: string;
  key_id: string | null;
  route_id: string | null;
  endpoint: string;
  provider_id: string | null;
  upstream_model: string | null;
  credential_source: 'byok' | 'managed' | null;
  status: number;
  error_code: string | null;
  retry_count: number;
  attempts: string | LedgerAttempt[];
  prompt_tokens: number | null;
  completion_tokens: number | null;
  reasoning_tokens: number | null;
  cached_tokens: number | null;
  cost_nano_usd: Int | null;
  metered_nano_usd: Int;
  first_byte_ms: number | null;
  total_ms: number;
  client_closed: number | boolean;
  reservation_id: string | null;
  cache_write_tokens: number | null;
  cache_write_1h_tokens: number | null;
  input_cost_nano_usd: Int | null;
  cache_read_cost_nano_usd: Int | null;
  cache_write_cost_nano_usd: Int | null;
  cache_write_1h_cost_nano_usd: Int | null;
  output_cost_nano_usd: Int | null;
  reasoning_cost_nano_usd: Int | null;
  cache_savings_nano_usd: Int | null;
  server_tools_cost_nano_usd: Int | null;
  server_tool_calls: string | Record<string, number> | null;
  finish_reason: string | null;
  trace_id: string | null;
  response_cache_hit_of?: string | null;
  response_cache_saved_nano_usd?: Int | null;
  insured?: number | boolean | null;
  /** Version 13; absent on rows read by a query that predates it. */
  workspace_id?: string | null;
  /** Version 12. */
  person_id?: string | null;
  /** Version 15. */
  preset_slug?: string | null;
  preset_version?: number | string | null;
}

/** A 64-bit sum as a JS number; throws rather than round silently (2^53 nano-USD is 9 million USD). */
export function toSafeInteger(value: Int): number {
  const number = Number(value);
  if (!Number.isSafeInteger(number)) throw new Error(`ledger sum ${String(value)} is beyond exact JS integers`);
  return number;
}

const toIso = (value: Instant): string => (value instanceof Date ? value.toISOString() : value);

export function toUsageSums(row: UsageSumsRow): UsageSums {
  return {
    group: row.grp === null || row.grp === '' ? null : row.grp,
    requests: toSafeInteger(row.requests),
    failedRequests: toSafeInteger(row.failed_requests),
    calls: toSafeInteger(row.calls),
    promptTokens: toSafeInteger(row.prompt_tokens),
    completionTokens: toSafeInteger(row.completion_tokens),
    reasoningTokens: toSafeInteger(row.reasoning_tokens),
    cachedTokens: toSafeInteger(row.cached_tokens),
    unknownUsageCalls: toSafeInteger(row.unknown_usage_calls),
    unpricedCalls: toSafeInteger(row.unpriced_calls),
    costNanoUsd: toSafeInteger(row.cost_nano_usd),
    meteredNanoUsd: toSafeInteger(row.metered_nano_usd),
    cacheWriteTokens: toSafeInteger(row.cache_write_tokens),
    cacheWrite1hTokens: toSafeInteger(row.cache_write_1h_tokens),
    inputCostNanoUsd: toSafeInteger(row.input_cost_nano_usd),
    cacheReadCostNanoUsd: toSafeInteger(row.cache_read_cost_nano_usd),
    cacheWriteCostNanoUsd: toSafeInteger(row.cache_write_cost_nano_usd),
    cacheWrite1hCostNanoUsd: toSafeInteger(row.cache_write_1h_cost_nano_usd),
    outputCostNanoUsd: toSafeInteger(row.output_cost_nano_usd),
    reasoningCostNanoUsd: toSafeInteger(row.reasoning_cost_nano_usd),
    cacheSavingsNanoUsd: toSafeInteger(row.cache_savings_nano_usd),
    serverToolsCostNanoUsd: toSafeInteger(row.server_tools_cost_nano_usd),
    responseCacheHits: toSafeInteger(row.response_cache_hits),
    responseCacheSavedNanoUsd: toSafeInteger(row.response_cache_saved_nano_usd),
    lastAt: row.last_at === null ? null : toIso(row.last_at),
  };
}

export function toUsageCell(row: UsageCellRow): UsageCell {
  return { range: row.range_label, ...toUsageSums(row) };
}

export function toAttributedCell(row: AttributedCellRow): AttributedCell {
  const cell = toUsageCell(row);
  return { ...cell, keyId: cell.group, personId: row.person_id === '' ? null : row.person_id, workspaceId: row.workspace_id === '' ? null : row.workspace_id };
}

export function toLedgerRecord(row: LedgerRecordRow): LedgerRecord {
  const known = row.prompt_tokens !== null;
  return {
    id: row.id,
    requestId: row.request_id,
    call: row.call,
    startedAt: toIso(row.started_at),
    accountId: row.account_id,
    keyId: row.key_id,
    routeId: row.route_id,
    endpoint: row.endpoint,
    providerId: row.provider_id,
    upstreamModel: row.upstream_model,
    credentialSource: row.credential_source,
    status: row.status,
    errorCode: row.error_code,
    retryCount: row.retry_count,
    attempts: typeof row.attempts === 'string' ? (JSON.parse(row.attempts) as LedgerAttempt[]) : row.attempts,
    usage: known
      ? {
          prompt: row.prompt_tokens!,
          completion: row.completion_tokens ?? 0,
          reasoning: row.reasoning_tokens ?? 0,
          cached: row.cached_tokens ?? 0,
          ...(row.cache_write_tokens ? { cacheWrite: row.cache_write_tokens } : {}),
          ...(row.cache_write_1h_tokens ? { cacheWrite1h: row.cache_write_1h_tokens } : {}),
          ...(row.server_tool_calls ? { serverToolCalls: typeof row.server_tool_calls === 'string' ? (JSON.parse(row.server_tool_calls) as Record<string, number>) : row.server_tool_calls } : {}),
        }
      : null,
    costNanoUsd: row.cost_nano_usd === null ? null : toSafeInteger(row.cost_nano_usd),
    costParts: costPartsOf(row),
    meteredNanoUsd: toSafeInteger(row.metered_nano_usd),
    firstByteMs: row.first_byte_ms,
    totalMs: row.total_ms,
    finishReason: row.finish_reason ?? null,
    clientClosed: row.client_closed === true || row.client_closed === 1,
    reservationId: row.reservation_id,
    ...(row.insured === true || row.insured === 1 ? { insured: true } : {}),
    ...(row.workspace_id ? { workspaceId: row.workspace_id } : {}),
    ...(row.person_id ? { personId: row.person_id } : {}),
    ...(row.preset_slug && row.preset_version !== null && row.preset_version !== undefined ? { preset: { slug: row.preset_slug, version: Number(row.preset_version) } } : {}),
    ...(row.trace_id ? { traceId: row.trace_id } : {}),
    ...(row.response_cache_hit_of
      ? { responseCache: { hitOf: row.response_cache_hit_of, savedNanoUsd: row.response_cache_saved_nano_usd === null || row.response_cache_saved_nano_usd === undefined ? null : toSafeInteger(row.response_cache_saved_nano_usd) } }
      : {}),
  };
}

function costPartsOf(row: LedgerRecordRow): LedgerCostParts | null {
  if (row.input_cost_nano_usd === null || row.input_cost_nano_usd === undefined) return null;
  const parts = {} as LedgerCostParts;
  for (const [name, column] of Object.entries(COST_PART_COLUMN) as [keyof LedgerCostParts, (typeof COST_PART_COLUMNS)[number]][]) {
    parts[name] = toSafeInteger(row[column] ?? 0);
  }
  return parts;
}

/** The values of a record in RECORD_COLUMNS order (attempts as JSON text; the caller adapts booleans). */
export function recordValues(record: LedgerRecord): Record<(typeof RECORD_COLUMNS)[number], string | number | boolean | null> {
  return {
    id: record.id,
    request_id: record.requestId,
    call: record.call,
    started_at: record.startedAt,
    account_id: record.accountId,
    key_id: record.keyId,
    route_id: record.routeId,
    endpoint: record.endpoint,
    provider_id: record.providerId,
    upstream_model: record.upstreamModel,
    credential_source: record.credentialSource,
    status: record.status,
    error_code: record.errorCode,
    retry_count: record.retryCount,
    attempts: JSON.stringify(record.attempts),
    prompt_tokens: record.usage?.prompt ?? null,
    completion_tokens: record.usage?.completion ?? null,
    reasoning_tokens: record.usage?.reasoning ?? null,
    cached_tokens: record.usage?.cached ?? null,
    cost_nano_usd: record.costNanoUsd,
    metered_nano_usd: record.meteredNanoUsd,
    first_byte_ms: record.firstByteMs,
    total_ms: record.totalMs,
    client_closed: record.clientClosed,
    reservation_id: record.reservationId,
    cache_write_tokens: record.usage ? (record.usage.cacheWrite ?? 0) : null,
    cache_write_1h_tokens: record.usage ? (record.usage.cacheWrite1h ?? 0) : null,
    input_cost_nano_usd: record.costParts?.input ?? null,
    cache_read_cost_nano_usd: record.costParts?.cacheRead ?? null,
    cache_write_cost_nano_usd: record.costParts?.cacheWrite ?? null,
    cache_write_1h_cost_nano_usd: record.costParts?.cacheWrite1h ?? null,
    output_cost_nano_usd: record.costParts?.output ?? null,
    reasoning_cost_nano_usd: record.costParts?.reasoning ?? null,
    cache_savings_nano_usd: record.costParts?.cacheSavings ?? null,
    server_tools_cost_nano_usd: record.costParts?.serverTools ?? null,
    finish_reason: record.finishReason,
    trace_id: record.traceId ?? null,
    server_tool_calls: record.usage?.serverToolCalls ? JSON.stringify(record.usage.serverToolCalls) : null,
    response_cache_hit_of: record.responseCache?.hitOf ?? null,
    response_cache_saved_nano_usd: record.responseCache?.savedNanoUsd ?? null,
    workspace_id: record.workspaceId ?? null,
    person_id: record.personId ?? null,
    insured: record.insured === true,
    preset_slug: record.preset?.slug ?? null,
    preset_version: record.preset?.version ?? null,
  };
}

/**
 * recordValues as positional parameters, in RECORD_COLUMNS order (test/unit/stores/ledger-sql.test.ts
 * holds the two in step). SQLite binds an array by index, while an object of named parameters costs a
 * property look-up by name per column and record, and an object of 44 fields per record on top.
 */
export function recordRow(record: LedgerRecord): (string | number | boolean | null)[] {
  const usage = record.usage;
  const parts = record.costParts;
  return [
    record.id,
    record.requestId,
    record.call,
    record.startedAt,
    record.accountId,
    record.keyId,
    record.routeId,
    record.endpoint,
    record.providerId,
    record.upstreamModel,
    record.credentialSource,
    record.status,
    record.errorCode,
    record.retryCount,
    JSON.stringify(record.attempts),
    usage?.prompt ?? null,
    usage?.completion ?? null,
    usage?.reasoning ?? null,
    usage?.cached ?? null,
    record.costNanoUsd,
    record.meteredNanoUsd,
    record.firstByteMs,
    record.totalMs,
    record.clientClosed,
    record.reservationId,
    usage ? (usage.cacheWrite ?? 0) : null,
    usage ? (usage.cacheWrite1h ?? 0) : null,
    parts?.input ?? null,
    parts?.cacheRead ?? null,
    parts?.cacheWrite ?? null,
    parts?.cacheWrite1h ?? null,
    parts?.output ?? null,
    parts?.reasoning ?? null,
    parts?.cacheSavings ?? null,
    parts?.serverTools ?? null,
    record.traceId ?? null,
    record.finishReason,
    usage?.serverToolCalls ? JSON.stringify(usage.serverToolCalls) : null,
    record.responseCache?.hitOf ?? null,
    record.responseCache?.savedNanoUsd ?? null,
    record.workspaceId ?? null,
    record.personId ?? null,
    record.insured === true,
    record.preset?.slug ?? null,
    record.preset?.version ?? null,
  ];
}
