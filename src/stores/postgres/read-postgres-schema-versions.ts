/** The versions in a PostgreSQL schema's schema_migrations, read without creating or changing anything. */
import { createPool } from './create-postgres-pool.js';

export async function readPostgresSchemaVersions(options: { url: string; schema?: string }): Promise<number[]> {
  // search_path is set to the configured schema by createPool, so the unqualified name resolves there.
  const pool = createPool({ ...options, poolSize: 1 });
  try {
    const { rows } = await pool.query<{ present: string | null }>("SELECT to_regclass('schema_migrations')::text AS present");
    if (rows[0]?.present === null || rows[0]?.present === undefined) return [];
    const applied = await pool.query<{ version: number }>('SELECT version FROM schema_migrations');
    return applied.rows.map((row) => row.version);
  } finally {
    await pool.end();
  }
}
