/**
 * How the PostgreSQL store talks to the pool: single queries and transactions, with connection
 * failures turned into StoreUnavailableError so the pipeline fails closed (503) instead of guessing.
 */
import type { Pool, PoolClient, QueryResultRow } from 'pg';
import { StoreUnavailableError } from '../store.js';

// SQLSTATE classes 08 (connection exception), 53 (insufficient resources), 57 (operator intervention,
// e.g. shutdown or statement timeout); E… codes are Node socket errors (ECONNREFUSED, ETIMEDOUT, …).
const UNAVAILABLE_CODE = /^(08|53|57)[0-9A-Z]{3}$|^E[A-Z]+$/;
// node-postgres reports a dropped socket, a pool checkout timeout, a pool already shut down (requests
// still in flight while the process stops) and a query the server never answered (query_timeout)
// without a code.
const UNAVAILABLE_MESSAGE =
  /Connection terminated|timeout exceeded when trying to connect|connection error|not queryable|Cannot use a pool after calling end|Query read timeout/i;

export function isUnavailable(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string') return UNAVAILABLE_CODE.test(code);
  return UNAVAILABLE_MESSAGE.test(error.message);
}

export function toStoreError(error: unknown): unknown {
  if (error instanceof StoreUnavailableError || !isUnavailable(error)) return error;
  return new StoreUnavailableError(`PostgreSQL store unavailable: ${(error as Error).message}`, { cause: error });
}

export type Queryable = Pick<PoolClient, 'query'>;

export async function queryRows<R extends QueryResultRow>(db: Queryable, text: string, values: unknown[] = []): Promise<R[]> {
  try {
    return (await db.query<R>(text, values)).rows;
  } catch (error) {
    throw toStoreError(error);
  }
}

export async function inTransaction<R>(pool: Pool, work: (client: PoolClient) => Promise<R>): Promise<R> {
  let client: PoolClient;
  try {
    client = await pool.connect();
  } catch (error) {
    throw toStoreError(error);
  }
  let broken: Error | undefined;
  // node-postgres emits 'error' on a client whose connection ends, even with a query running (that query
  // fails too), and pg.Pool listens only while the client is idle: checked out, an emit with no listener
  // is an uncaught exception (which the process guard logs as a router bug). The transaction keeps the
  // error instead; its next query fails as unavailable, and the connection leaves the pool.
  const onError = (error: Error) => void (broken = error);
  client.on('error', onError);
  try {
    await queryRows(client, 'BEGIN');
    const result = await work(client);
    await queryRows(client, 'COMMIT');
    return result;
  } catch (error) {
    if (error instanceof StoreUnavailableError) broken = error;
    else await client.query('ROLLBACK').catch((rollbackError: Error) => (broken = rollbackError));
    throw error;
  } finally {
    client.removeListener('error', onError);
    // Passing an error destroys the connection instead of returning a possibly broken one to the pool.
    client.release(broken);
  }
}
