/**
 * Monthly quota accounting as the pipeline sees it. Two implementations:
 * - `store` (stores/store-quota-ledger.ts): every decision is one atomic statement in the store.
 * - `redis-gate` (stores/redis/create-redis-quota-gate.ts): decisions in one Redis script shared by every
 *   instance, with the store holding durable reservations the gate draws on (docs/limits.md).
 * - `sqlite-gate` (stores/sqlite/create-sqlite-quota-gate.ts): decisions in this process's memory, from
 *   blocks the SQLite store holds for it, settled every second.
 * Both are exact: no number of concurrent requests on any number of instances admits more than the quota.
 */
import type { MaybePromise } from '../core/maybe-promise.js';
import type { InFlightDecision } from './concurrency-limiter.js';
import type { RateDecision } from './rate-limiter.js';
import type { AccountStatus, QuotaAdmission, QuotaAdmitInput } from './store.js';

/**
 * The rest of a model request's admission (a slot in flight, the per-minute window), for a ledger that
 * can decide it in the same atomic step as the count: the Redis gate, in one round trip.
 */
export interface AlongsideQuota {
  /** The injected clock's now, for the per-minute window. */
  nowMs: number;
  /** Per plan id: requests per minute and requests in flight (plans.yaml). */
  limitsByPlan: ReadonlyMap<string, { requestsPerMinute: number; maxConcurrentRequests: number }>;
}

export interface QuotaDecision extends QuotaAdmission {
  /** Give this request's count back (a request no upstream served). Call at most once, only when admitted. */
  refund(): Promise<void>;
  /**
   * Present when the ledger also decided the slot and the window, in the order the stages check them:
   * the caller uses these instead of asking the limiters. A request refused by either was not counted
   * (`admitted` is true with a refund that gives nothing back, so the refusal is the slot's or the
   * window's), and a request refused by the window holds no slot.
   */
  alongside?: { inFlight: InFlightDecision; rate: RateDecision };
}

/** An account's standing in a period, read without counting. */
export interface QuotaStanding {
  plan: string;
  status: AccountStatus;
  used: number;
  limit: number;
}

export interface QuotaLedgerStatus {
  /** `store-fallback`: the gate cannot reach Redis and decides in the store (still exact, slower). */
  backend: 'store' | 'redis-gate' | 'store-fallback' | 'sqlite-gate';
  reason?: string;
}

export interface QuotaLedger {
  readonly kind: 'store' | 'redis-gate' | 'sqlite-gate';
  /** Where decisions are made right now (for /readyz and logs). */
  status(): QuotaLedgerStatus;
  /**
   * `alongside`: decide the slot and the window in the same step too, where the ledger can (only the Redis
   * gate). The embedded gate answers at once when the account's units are in memory.
   */
  admit(input: QuotaAdmitInput, alongside?: AlongsideQuota): MaybePromise<QuotaDecision>;
  /** Null for an account the store does not know. */
  peek(accountId: string, period: string, limitsByPlan: Readonly<Record<string, number>>): Promise<QuotaStanding | null>;
  /**
   * Write the admissions made so far into the store's exact `used` column now. The gates do it on their
   * own every second; the store's ledger has nothing to write.
   */
  settle(): Promise<void>;
  /** Forget what is cached about an account whose plan or status changed; throws when that cannot be done. */
  forgetAccount(accountId: string): Promise<void>;
  close(): Promise<void>;
}
