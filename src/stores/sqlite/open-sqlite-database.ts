/** Opening a SQLite file the way every store here uses it, and telling "cannot use it now" from a bug. */
import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import Database from 'better-sqlite3';
import { StoreUnavailableError } from '../store.js';

// Error codes that mean the database cannot be used right now, as opposed to a bad statement or constraint.
const UNAVAILABLE_CODES = /^SQLITE_(BUSY|LOCKED|CANTOPEN|IOERR|FULL|NOTADB|CORRUPT|READONLY)/;

export function guardSqlite<R>(run: () => R): R {
  try {
    return run();
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (typeof code === 'string' && UNAVAILABLE_CODES.test(code)) {
      throw new StoreUnavailableError(`SQLite store unavailable (${code})`, { cause: error });
    }
    throw error;
  }
}

export function openSqliteDatabase(path: string, busyTimeoutMs: number): Database.Database {
  if (path !== ':memory:') mkdirSync(dirname(resolve(path)), { recursive: true });
  const db = guardSqlite(() => new Database(path));
  db.pragma('journal_mode = WAL');
  // With WAL, NORMAL syncs at checkpoints instead of every commit: a process crash or restart loses no
  // committed count (only an OS crash or power loss could), and each admission skips an fsync.
  db.pragma('synchronous = NORMAL');
  db.pragma(`busy_timeout = ${busyTimeoutMs}`);
  db.pragma('foreign_keys = ON');
  return db;
}
