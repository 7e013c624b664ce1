/**
 * Two `router serve` processes (the built bin/router) on one SQLite file, each with its embedded quota
 * gate, in front of the fakes: concurrent requests spread over both admit exactly the monthly quota, the
 * file ends with the exact count, and a plan change made with the CLI (a third process) applies to the
 * next request on both. `npm run build` first.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/core/clock.js';
import { quotaPeriod } from '../../src/core/quota-period.js';
import { createSqliteStore } from '../../src/stores/sqlite/create-sqlite-store.js';
import type { Store } from '../../src/stores/store.js';
import {
  burst,
  frontierOrder,
  planLimits,
  pointProvidersAt,
  postChat,
  PROVIDER_KEYS,
  runCliJson,
  startFakes,
  startRouterProcess,
  tally,
  TEST_SECRET,
  writeConfigDir,
  type Fakes,
  type RouterProcess,
} from './router-harness.js';

const CONCURRENT = 200;
const MONTHLY = 23;

describe('the embedded quota gate in two router processes on one SQLite file', () => {
  let dir: string;
  let configDir: string;
  let fakes: Fakes;
  let routers: RouterProcess[] = [];
  let reader: Store;
  let env: Record<string, string>;
  const cli = (...args: string[]) => runCliJson(env, ...args);
  const period = () => quotaPeriod(Date.now()).key;

  async function createAccount(plan: string) {
    const { account } = await cli('accounts', 'create', '--email', `gate-${randomBytes(4).toString('hex')}@example.com`, '--plan', plan);
    const { key } = await cli('keys', 'create', '--account', account.id, '--name', 'gate');
    await cli('provider-keys', 'set', '--account', account.id, '--provider', 'openai', '--key', PROVIDER_KEYS.openai);
    return { accountId: account.id as string, key: key as string };
  }

  async function settled(accountId: string, expected: number): Promise<number> {
    const deadline = Date.now() + 5000;
    let used = await reader.readQuota(accountId, period());
    while (used !== expected && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      used = await reader.readQuota(accountId, period());
    }
    return used;
  }

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'router-sqlite-gate-'));
    fakes = await startFakes();
    configDir = writeConfigDir({
      plans: planLimits({ free: { monthlyRequests: MONTHLY, requestsPerMinute: 100_000, maxConcurrentRequests: 1000 }, pro: { monthlyRequests: 1_000_000, requestsPerMinute: 100_000, maxConcurrentRequests: 1000 } }),
      // Generous upstream timeouts: 200 requests at once on a busy machine must not fail over, or their
      // refunds would blur the count this test is about.
      providers: pointProvidersAt(fakes.urls, (doc) => {
        for (const provider of doc.providers) provider.timeouts = { connectMs: 10_000, firstByteMs: 30_000, idleMs: 30_000 };
      }),
      routes: frontierOrder(['openai']),
    });
    const path = join(dir, 'router.db');
    env = { ROUTER_CONFIG: configDir, ROUTER_STORAGE: `sqlite:${path}`, ROUTER_SECRET_KEY: TEST_SECRET };
    // Migrated once by the CLI, so the two processes start on a ready file.
    await cli('accounts', 'list');
    routers = await Promise.all([startRouterProcess(env, 45_000), startRouterProcess(env, 45_000)]);
    reader = createSqliteStore({ path, clock: systemClock });
  }, 120_000);

  afterAll(async () => {
    await Promise.all(routers.map((router) => router.stop()));
    await reader?.close();
    await fakes?.close();
    rmSync(configDir, { recursive: true, force: true });
    rmSync(dir, { recursive: true, force: true });
  });

  it('says so on /readyz', async () => {
    for (const router of routers) {
      expect(await (await fetch(`${router.url}/readyz`)).json()).toMatchObject({ status: 'ready', store: 'sqlite', quota: { backend: 'sqlite-gate' } });
    }
  });

  it(`admits exactly ${MONTHLY} of ${CONCURRENT} concurrent requests spread over both processes`, async () => {
    fakes.reset();
    const { key, accountId } = await createAccount('free');
    const outcomes = await burst(routers.map((router) => router.baseURL), key, CONCURRENT);
    expect(tally(outcomes)).toEqual({ '200': MONTHLY, '429 monthly_quota_exceeded': CONCURRENT - MONTHLY });
    expect(fakes.openai.requests).toHaveLength(MONTHLY);
    // Every admitted unit was held before it was used; the gates settle them into `used` within a second.
    expect(await settled(accountId, MONTHLY)).toBe(MONTHLY);
    expect(await reader.readQuotaCommitted(accountId, period())).toBe(MONTHLY);
  });

  it('applies a plan change made with the CLI to the next request on both processes', async () => {
    const { key, accountId } = await createAccount('pro');
    // Each process holds a block of the pro plan's 1,000,000 (100 units) for the account.
    for (const router of routers) expect((await postChat(router.baseURL, key)).status).toBe(200);
    await cli('accounts', 'set-plan', accountId, 'free');
    for (const router of routers) {
      const response = await postChat(router.baseURL, key);
      expect(response.status).toBe(200);
      expect(response.headers.get('x-quota-limit')).toBe(String(MONTHLY));
    }
    await cli('accounts', 'deactivate', accountId);
    for (const router of routers) {
      const response = await postChat(router.baseURL, key);
      expect(response.status).toBe(401);
      expect(((await response.json()) as { error: { code: string } }).error.code).toBe('inactive_account');
    }
    expect(await settled(accountId, 4)).toBe(4);
  });
});
