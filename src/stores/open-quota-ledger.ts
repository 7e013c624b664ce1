/** Picks the monthly quota ledger from the `rateLimit` setting (config/server.yaml); Redis is imported only when used. */
import type { RateLimitConfig } from '../config/types.js';
import { forgetOnAccountChange } from './forget-on-account-change.js';
import type { QuotaLedger } from './quota-ledger.js';
import type { Store } from './store.js';
import { createStoreQuotaLedger } from './store-quota-ledger.js';

export interface OpenQuotaLedgerOptions {
  /** Called when the Redis gate moves its decisions to the store (log it). */
  onUnavailable?: (reason: string) => void;
  /** Called when an account change is committed but the gate could not be told (warn about it). */
  onForgetFailed: (accountId: string, error: unknown) => void;
}

/**
 * The Redis gate when the windows are in Redis and `quotaGate` is not switched off; the store's own
 * admission otherwise. Comes with the store to use from then on: the same store, whose plan changes and
 * deactivations also reach the ledger, so no caller can open one without the other.
 */
export async function openQuotaLedger(
  config: RateLimitConfig,
  store: Store,
  options: OpenQuotaLedgerOptions,
): Promise<{ quota: QuotaLedger; store: Store }> {
  const quota = await pickLedger(config, store, options);
  return { quota, store: forgetOnAccountChange(store, quota, options.onForgetFailed) };
}

async function pickLedger(config: RateLimitConfig, store: Store, options: OpenQuotaLedgerOptions): Promise<QuotaLedger> {
  if (config.backend !== 'redis' || config.quotaGate === false) return createStoreQuotaLedger(store);
  if (!config.redisUrl) throw new Error('rateLimit.backend is redis but rateLimit.redisUrl is not set');
  const { createRedisQuotaGate } = await import('./redis/create-redis-quota-gate.js');
  return createRedisQuotaGate({ store, url: config.redisUrl, keyPrefix: config.keyPrefix, onUnavailable: options.onUnavailable });
}
