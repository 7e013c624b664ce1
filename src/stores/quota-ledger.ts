/**
 * Monthly quota accounting as the pipeline sees it. Two implementations:
 * - `store` (stores/store-quota-ledger.ts): every decision is one atomic statement in the store.
 * - `redis-gate` (stores/redis/create-redis-quota-gate.ts): decisions in one Redis script shared by every
 *   instance, with the store holding durable reservations the gate draws on (docs/limits.md).
 * - `sqlite-gate` (stores/sqlite/create-sqlite-quota-gate.ts): decisions in this process's memory, from
 *   blocks the SQLite store holds for it, settled every second.
 * Both are exact: no number of concurrent requests on any number of instances admits more than the quota.
 */
import type { AccountStatus, QuotaAdmission, QuotaAdmitInput } from './store.js';

export interface QuotaDecision extends QuotaAdmission {
  /** Give this request's count back (a request no upstream served). Call at most once, only when admitted. */
  refund(): Promise<void>;
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
  admit(input: QuotaAdmitInput): Promise<QuotaDecision>;
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
