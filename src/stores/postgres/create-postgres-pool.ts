/**
 * The connection pool both PostgreSQL stores use, with "slow" and "down" told apart (issue 30): a slow
 * store answers late and every request still gets an answer, so time spent waiting in the router's own
 * pool for a connection is never taken for an outage. Down is only what the store itself shows:
 * - a new connection not established within `connectTimeoutMs` (refused, unreachable, not accepting);
 * - a query not answered within `queryTimeoutMs`;
 * - a checkout that has waited while the store answered nothing at all for `queryTimeoutMs` (every
 *   connection stuck on a store that stopped answering: waiting longer would only pile requests up).
 * A checkout otherwise waits its turn, up to `checkoutWaitMs` (the request timeout: no request outlives
 * it anyway). The waiting queue itself is bounded by the requests in progress, one checkout each at a
 * time, so by the listener's `maxConnections`.
 */
import pg from 'pg';
import { StoreUnavailableError } from '../store.js';
import { isUnavailable, queryRows } from './postgres-session.js';

export interface PostgresPoolOptions {
  /** `postgres://…` or `postgresql://…`. */
  url: string;
  /** Connections in the pool (default 10). */
  poolSize?: number;
  /** Keep the tables in this schema (created by migrate()): one database can serve several deployments or test files. */
  schema?: string;
  /** How long a new connection may take to be established before the store counts as unavailable (default 3 s). */
  connectTimeoutMs?: number;
  /**
   * How long a query may go unanswered, and how long a waiting checkout may see no answer at all from the
   * store, before the store counts as unavailable (default 5 s).
   */
  queryTimeoutMs?: number;
  /** The longest a checkout waits for its turn while the store keeps answering (default 600 s, the default request timeout). */
  checkoutWaitMs?: number;
}

// Lower-case only: the name goes unquoted into search_path and quoted into CREATE SCHEMA, and both must agree.
const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;
const DEFAULT_CHECKOUT_WAIT_MS = 600_000;

type Done = (release?: unknown) => void;
type ConnectCallback = (error: Error | undefined, client: pg.PoolClient | undefined, done: Done) => void;

/** A pg.Pool whose checkout waits while the store answers, and gives up only when it stops answering. */
class PatientPool extends pg.Pool {
  private lastAnswerAt = 0;
  private lastFailureAt = 0;

  constructor(
    config: pg.PoolConfig,
    private readonly silenceMs: number,
    private readonly checkoutWaitMs: number,
  ) {
    super(config);
  }

  /** Every answer the server finishes (a query, a connection's start-up) proves it is there. */
  heard(): void {
    this.lastAnswerAt = Date.now();
  }

  failed(): void {
    this.lastFailureAt = Date.now();
  }

  /** Has PostgreSQL answered within the last `ms`, with no connection failing since (and the pool still open)? */
  answeredWithin(ms: number): boolean {
    return !this.ending && this.lastAnswerAt >= Date.now() - ms && this.lastAnswerAt > this.lastFailureAt;
  }

  // pool.query() checks out through the callback form, transactions through the promise form: both wait here.
  override connect(): Promise<pg.PoolClient>;
  override connect(callback: ConnectCallback): void;
  override connect(callback?: ConnectCallback): Promise<pg.PoolClient> | void {
    const checkout = this.patientCheckout();
    if (callback === undefined) return checkout;
    checkout.then(
      (client) => callback(undefined, client, (release) => client.release(release as boolean | Error | undefined)),
      (error: Error) => callback(error, undefined, () => undefined),
    );
  }

  private patientCheckout(): Promise<pg.PoolClient> {
    if (this.ending) return super.connect();
    const queuedAt = Date.now();
    const deadline = queuedAt + this.checkoutWaitMs;
    const taken = super.connect();
    return new Promise((resolve, reject) => {
      let settled = false;
      let timer: NodeJS.Timeout;
      const giveUp = (reason: string) => {
        settled = true;
        this.failed();
        reject(new StoreUnavailableError(`PostgreSQL store unavailable: ${reason}`));
      };
      const check = () => {
        const now = Date.now();
        const quietSince = Math.max(this.lastAnswerAt, queuedAt);
        if (now - quietSince >= this.silenceMs) return giveUp(`no answer from PostgreSQL for ${this.silenceMs} ms while waiting for a connection`);
        if (now >= deadline) return giveUp(`no connection free within ${this.checkoutWaitMs} ms`);
        timer = setTimeout(check, Math.min(quietSince + this.silenceMs, deadline) - now);
      };
      timer = setTimeout(check, Math.min(this.silenceMs, this.checkoutWaitMs));
      taken.then(
        (client) => {
          clearTimeout(timer);
          // A checkout given up on still gets its connection later: it goes straight back to the pool.
          if (settled) return client.release();
          settled = true;
          resolve(client);
        },
        (error: unknown) => {
          clearTimeout(timer);
          if (isUnavailable(error)) this.failed();
          if (settled) return;
          settled = true;
          reject(error);
        },
      );
    });
  }
}

export function createPool(options: PostgresPoolOptions): pg.Pool {
  if (options.schema !== undefined && !SCHEMA_NAME.test(options.schema)) {
    throw new Error(`schema must match ${SCHEMA_NAME.source}, got ${JSON.stringify(options.schema)}`);
  }
  const connectTimeoutMs = options.connectTimeoutMs ?? 3000;
  const queryTimeoutMs = options.queryTimeoutMs ?? 5000;
  let pool: PatientPool | undefined;
  // The connect timeout belongs to the connection, not to the pool: pg.Pool's own connectionTimeoutMillis
  // would also bound the time a checkout waits in the queue, which is exactly what must not fail.
  class AnsweringClient extends pg.Client {
    constructor(config?: pg.ClientConfig) {
      super({ ...config, connectionTimeoutMillis: connectTimeoutMs });
      this.connection.on('readyForQuery', () => pool?.heard());
    }
  }
  pool = new PatientPool(
    {
      connectionString: options.url,
      max: options.poolSize ?? 10,
      Client: AnsweringClient as unknown as new () => pg.ClientBase,
      // A hung network neither answers nor refuses: without a bound a request would wait for it forever.
      query_timeout: queryTimeoutMs,
      ...(options.schema === undefined ? {} : { options: `-c search_path=${options.schema}` }),
    },
    queryTimeoutMs,
    options.checkoutWaitMs ?? DEFAULT_CHECKOUT_WAIT_MS,
  );
  // An idle connection that drops is discarded by the pool; the next query reports the outage. Without a
  // listener the 'error' event would crash the process.
  pool.on('error', () => pool?.failed());
  pool.on('release', (error: unknown) => error !== undefined && isUnavailable(error) && pool?.failed());
  return pool;
}

/** How recent an answer on any connection must be for a ping to take it as the store's answer. */
const PING_ANSWER_FRESH_MS = 1000;

/**
 * Does PostgreSQL answer? A ping is about the store, not the router's own queue: while connections are
 * busy and answering, a ping queued behind them would only measure that queue, and the quota gate (one
 * probe a second) would take a slow store for a dead one. So an answer heard within the last second, with
 * no connection failing since, is the ping's answer; otherwise it asks with `SELECT …`.
 */
export async function pingPool(pool: pg.Pool, sql: string): Promise<void> {
  if (pool instanceof PatientPool && pool.answeredWithin(PING_ANSWER_FRESH_MS)) return;
  await queryRows(pool, sql);
}
