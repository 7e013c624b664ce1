/**
 * Opens the usage ledger's store on the same database as the main store (`storage` in server.yaml),
 * through a connection of its own. Implementations are imported on demand, like open-store.ts.
 */
import { resolve } from 'node:path';
import type { Clock } from '../core/clock.js';
import type { LedgerStore } from './ledger-store.js';
import { splitStorageUrl } from './open-store.js';

export async function openLedgerStore(storage: string, clock: Clock): Promise<LedgerStore> {
  const now = () => new Date(clock.now()).toISOString();
  if (storage.startsWith('sqlite:')) {
    const path = storage.slice('sqlite:'.length);
    const { createSqliteLedgerStore } = await import('./sqlite/create-sqlite-ledger-store.js');
    return createSqliteLedgerStore({ path: path === ':memory:' ? path : resolve(path), now });
  }
  const { createPostgresLedgerStore } = await import('./postgres/create-postgres-ledger-store.js');
  // The ledger keeps its own small pool whatever `poolSize` the request path's store is given.
  const { url, schema } = splitStorageUrl(storage);
  return createPostgresLedgerStore({ url, ...(schema === undefined ? {} : { schema }), now });
}
