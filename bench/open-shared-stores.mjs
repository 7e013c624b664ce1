/**
 * PostgreSQL and Redis for the shared-limits stage. URLs come from ROUTER_BENCH_POSTGRES_URL and
 * ROUTER_BENCH_REDIS_URL; when one is unset, the local default is used only if something answers on
 * its port. The router's tables go into a fresh schema of their own (the storage URL selects it with
 * `options=-c search_path=…`), dropped again by cleanup(); likewise every Redis key the routers write
 * (per-minute windows `${keyPrefix}{acct}` and the quota gate's `${keyPrefix}quota:…`, `quota-card:…`,
 * `quota-gen:…`) starts with a key prefix of the run's own, and cleanup() deletes all keys under it
 * with SCAN. So the benchmark never touches other data in either. Nothing here prints a URL: it may
 * carry a password.
 */
import { randomBytes } from 'node:crypto';
import { connect } from 'node:net';
import { Redis } from 'ioredis';
import pg from 'pg';

const DEFAULT_POSTGRES_URL = 'postgres://postgres@127.0.0.1:5432/test';
const DEFAULT_REDIS_URL = 'redis://127.0.0.1:6379';

/**
 * @returns {Promise<{ skipped: string } | { storage: string, redisUrl: string, keyPrefix: string, onLoopback: boolean,
 *   readQuotaRows(accountIds: string[]): Promise<Map<string, { used: number, held: number }>>, cleanup(): Promise<void> }>}
 *   onLoopback: both servers are on this machine (so their processes' CPU can be read)
 */
export async function openSharedStores(env = process.env) {
  const postgresUrl = env.ROUTER_BENCH_POSTGRES_URL || ((await answers(DEFAULT_POSTGRES_URL, 5432)) ? DEFAULT_POSTGRES_URL : undefined);
  const redisUrl = env.ROUTER_BENCH_REDIS_URL || ((await answers(DEFAULT_REDIS_URL, 6379)) ? DEFAULT_REDIS_URL : undefined);
  if (!postgresUrl || !redisUrl) {
    const missing = [!postgresUrl && 'ROUTER_BENCH_POSTGRES_URL', !redisUrl && 'ROUTER_BENCH_REDIS_URL'].filter(Boolean).join(' and ');
    return { skipped: `${missing} unset and no server answers on the default local port` };
  }

  const runId = randomBytes(6).toString('hex');
  const schema = `bench_${runId}`;
  // Only [a-z0-9_:] so that it is a valid rateLimit.keyPrefix and has no glob character for SCAN MATCH.
  const keyPrefix = `bench_${runId}:`;
  const admin = new pg.Client({ connectionString: postgresUrl, connectionTimeoutMillis: 3000 });
  try {
    await admin.connect();
    await admin.query(`CREATE SCHEMA "${schema}"`);
  } catch (error) {
    await admin.end().catch(() => undefined);
    return { skipped: `PostgreSQL did not accept the benchmark schema (${error.code ?? error.message})` };
  }
  const redis = new Redis(redisUrl, { lazyConnect: true, maxRetriesPerRequest: 1, connectTimeout: 2000, retryStrategy: () => null });
  // Failures surface through connect() and the commands; without a listener ioredis would also print them.
  redis.on('error', () => undefined);
  try {
    await redis.connect();
    await redis.ping();
  } catch (error) {
    redis.disconnect();
    await admin.query(`DROP SCHEMA "${schema}" CASCADE`).finally(() => admin.end());
    return { skipped: `Redis did not answer PING (${error.code ?? error.message})` };
  }

  const storage = new URL(postgresUrl);
  storage.searchParams.set('options', `-c search_path=${schema}`);
  return {
    storage: storage.href,
    redisUrl,
    keyPrefix,
    onLoopback: isLoopback(postgresUrl) && isLoopback(redisUrl),
    /** The monthly counts the PostgreSQL routers left in the benchmark schema: accountId → { used, held }. */
    async readQuotaRows(accountIds) {
      const { rows } = await admin.query(`SELECT account_id, used, held FROM "${schema}".quota_usage WHERE account_id = ANY($1)`, [accountIds]);
      return new Map(rows.map((r) => [r.account_id, { used: Number(r.used), held: Number(r.held) }]));
    },
    async cleanup() {
      // Windows expire within a minute, but the gate's counters live a month and its generations a day.
      try {
        await deleteByPrefix(redis, keyPrefix);
      } finally {
        redis.disconnect();
        await admin.query(`DROP SCHEMA "${schema}" CASCADE`).finally(() => admin.end());
      }
    },
  };
}

/** Every key under the prefix, found with SCAN (never KEYS, which blocks Redis) and removed in batches. */
async function deleteByPrefix(redis, prefix) {
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
    if (keys.length > 0) await redis.unlink(...keys);
    cursor = next;
  } while (cursor !== '0');
}

function isLoopback(url) {
  const { hostname } = new URL(url);
  return hostname === 'localhost' || hostname === '[::1]' || /^127\./.test(hostname);
}

function answers(url, defaultPort) {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = connect({ host: hostname, port: Number(port || defaultPort), timeout: 500 });
    const settle = (ok) => {
      socket.destroy();
      resolve(ok);
    };
    socket.once('connect', () => settle(true));
    socket.once('timeout', () => settle(false));
    socket.once('error', () => settle(false));
  });
}
