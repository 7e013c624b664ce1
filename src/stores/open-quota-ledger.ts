/** Picks the monthly quota ledger from the `rateLimit` setting (config/server.yaml) and the store; Redis is imported only when used. */
import type { RateLimitConfig } from '../config/types.js';
import { forgetOnAccountChange } from './forget-on-account-change.js';
import type { QuotaLedger } from './quota-ledger.js';
import { createSqliteQuotaGate } from './sqlite/create-sqlite-quota-gate.js';
import { sqliteDataVersion } from './sqlite/sqlite-data-version.js';
import type { Store } from './store.js';
import { createStoreQuotaLedger } from './store-quota-ledger.js';

export interface OpenQuotaLedgerOptions {
  /** Called when the Redis gate moves its decisions to the store (log it). */
  onUnavailable?: (reason: string) => void;
  /** Called when an account change is committed but the gate could not be told (warn about it). */
  onForgetFailed: (accountId: string, error: unknown) => void;
  /**
   * A cluster worker: the embedded SQLite gate is left off. Each worker would hold its own blocks, and a
   * worker the primary replaces after a crash strands its block (counted as used, never admitted) while
   * the other workers' refusals wait on units that cannot come back. The store's per-request admission is
   * exact across workers and loses nothing to a crash; cluster mode buys its throughput with cores.
   */
  clusterWorker?: boolean;
}

/**
 * With `quotaGate` on (the default): the Redis gate when the windows are in Redis, the embedded SQLite
 * gate on an SQLite store with the memory limiter; the store's own admission per request otherwise.
 * Comes with the store to use from then on: the same store, whose plan changes and deactivations also
 * reach the ledger, so no caller can open one without the other.
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
  if (config.quotaGate === false) return createStoreQuotaLedger(store);
  if (config.backend !== 'redis') {
    // One host: the embedded gate keeps SQLite writes off the request path; PostgreSQL admits per request.
    const dataVersion = options.clusterWorker ? undefined : sqliteDataVersion(store);
    return dataVersion ? createSqliteQuotaGate({ store, dataVersion }) : createStoreQuotaLedger(store);
  }
  if (!config.redisUrl) throw new Error('rateLimit.backend is redis but rateLimit.redisUrl is not set');
  const { createRedisQuotaGate } = await import('./redis/create-redis-quota-gate.js');
  return createRedisQuotaGate({ store, url: config.redisUrl, keyPrefix: config.keyPrefix, onUnavailable: options.onUnavailable });
}
