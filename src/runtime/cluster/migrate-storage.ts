/**
 * The primary migrates the database once before forking, so N workers starting together do not all
 * queue on the migration lock (the lock would keep them correct, not fast); each worker's own migrate()
 * then finds nothing to apply. Both stores on the database (main and usage ledger) are brought up.
 */
import type { RouterConfig } from '../../config/types.js';
import { systemClock } from '../../core/clock.js';
import { openLedgerStore } from '../../stores/open-ledger-store.js';
import { openStore } from '../../stores/open-store.js';
import type { Store } from '../../stores/store.js';

export async function migrateStorage(config: RouterConfig): Promise<Store['kind']> {
  const store = await openStore(config.server.storage, systemClock);
  try {
    await store.migrate();
  } finally {
    await store.close();
  }
  const ledger = await openLedgerStore(config.server.storage, systemClock);
  try {
    await ledger.migrate();
  } finally {
    await ledger.close();
  }
  return store.kind;
}
