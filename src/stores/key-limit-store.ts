/**
 * Optional per-key limits below the plan's (a leaked key cannot drain the account): a monthly request
 * cap and a requests-per-minute limit per key. The monthly cap is counted per key and period with the
 * same atomic check-and-increment as the account's quota; the per-minute limit uses the rate limiter.
 */

export interface KeyLimits {
  keyId: string;
  /** Null: only the plan's monthly quota applies. */
  monthlyRequests: number | null;
  /** Null: only the plan's per-minute limit applies. */
  requestsPerMinute: number | null;
}

export interface KeyLimitStore {
  /** Both null removes the limits. Scoped to the key's account by the caller. */
  setKeyLimits(limits: KeyLimits, actor: string): Promise<void>;
  getKeyLimits(keyId: string): Promise<KeyLimits | null>;
  listKeyLimits(accountId: string): Promise<KeyLimits[]>;
  /** Counts `weight` for the key in the period only when the result stays within `limit`. */
  admitKeyQuota(input: { keyId: string; period: string; weight: number; limit: number }): Promise<{ admitted: boolean; used: number }>;
  refundKeyQuota(keyId: string, period: string, weight: number): Promise<void>;
  readKeyQuota(keyId: string, period: string): Promise<number>;
  /** The key that replaced `keyId` through rotation, if any (rotation is idempotent in the app). */
  findReplacementKeyId(keyId: string): Promise<string | null>;
  /** Every rotation of the account's keys, old key id → replacement id, in one query (for listings). */
  listReplacements(accountId: string): Promise<ReadonlyMap<string, string>>;
}
