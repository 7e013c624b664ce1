/**
 * How one ledger record adds to its rollup row, the same for every dialect. Rollups are per account per
 * quarter hour (UTC): the coarsest grain from which a day in any time zone in use is an exact union of
 * buckets (every current UTC offset is a whole number of quarter hours), so `--tz` reads stay exact.
 */
import { quotaPeriod } from '../core/quota-period.js';
import { MAIN_CALL, type LedgerRecord, type UsageSums } from './ledger-store.js';

export const BUCKET_MS = 15 * 60 * 1000;

/** The rollup row a record belongs to. Empty strings stand for "none" (keys of a primary key cannot be NULL). */
export interface RollupKey {
  accountId: string;
  bucketStart: string;
  keyId: string;
  routeId: string;
  providerId: string;
  upstreamModel: string;
  credentialSource: string;
}

/** What one rollup row adds up: the sums usage views report, with the latest request's instant. */
export type RollupCounts = Omit<UsageSums, 'group' | 'lastAt'> & { lastAt: string };

export function bucketStartOf(iso: string): string {
  // ISO instants from toISOString: the quarter hour is the minutes rounded down, seconds zeroed.
  if (iso.length === 24 && iso.endsWith('Z')) return `${iso.slice(0, 14)}${String(Math.floor(Number(iso.slice(14, 16)) / 15) * 15).padStart(2, '0')}:00.000Z`;
  const ms = Date.parse(iso);
  return new Date(ms - (((ms % BUCKET_MS) + BUCKET_MS) % BUCKET_MS)).toISOString();
}

/** The calendar month (UTC) a record's spend counts in, `YYYY-MM`. */
export function spendPeriodOf(iso: string): string {
  return quotaPeriod(Date.parse(iso)).key;
}

export function rollupKeyOf(record: LedgerRecord, bucketStart = bucketStartOf(record.startedAt)): RollupKey {
  return {
    accountId: record.accountId,
    bucketStart,
    keyId: record.keyId ?? '',
    routeId: record.routeId ?? '',
    providerId: record.providerId ?? '',
    upstreamModel: record.upstreamModel ?? '',
    credentialSource: record.credentialSource ?? '',
  };
}

export function rollupCountsOf(record: LedgerRecord): RollupCounts {
  const counts = zeroCounts(record.startedAt);
  addRecord(counts, record);
  return counts;
}

/**
 * Adds one record to a rollup row's counts in place: a batch sums its records into few rows (one per
 * account, quarter hour, key and route), and an object per record to add from was the ledger's largest
 * allocation per request.
 */
function addRecord(counts: RollupCounts, record: LedgerRecord): void {
  const main = record.call === MAIN_CALL;
  const served = record.providerId !== null;
  const { usage, costParts } = record;
  if (main) counts.requests += 1;
  if (main && record.errorCode !== null) counts.failedRequests += 1;
  counts.calls += 1;
  if (usage) {
    counts.promptTokens += usage.prompt;
    counts.completionTokens += usage.completion;
    counts.reasoningTokens += usage.reasoning;
    counts.cachedTokens += usage.cached;
    counts.cacheWriteTokens += usage.cacheWrite ?? 0;
    counts.cacheWrite1hTokens += usage.cacheWrite1h ?? 0;
    if (served && record.costNanoUsd === null) counts.unpricedCalls += 1;
  } else if (served) counts.unknownUsageCalls += 1;
  counts.costNanoUsd += record.costNanoUsd ?? 0;
  counts.meteredNanoUsd += record.meteredNanoUsd;
  if (costParts) {
    counts.inputCostNanoUsd += costParts.input;
    counts.cacheReadCostNanoUsd += costParts.cacheRead;
    counts.cacheWriteCostNanoUsd += costParts.cacheWrite;
    counts.cacheWrite1hCostNanoUsd += costParts.cacheWrite1h;
    counts.outputCostNanoUsd += costParts.output;
    counts.reasoningCostNanoUsd += costParts.reasoning;
    counts.cacheSavingsNanoUsd += costParts.cacheSavings;
    counts.serverToolsCostNanoUsd += costParts.serverTools;
  }
  if (record.responseCache) {
    if (main) counts.responseCacheHits += 1;
    counts.responseCacheSavedNanoUsd += record.responseCache.savedNanoUsd ?? 0;
  }
  if (record.startedAt > counts.lastAt) counts.lastAt = record.startedAt;
}

type Summable = Omit<UsageSums, 'group' | 'lastAt'> & { lastAt: string | null };

/** Sums of no records at all. */
export function emptySums(group: string | null = null): UsageSums {
  return { group, ...zeroCounts(null) };
}

/** Every count at 0, with `lastAt`. */
function zeroCounts<LastAt extends string | null>(lastAt: LastAt): Omit<UsageSums, 'group' | 'lastAt'> & { lastAt: LastAt } {
  return {
    requests: 0,
    failedRequests: 0,
    calls: 0,
    promptTokens: 0,
    completionTokens: 0,
    reasoningTokens: 0,
    cachedTokens: 0,
    unknownUsageCalls: 0,
    unpricedCalls: 0,
    costNanoUsd: 0,
    meteredNanoUsd: 0,
    cacheWriteTokens: 0,
    cacheWrite1hTokens: 0,
    inputCostNanoUsd: 0,
    cacheReadCostNanoUsd: 0,
    cacheWriteCostNanoUsd: 0,
    cacheWrite1hCostNanoUsd: 0,
    outputCostNanoUsd: 0,
    reasoningCostNanoUsd: 0,
    cacheSavingsNanoUsd: 0,
    serverToolsCostNanoUsd: 0,
    responseCacheHits: 0,
    responseCacheSavedNanoUsd: 0,
    lastAt,
  };
}

/** Add one set of sums into another: counts add up, lastAt keeps the later instant. */
export function addSums<T extends Summable>(into: T, add: Readonly<T>): void {
  for (const name of Object.keys(add) as (keyof Summable)[]) {
    if (name === 'lastAt') {
      if (add.lastAt !== null && (into.lastAt === null || add.lastAt > into.lastAt)) into.lastAt = add.lastAt;
    } else if (typeof into[name] === 'number') into[name] += add[name];
  }
}

/** Sum records into one entry per rollup row (a multi-row upsert must not touch a row twice). */
export function rollUp(records: readonly LedgerRecord[]): { key: RollupKey; counts: RollupCounts }[] {
  const rows = new Map<string, { key: RollupKey; counts: RollupCounts }>();
  for (const record of records) {
    const bucketStart = bucketStartOf(record.startedAt);
    const id = `${record.accountId}\u0000${bucketStart}\u0000${record.keyId ?? ''}\u0000${record.routeId ?? ''}\u0000${record.providerId ?? ''}\u0000${record.upstreamModel ?? ''}\u0000${record.credentialSource ?? ''}`;
    const row = rows.get(id);
    if (row) addRecord(row.counts, record);
    else rows.set(id, { key: rollupKeyOf(record, bucketStart), counts: rollupCountsOf(record) });
  }
  return [...rows.values()];
}

/** The attribution rollup row a record belongs to (version 18): its key and the key's person and workspace then. */
export interface AttributionKey {
  accountId: string;
  bucketStart: string;
  keyId: string;
  personId: string;
  workspaceId: string;
}

/** Sum records into one entry per attribution rollup row ('' for none, as in rollup keys). */
export function rollUpAttribution(records: readonly LedgerRecord[]): { key: AttributionKey; counts: RollupCounts }[] {
  const rows = new Map<string, { key: AttributionKey; counts: RollupCounts }>();
  for (const record of records) {
    const bucketStart = bucketStartOf(record.startedAt);
    const keyId = record.keyId ?? '';
    const personId = record.personId ?? '';
    const workspaceId = record.workspaceId ?? '';
    const id = `${record.accountId}\u0000${bucketStart}\u0000${keyId}\u0000${personId}\u0000${workspaceId}`;
    const row = rows.get(id);
    if (row) addRecord(row.counts, record);
    else rows.set(id, { key: { accountId: record.accountId, bucketStart, keyId, personId, workspaceId }, counts: rollupCountsOf(record) });
  }
  return [...rows.values()];
}

/** Managed spend per account and month in a batch (records that settle managed access). */
export function spendOf(records: readonly LedgerRecord[]): { accountId: string; period: string; nanoUsd: number }[] {
  const spend = new Map<string, { accountId: string; period: string; nanoUsd: number }>();
  for (const record of records) {
    if (record.meteredNanoUsd <= 0) continue;
    const period = spendPeriodOf(record.startedAt);
    const id = `${record.accountId}\u0000${period}`;
    const entry = spend.get(id) ?? { accountId: record.accountId, period, nanoUsd: 0 };
    entry.nanoUsd += record.meteredNanoUsd;
    spend.set(id, entry);
  }
  return [...spend.values()];
}
