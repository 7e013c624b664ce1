/**
 * The deployments the usage e2e tests run against: SQLite alone (always), and PostgreSQL + Redis when
 * ROUTER_TEST_POSTGRES_URL and ROUTER_TEST_REDIS_URL are set (each backend in its own schema and key
 * prefix, removed by `cleanUp`).
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Clock } from '../../src/core/clock.js';
import { deleteRedisKeys, dropSchemas } from '../support/service-cleanup.js';
import { startTestRouter, type TestRouter, type YamlPatch } from './router-harness.js';

export interface UsageBackend {
  name: string;
  /** ROUTER_STORAGE (and ROUTER_REDIS_URL) for the router and the CLI. */
  env: Record<string, string>;
  /** server.yaml patch: the backend's own Redis key prefix. */
  server(doc: any): void;
  cleanUp(): Promise<void>;
}

const postgresUrl = process.env.ROUTER_TEST_POSTGRES_URL;
const redisUrl = process.env.ROUTER_TEST_REDIS_URL;

export const postgresSkipReason =
  postgresUrl && redisUrl ? undefined : 'skipping the PostgreSQL + Redis variant: set ROUTER_TEST_POSTGRES_URL and ROUTER_TEST_REDIS_URL';
if (postgresSkipReason) console.warn(postgresSkipReason);

export function sqliteBackend(): UsageBackend {
  const dir = mkdtempSync(join(tmpdir(), 'router-usage-'));
  return {
    name: 'sqlite',
    env: { ROUTER_STORAGE: `sqlite:${join(dir, 'router.db')}` },
    server: () => undefined,
    cleanUp: async () => rmSync(dir, { recursive: true, force: true }),
  };
}

export function postgresRedisBackend(label: string): UsageBackend {
  const schema = `e2e_${label}_${randomBytes(4).toString('hex')}`;
  const storage = new URL(postgresUrl ?? '');
  storage.searchParams.set('schema', schema);
  return {
    name: 'postgres+redis',
    env: { ROUTER_STORAGE: storage.toString(), ROUTER_REDIS_URL: redisUrl ?? '' },
    server: (doc) => void (doc.rateLimit = { ...doc.rateLimit, keyPrefix: `${schema}:` }),
    async cleanUp() {
      await dropSchemas(postgresUrl ?? '', schema);
      await deleteRedisKeys(redisUrl ?? '', `${schema}:`);
    },
  };
}

/** The backends to run a suite against: `[name, make]` pairs for describe.each. */
export function usageBackends(label: string): [string, () => UsageBackend][] {
  return [['sqlite', sqliteBackend] as [string, () => UsageBackend], ...(postgresSkipReason ? [] : [['postgres+redis', () => postgresRedisBackend(label)] as [string, () => UsageBackend]])];
}

/**
 * A router on the backend whose ledger flushes every 100 ms (so tests read records soon), with more
 * patches; `clock`: the router's clock (router-deps' seam), for tests that move time by hand.
 */
export function startRouterOn(backend: UsageBackend, patch: Omit<YamlPatch, 'server'> & { server?: (doc: any) => void } = {}, clock?: Clock): Promise<TestRouter> {
  return startTestRouter({
    env: backend.env,
    ...(clock ? { clock } : {}),
    patch: {
      ...patch,
      server: (doc) => {
        backend.server(doc);
        doc.ledger = { flushIntervalMs: 100 };
        patch.server?.(doc);
      },
    },
  });
}
