/**
 * Applies pending versioned migrations in one transaction under an advisory lock, so instances that
 * start at the same moment take turns instead of racing to create the same tables.
 */
import type { Pool } from 'pg';
import type { Migration } from '../migrations/migration.js';
import { pendingMigrations } from '../migrations/pending-migrations.js';
import { inTransaction, queryRows } from './postgres-session.js';

export async function migratePostgres(pool: Pool, migrations: readonly Migration[], schema: string | undefined, appliedAt: string): Promise<void> {
  await inTransaction(pool, async (client) => {
    await queryRows(client, 'SELECT pg_advisory_xact_lock(hashtext($1))', [`llm-router:migrate:${schema ?? ''}`]);
    // The name was checked against a strict identifier pattern by createPostgresStore.
    if (schema !== undefined) await queryRows(client, `CREATE SCHEMA IF NOT EXISTS "${schema}"`);
    await queryRows(
      client,
      'CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TIMESTAMPTZ NOT NULL)',
    );
    const applied = await queryRows<{ version: number }>(client, 'SELECT version FROM schema_migrations');
    for (const migration of pendingMigrations(migrations, applied.map((row) => row.version))) {
      await queryRows(client, migration.sql);
      await queryRows(client, 'INSERT INTO schema_migrations (version, name, applied_at) VALUES ($1, $2, $3)', [
        migration.version,
        migration.name,
        appliedAt,
      ]);
    }
  });
}
