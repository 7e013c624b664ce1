/** What the embedded quota gate (create-sqlite-quota-gate.ts) needs of an SQLite store beyond Store. */
import type { Store } from '../store.js';

/**
 * SQLite's `PRAGMA data_version` on the store's connection: it moves whenever another connection (another
 * process, the CLI, the usage ledger's connection) commits to the file, never for this one's own commits.
 * Answered from memory, no I/O. An object rather than a method, so wrappers that make every store method
 * async (metrics timing) pass it through unchanged.
 */
export interface DataVersion {
  current(): number;
}

export interface SqliteStore extends Store {
  readonly kind: 'sqlite';
  readonly dataVersion: DataVersion;
}

/** The store's data_version when it is an SQLite store, so a quota gate can see other connections' commits. */
export function sqliteDataVersion(store: Store): DataVersion | undefined {
  const candidate = (store as Partial<SqliteStore>).dataVersion;
  return store.kind === 'sqlite' && typeof candidate?.current === 'function' ? candidate : undefined;
}
