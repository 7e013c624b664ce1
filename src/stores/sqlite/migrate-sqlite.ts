/** Applies pending versioned migrations in one IMMEDIATE transaction, so two processes cannot both apply one. */
import type { Database } from 'better-sqlite3';
import type { Migration } from '../migrations/migration.js';
import { pendingMigrations } from '../migrations/pending-migrations.js';

export function migrateSqlite(db: Database, migrations: readonly Migration[], appliedAt: string): void {
  const apply = db.transaction(() => {
    db.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
      version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)`);
    const applied = db.prepare<[], number>('SELECT version FROM schema_migrations').pluck().all();
    const record = db.prepare<[number, string, string], unknown>('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)');
    for (const migration of pendingMigrations(migrations, applied)) {
      db.exec(migration.sql);
      record.run(migration.version, migration.name, appliedAt);
    }
  });
  apply.immediate();
}
