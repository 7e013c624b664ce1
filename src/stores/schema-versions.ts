/**
 * The schema version of the configured database, read without migrating: `router migrate` reports it, and
 * `router serve --no-migrate` starts only on a database at exactly the version this router knows (the
 * deploy order is: migrate, then roll the instances). Drivers are imported on demand, like open-store.ts.
 */
import { resolve } from 'node:path';
import { requireCurrentSchema } from './migrations/require-current-schema.js';
import { splitStorageUrl } from './open-store.js';

export async function readSchemaVersions(storage: string): Promise<{ dialect: 'sqlite' | 'postgres'; versions: number[] }> {
  if (storage.startsWith('sqlite:')) {
    const path = storage.slice('sqlite:'.length);
    // An in-memory database is new in every process: nothing could have migrated it beforehand.
    if (path === ':memory:') return { dialect: 'sqlite', versions: [] };
    const { readSqliteSchemaVersions } = await import('./sqlite/read-sqlite-schema-versions.js');
    return { dialect: 'sqlite', versions: readSqliteSchemaVersions(resolve(path)) };
  }
  const { readPostgresSchemaVersions } = await import('./postgres/read-postgres-schema-versions.js');
  return { dialect: 'postgres', versions: await readPostgresSchemaVersions(splitStorageUrl(storage)) };
}

/** Resolves with the schema version when the database is current; throws a message naming the fix otherwise. */
export async function requireCurrentStorageSchema(storage: string): Promise<number> {
  const { dialect, versions } = await readSchemaVersions(storage);
  if (dialect === 'sqlite') {
    const { sqliteMigrations } = await import('./migrations/sqlite-migrations.js');
    return requireCurrentSchema(sqliteMigrations, versions);
  }
  const { postgresMigrations } = await import('./migrations/postgres-migrations.js');
  return requireCurrentSchema(postgresMigrations, versions);
}
