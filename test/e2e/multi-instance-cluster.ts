/**
 * Two `router serve` processes (the built bin/router) sharing one PostgreSQL schema and one Redis, in
 * front of fake providers, with the CLI pointed at the same database: the multi-instance deployment.
 * Needs ROUTER_TEST_POSTGRES_URL and ROUTER_TEST_REDIS_URL; `npm run build` first.
 */
import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { systemClock } from '../../src/core/clock.js';
import { quotaPeriod } from '../../src/core/quota-period.js';
import { createPostgresStore } from '../../src/stores/postgres/create-postgres-store.js';
import { deleteRedisKeys, dropSchemas } from '../support/service-cleanup.js';
import {
  frontierOrder,
  planLimits,
  pointProvidersAt,
  PROVIDER_KEYS,
  runCliJson,
  startFakes,
  startRouterProcess,
  TEST_SECRET,
  writeConfigDir,
  type Fakes,
  type RouterProcess,
} from './router-harness.js';

/** How long each of two instances migrating one fresh schema may take to be ready (the file's hooks allow 60 s). */
const TWO_MIGRATING_READY_MS = 40_000;

const postgresUrl = process.env.ROUTER_TEST_POSTGRES_URL;
const redisUrl = process.env.ROUTER_TEST_REDIS_URL;

/** Why the multi-instance tests cannot run here, or undefined when they can. */
export const clusterSkipReason =
  postgresUrl && redisUrl
    ? undefined
    : 'skipping multi-instance tests: set ROUTER_TEST_POSTGRES_URL and ROUTER_TEST_REDIS_URL (e.g. postgres://postgres@127.0.0.1:5432/test, redis://127.0.0.1:6379)';

export interface ClusterAccount {
  accountId: string;
  key: string;
  keyId: string;
}

export interface Cluster {
  routers: [RouterProcess, RouterProcess];
  fakes: Fakes;
  /** The built CLI against the cluster's database and config; resolves to its --json document. */
  cli(...args: string[]): Promise<any>;
  /** An account, a key and the account's own OpenAI key, all made through the CLI. */
  createAccount(plan: string): Promise<ClusterAccount>;
  /** The account's monthly count in the current period, read from PostgreSQL (the gate settles it within 1 s). */
  readQuota(accountId: string): Promise<number>;
  /** The same once both instances' quota gates have settled it (polls up to 5 s). */
  settledQuota(accountId: string, expected: number): Promise<number>;
  /** used + held in PostgreSQL: what the limit is checked against, reservations of the quota gates included. */
  readQuotaCommitted(accountId: string): Promise<number>;
  /** Prefix of this cluster's Redis keys. */
  keyPrefix: string;
  close(): Promise<void>;
}

export interface ClusterOptions {
  plans: Parameters<typeof planLimits>[0];
  keyCacheTtlMs?: number;
  /** Edits routes.yaml (default: frontier served by openai alone). */
  routes?: (doc: any) => void;
  /** Route profiles added to routes.yaml, offered by every plan. */
  extraRoutes?: readonly object[];
  /**
   * Where the instances find PostgreSQL and Redis when not directly (a relay in the test that slows or
   * cuts them); the test's own reads and the clean-up still go straight to the services.
   */
  via?: { postgresUrl?: string; redisUrl?: string };
}

export async function startCluster(options: ClusterOptions): Promise<Cluster> {
  const schema = `e2e_cluster_${randomBytes(5).toString('hex')}`;
  const keyPrefix = `${schema}:`;
  const storage = new URL(options.via?.postgresUrl ?? postgresUrl ?? '');
  storage.searchParams.set('schema', schema);
  const fakes = await startFakes();
  const configDir = writeConfigDir({
    plans: (doc) => {
      planLimits(options.plans)(doc);
      const extra = (options.extraRoutes ?? []).map((route) => (route as { id: string }).id);
      for (const plan of doc.plans) plan.routeProfiles = [...plan.routeProfiles, ...extra];
    },
    providers: pointProvidersAt(fakes.urls),
    routes: (doc) => {
      (options.routes ?? frontierOrder(['openai']))(doc);
      doc.routes.push(...(options.extraRoutes ?? []));
    },
    server: (doc) => {
      doc.keyCacheTtlMs = options.keyCacheTtlMs ?? 5000;
      doc.rateLimit = { ...doc.rateLimit, keyPrefix };
    },
  });
  const env = { ROUTER_CONFIG: configDir, ROUTER_STORAGE: storage.toString(), ROUTER_REDIS_URL: options.via?.redisUrl ?? redisUrl ?? '', ROUTER_SECRET_KEY: TEST_SECRET };
  const reader = createPostgresStore({ url: postgresUrl ?? '', schema, clock: systemClock, poolSize: 2 });
  // Both instances migrate the fresh schema at once: the advisory lock makes them take turns, so the
  // second is ready only after the first's whole migration; on a loaded 2-core machine (CI with a
  // container build beside the suite) that took past the harness's usual 15 s twice in a row.
  const started = await Promise.allSettled([startRouterProcess(env, TWO_MIGRATING_READY_MS), startRouterProcess(env, TWO_MIGRATING_READY_MS)]);
  const routers = started.flatMap((result) => (result.status === 'fulfilled' ? [result.value] : [])) as [RouterProcess, RouterProcess];
  if (routers.length < 2) {
    await Promise.all(routers.map((router) => router.stop()));
    await Promise.all([fakes.close(), reader.close()]);
    rmSync(configDir, { recursive: true, force: true });
    throw started.find((result) => result.status === 'rejected')?.reason;
  }
  const direct = new URL(postgresUrl ?? '');
  direct.searchParams.set('schema', schema);
  const cliEnv = { ...env, ROUTER_STORAGE: direct.toString(), ROUTER_REDIS_URL: redisUrl ?? '' };
  const cli = (...args: string[]) => runCliJson(cliEnv, ...args);

  return {
    routers,
    fakes,
    cli,
    async createAccount(plan) {
      const { account } = await cli('accounts', 'create', '--email', `cluster-${randomBytes(4).toString('hex')}@example.com`, '--plan', plan);
      const { id, key } = await cli('keys', 'create', '--account', account.id, '--name', 'cluster');
      await cli('provider-keys', 'set', '--account', account.id, '--provider', 'openai', '--key', PROVIDER_KEYS.openai);
      return { accountId: account.id, key, keyId: id };
    },
    readQuota: (accountId) => reader.readQuota(accountId, quotaPeriod(Date.now()).key),
    async settledQuota(accountId, expected) {
      const deadline = Date.now() + 5000;
      let used = await reader.readQuota(accountId, quotaPeriod(Date.now()).key);
      while (used !== expected && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        used = await reader.readQuota(accountId, quotaPeriod(Date.now()).key);
      }
      return used;
    },
    readQuotaCommitted: (accountId) => reader.readQuotaCommitted(accountId, quotaPeriod(Date.now()).key),
    keyPrefix,
    async close() {
      await Promise.all(routers.map((router) => router.stop()));
      await fakes.close();
      await reader.close();
      await dropSchemas(postgresUrl ?? '', schema);
      await deleteRedisKeys(redisUrl ?? '', keyPrefix);
      rmSync(configDir, { recursive: true, force: true });
    },
  };
}
