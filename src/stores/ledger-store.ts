/**
 * The usage ledger's storage, behind its own interface (SQLite: sqlite/create-sqlite-ledger-store.ts,
 * PostgreSQL: postgres/create-postgres-ledger-store.ts, one contract suite for both). It keeps raw
 * records per upstream call, per-account quarter-hour rollups written in the same transaction, and the
 * managed-access spend meter, so usage reports, spend caps and support bundles all read one source.
 * Stored times are UTC; money is integer nano-USD (1e-9 USD), so sums are exact in every view.
 */
import type { TokenUsage } from '../core/token-usage.js';
import type { BudgetReservation, BudgetReservationInput } from './budget-store.js';

/** The call label of a request's own record; other calls of the same request (fusion) use their own labels. */
export const MAIN_CALL = 'main';

/** One upstream attempt as the ledger keeps it (the same fields as routing's AttemptSummary). */
export interface LedgerAttempt {
  provider: string;
  model: string;
  status: number | null;
  error: string | null;
  latencyMs: number;
}

/** A record's cost per token type in whole nano-USD (they add up to its costNanoUsd), and what its cache reads saved. */
export interface LedgerCostParts {
  input: number;
  cacheRead: number;
  cacheWrite: number;
  cacheWrite1h: number;
  output: number;
  reasoning: number;
  /** The server tool calls at their per-call prices (web search, …); 0 in records written before. */
  serverTools: number;
  cacheSavings: number;
}

export interface LedgerRecord {
  /**
   * The record's own key (request ids may come from the client, so they are not unique), made by
   * createLedgerRecordIds (ledger-record-ids.ts): it sorts by `startedAt`, which pruning and time-bounded
   * scans rely on.
   */
  id: string;
  requestId: string;
  /** `main` for the request itself; fusion's panel members and judge use other labels. */
  call: string;
  /** ISO 8601 UTC instant the request arrived. */
  startedAt: string;
  accountId: string;
  keyId: string | null;
  routeId: string | null;
  endpoint: string;
  providerId: string | null;
  upstreamModel: string | null;
  credentialSource: 'byok' | 'managed' | null;
  /** The HTTP status the client got (for `main`), or the call's own outcome. */
  status: number;
  errorCode: string | null;
  retryCount: number;
  attempts: readonly LedgerAttempt[];
  /** Tokens as the upstream reported them; null = unknown (an upstream served it and reported none). */
  usage: TokenUsage | null;
  /** From the model's price; null when the usage is unknown or the model has no price. */
  costNanoUsd: number | null;
  /** costNanoUsd per token type (whole nano-USD adding up to it) and the cache savings; null when the cost is null or unsplit (a call no provider served, rows before version 7). */
  costParts: LedgerCostParts | null;
  /** What this call adds to the account's managed-access spend (its cost, or its estimate when the cost is unknown); 0 for BYOK. */
  meteredNanoUsd: number;
  firstByteMs: number | null;
  totalMs: number;
  /** Why the answer ended (the main call's finish reason as the client saw it); null when unknown. */
  finishReason: string | null;
  clientClosed: boolean;
  /** The spend reservation this record settles (managed access), released in the same transaction. */
  reservationId: string | null;
  /** The workspace of the request's key at request time (version 13); null or absent: unknown or before workspaces. */
  workspaceId?: string | null;
  /** The person who made the request's key, at request time (version 12); null or absent: none (the CLI's keys). */
  personId?: string | null;
  /**
   * What this call adds to the budgets of its key, workspace and member: its cost, or the request's held
   * estimate when the cost is unknown. Never stored as a column; absent: its cost (0 when unknown).
   */
  budgetNanoUsd?: number;
  /** The request's OpenTelemetry trace id (32 hex digits) when it was traced and sampled; absent otherwise. */
  traceId?: string;
  /** Zero-completion insurance (version 16): the answer ended empty or in an error, so it cost the caller nothing (its cost is 0). Absent: not insured. */
  insured?: boolean;
  /** A response-cache hit (version 17): the request whose answer it replayed, and that answer's cost, the spend the hit saved (null: unknown). */
  responseCache?: { hitOf: string; savedNanoUsd: number | null };
  /** The preset the request used (version 15): its slug and the version applied; absent: none. */
  preset?: { slug: string; version: number };
}

/** Sums over records, as every usage view reports them. */
export interface UsageSums {
  /** The group's value (a day label, key id, route id, provider id or `provider/model`); null for "none". */
  group: string | null;
  /** Requests (their `main` records). */
  requests: number;
  /** Requests that ended with an error code (also one sent in-band after a stream started). */
  failedRequests: number;
  /** Upstream-call records, `main` included. */
  calls: number;
  promptTokens: number;
  completionTokens: number;
  reasoningTokens: number;
  cachedTokens: number;
  /** Prompt tokens written to a provider's cache, every lifetime; `cacheWrite1hTokens` is the 1-hour part of it. */
  cacheWriteTokens: number;
  cacheWrite1hTokens: number;
  /** Calls an upstream served without reporting usage: their tokens and cost are not in the sums. */
  unknownUsageCalls: number;
  /** Calls with known usage whose model has no price: their cost is not in the sums. */
  unpricedCalls: number;
  costNanoUsd: number;
  /** costNanoUsd per token type (they add up to it, less the cost of records written before they were split). */
  inputCostNanoUsd: number;
  cacheReadCostNanoUsd: number;
  cacheWriteCostNanoUsd: number;
  cacheWrite1hCostNanoUsd: number;
  outputCostNanoUsd: number;
  reasoningCostNanoUsd: number;
  /** The server tool calls (pricing.yaml serverToolPrices), part of costNanoUsd beside the token types. */
  serverToolsCostNanoUsd: number;
  /** What cache reads saved against the input price. */
  cacheSavingsNanoUsd: number;
  /** Managed-access spend metered against the plan's cap. */
  meteredNanoUsd: number;
  /** Requests answered from the response cache, and the spend their original answers cost (docs/caching.md). */
  responseCacheHits: number;
  responseCacheSavedNanoUsd: number;
  /** ISO instant of the latest request in the group; null for an empty range. */
  lastAt: string | null;
}

export type UsageDimension = 'key' | 'route' | 'provider' | 'model';

/**
 * Only the usage of these keys (a member's own, a workspace's): an empty list matches nothing. Absent:
 * every key's usage, and that of requests made with no key. Bounded by the account's keys.
 */
export type KeyFilter = readonly string[];

/**
 * Requests caused by one person and/or workspace, as recorded with each request (its person since
 * version 12, its workspace since 13). A request recorded without one counts for its key's holder or
 * workspace now, as the attributed rollups do (usage-attribution.ts), hence the keys each side has now.
 */
export interface RecordedScope {
  person?: { id: string; keyIdsNow: KeyFilter };
  workspace?: { id: string; keyIdsNow: KeyFilter };
}

/** A half-open UTC interval [from, to) with the label rows are grouped under (a local day). */
export interface UsageRange {
  label: string;
  from: string;
  to: string;
}

/** Sums of one dimension value within one range (a cell of a per-day chart). */
export interface UsageCell extends UsageSums {
  /** The range's label (a local day). */
  range: string;
}

/** Sums of one key's usage within one range, as its person and workspace then were (version 18). */
export interface AttributedCell extends UsageCell {
  /** The key's id (the cell's group too); null for usage with no key. */
  keyId: string | null;
  /** The person the key belonged to when the usage was recorded; null: none (a key the operator made). */
  personId: string | null;
  /** The key's workspace then; null: unknown (its organization's default). */
  workspaceId: string | null;
}

export interface SpendReservationInput {
  id: string;
  accountId: string;
  /** `YYYY-MM`, the calendar month (UTC) of the request. */
  period: string;
  nanoUsd: number;
  /** Admitted only while spent + reserved (live reservations) stays below this. */
  capNanoUsd: number;
  /** A reservation not settled by then (its instance crashed) stops counting. */
  expiresAt: string;
  now: string;
}

export interface SpendStanding {
  spentNanoUsd: number;
  reservedNanoUsd: number;
}

/** A key's cost in one window, split by whose provider credential served it. */
export interface KeySpend {
  /** Served on the operator's provider keys (managed access). */
  managedNanoUsd: number;
  /** Served on the account's own provider keys. */
  byokNanoUsd: number;
}

/** The windows /v1/key reports: all time, and since the start of the current UTC day, week (Monday) and month. */
export type KeySpendWindows = Record<'total' | 'day' | 'week' | 'month', KeySpend>;

export interface LedgerStore {
  readonly kind: 'sqlite' | 'postgres';
  /** Apply pending migrations (the same versioned list as the main store's). Idempotent. */
  migrate(): Promise<void>;
  /** Throws unless the ledger's tables answer. */
  ping(): Promise<void>;
  close(): Promise<void>;

  /**
   * Write a batch atomically: the records (a record id already stored is skipped), their rollups, the
   * managed spend they add, and the release of the reservations they settle. Returns how many were new.
   */
  writeBatch(records: readonly LedgerRecord[]): Promise<{ written: number }>;

  /** Atomic across instances: hold `nanoUsd` when spent + live reservations is below the cap. */
  reserveSpend(input: SpendReservationInput): Promise<SpendStanding & { reserved: boolean }>;
  readSpend(accountId: string, period: string, now: string): Promise<SpendStanding>;
  /**
   * Atomic across instances: hold `nanoUsd` against every budget in `holds` when each one's spent + live
   * reservations is below its limit; otherwise hold nothing and name the first that is not. writeBatch
   * releases the holds of the records' reservationId and meters what the records cost (budget-meter.ts).
   */
  reserveBudgets(input: BudgetReservationInput): Promise<BudgetReservation>;

  /** One query: sums per range label (every range gets a row, zeros included), in range order; with `keyIds`, of those keys only. */
  sumUsageByRange(accountId: string, ranges: readonly UsageRange[], keyIds?: KeyFilter): Promise<UsageSums[]>;
  /** One query: sums per dimension value over [from, to), largest cost first; with `keyIds`, of those keys only. */
  sumUsageBy(accountId: string, from: string, to: string, dimension: UsageDimension, keyIds?: KeyFilter): Promise<UsageSums[]>;
  /**
   * One query: sums per range and dimension value, for per-day charts by key, route, provider or model.
   * Only cells with usage are returned, in range order, then largest cost first within a range.
   * With `keyIds`, only those keys' usage (the per-key view, a member's own usage, a workspace's).
   */
  sumUsageByRangeAnd(accountId: string, ranges: readonly UsageRange[], dimension: UsageDimension, keyIds?: KeyFilter): Promise<UsageCell[]>;
  /**
   * One query over the attribution rollups (version 18): sums per range, key, and the person and
   * workspace the key belonged to when it was used, for the usage written since; only cells with usage,
   * in range order. With `keyIds`, of those keys only. What usage_rollups holds beyond these sums (usage
   * from before version 18, or written by an older release) was never attributed (usage-attribution.ts).
   */
  sumAttributedUsage(accountId: string, ranges: readonly UsageRange[], keyIds?: KeyFilter): Promise<AttributedCell[]>;
  /**
   * One query over the rollups (so it outlives raw retention): a key's cost split by credential source,
   * all time and since each of the given instants (quarter-hour aligned, as 00:00 UTC is).
   */
  sumKeySpend(accountId: string, keyId: string, since: Record<'day' | 'week' | 'month', string>): Promise<KeySpendWindows>;
  /** sumKeySpend for several keys of the account in one query, each asked key in the map (zeros without usage). */
  sumKeysSpend(accountId: string, keyIds: readonly string[], since: Record<'day' | 'week' | 'month', string>): Promise<Map<string, KeySpendWindows>>;
  /** One query: the latest request per key of the account (from the rollups, so it outlives raw retention). */
  lastUsedByKey(accountId: string): Promise<{ keyId: string; lastAt: string }[]>;

  /** Raw records of a request id, newest first; only the account's when accountId is given. */
  findRecords(filter: { requestId: string; accountId?: string }): Promise<LedgerRecord[]>;
  /**
   * The account's `main` records, newest first, started before `before` when given; with `keyIds`, of
   * those keys only; with `recorded`, only those that person and/or workspace caused.
   */
  listRequests(filter: { accountId: string; before?: string; limit: number; keyIds?: KeyFilter; recorded?: RecordedScope }): Promise<LedgerRecord[]>;
  /** Requests that ended with each error code since an instant (one account's, or all). */
  countErrors(filter: { since: string; accountId?: string }): Promise<{ code: string; count: number }[]>;

  /** Delete raw records started before `recordsBefore` (up to `limit`) and reservations expired by `now`. */
  prune(input: { recordsBefore: string; now: string; limit: number }): Promise<{ records: number; reservations: number }>;

  /**
   * Append an operator audit event for a configuration fact (plans, managed access) when its fingerprint
   * differs from the last one recorded for the action; atomic, so instances starting together record it once.
   */
  recordConfigChange(input: { action: string; fingerprint: string; details: Record<string, unknown>; at: string }): Promise<boolean>;
}
