/** The versions in a SQLite database's schema_migrations, read without creating or changing anything. */
import Database from 'better-sqlite3';

export function readSqliteSchemaVersions(path: string): number[] {
  let db: Database.Database;
  try {
    db = new Database(path, { fileMustExist: true });
  } catch {
    // No file is a database no migration ran on; other open failures surface on the first read below.
    return [];
  }
  try {
    const table = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'").get();
    if (!table) return [];
    return db.prepare<[], number>('SELECT version FROM schema_migrations').pluck().all();
  } finally {
    db.close();
  }
}
