/**
 * Picks the store implementation from the `storage` setting. The returned store is not migrated yet:
 * the caller runs migrate() once at start-up. Implementations are imported on demand, so an instance
 * on SQLite never loads the PostgreSQL driver (and the reverse): less start-up time and memory.
 */
import { resolve } from 'node:path';
import type { Clock } from '../core/clock.js';
import type { Store } from './store.js';

const SQLITE_PREFIX = 'sqlite:';
const IN_MEMORY = ':memory:';

/**
 * `sqlite:PATH` (relative to the working directory), `sqlite::memory:`, or `postgres://…` / `postgresql://…`
 * with an optional `?schema=NAME` to keep the tables in their own schema and `?poolSize=N` for the number of
 * connections (default 10). `checkoutWaitMs`: how long a request may wait for a pooled connection while
 * PostgreSQL keeps answering (the request timeout).
 */
export async function openStore(storage: string, clock: Clock, options: { checkoutWaitMs?: number } = {}): Promise<Store> {
  if (storage.startsWith(SQLITE_PREFIX)) {
    const path = storage.slice(SQLITE_PREFIX.length);
    if (path.length === 0) throw new Error('storage "sqlite:" needs a file path, e.g. sqlite:./data/router.db');
    const { createSqliteStore } = await import('./sqlite/create-sqlite-store.js');
    return createSqliteStore({ path: path === IN_MEMORY ? IN_MEMORY : resolve(path), clock });
  }
  if (storage.startsWith('postgres://') || storage.startsWith('postgresql://')) {
    const { createPostgresStore } = await import('./postgres/create-postgres-store.js');
    return createPostgresStore({ ...splitStorageUrl(storage), ...options, clock });
  }
  // Only the scheme is echoed: a connection string may carry a password.
  const scheme = /^[a-z][a-z0-9+.-]*:/i.exec(storage)?.[0] ?? '(none)';
  throw new Error(`unsupported storage scheme ${scheme}; use sqlite:PATH or postgres://…`);
}

/**
 * `schema` and `poolSize` are the router's parameters, not libpq's: they are taken out of the URL so the
 * driver never sees them, and every other part of the URL is passed on untouched.
 */
export function splitStorageUrl(storage: string): { url: string; schema?: string; poolSize?: number } {
  const url = new URL(storage);
  const schema = url.searchParams.get('schema');
  const poolSize = url.searchParams.get('poolSize');
  if (schema === null && poolSize === null) return { url: storage };
  url.searchParams.delete('schema');
  url.searchParams.delete('poolSize');
  if (poolSize !== null && !/^[1-9][0-9]{0,3}$/.test(poolSize)) throw new Error(`storage poolSize must be a whole number from 1 to 9999, got ${JSON.stringify(poolSize)}`);
  return { url: url.toString(), ...(schema === null ? {} : { schema }), ...(poolSize === null ? {} : { poolSize: Number(poolSize) }) };
}
