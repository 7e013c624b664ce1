/** The connection pool every PostgreSQL store here uses: bounded waits, an optional schema of its own. */
import pg from 'pg';

export interface PostgresPoolOptions {
  /** `postgres://…` or `postgresql://…`. */
  url: string;
  /** Connections in the pool (default 10). */
  poolSize?: number;
  /** Keep the tables in this schema (created by migrate()): one database can serve several deployments or test files. */
  schema?: string;
  /** How long to wait for a connection before reporting the store unavailable (default 3 s). */
  connectTimeoutMs?: number;
  /** How long to wait for any answer to a query before reporting the store unavailable (default 5 s). */
  queryTimeoutMs?: number;
}

// Lower-case only: the name goes unquoted into search_path and quoted into CREATE SCHEMA, and both must agree.
const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

export function createPostgresPool(options: PostgresPoolOptions): pg.Pool {
  if (options.schema !== undefined && !SCHEMA_NAME.test(options.schema)) {
    throw new Error(`schema must match ${SCHEMA_NAME.source}, got ${JSON.stringify(options.schema)}`);
  }
  const pool = new pg.Pool({
    connectionString: options.url,
    max: options.poolSize ?? 10,
    connectionTimeoutMillis: options.connectTimeoutMs ?? 3000,
    // A hung network neither answers nor refuses: without a bound a request would wait for it forever.
    query_timeout: options.queryTimeoutMs ?? 5000,
    ...(options.schema === undefined ? {} : { options: `-c search_path=${options.schema}` }),
  });
  // An idle connection that drops is discarded by the pool; the next query reports the outage. Without a
  // listener the 'error' event would crash the process.
  pool.on('error', () => undefined);
  return pool;
}
