/**
 * How fast operator changes made with the CLI reach two running router processes: revocation within the
 * key cache TTL (1 s here), plan changes and deactivation on the very next request (the CLI tells the
 * instances' shared quota gate in Redis).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clusterSkipReason, startCluster, type Cluster } from './multi-instance-cluster.js';
import { postChat } from './router-harness.js';

if (clusterSkipReason) console.warn(clusterSkipReason);

const KEY_CACHE_TTL_MS = 1000;
/** Time for one request to travel, on a loaded machine: the only slack allowed past the TTL. */
const REQUEST_SLACK_MS = 300;

// Each test spawns CLI processes against two routers: 20 s was not enough on a loaded CI machine.
describe.skipIf(clusterSkipReason !== undefined)('CLI changes reaching two router processes', { timeout: 60_000 }, () => {
  let cluster: Cluster;
  const models = (baseURL: string, key: string) =>
    fetch(`${baseURL}/models`, { headers: { 'user-agent': 'router-tests/1.0', authorization: `Bearer ${key}` } });

  beforeAll(async () => {
    cluster = await startCluster({
      // Limits large enough that the quota gate admits from reserved blocks without asking PostgreSQL:
      // only the CLI's notice to Redis can make a change visible on the next request.
      plans: { free: { monthlyRequests: 100_000, requestsPerMinute: 50 }, pro: { monthlyRequests: 1_000_000, requestsPerMinute: 500 } },
      keyCacheTtlMs: KEY_CACHE_TTL_MS,
    });
  }, 60_000);
  afterAll(async () => {
    await cluster?.close();
  });

  it(`stops a key revoked with the CLI on both instances within the key cache TTL (${KEY_CACHE_TTL_MS} ms)`, async () => {
    const { key, keyId } = await cluster.createAccount('free');
    // Both instances now hold the verified key in their caches.
    for (const router of cluster.routers) expect((await models(router.baseURL, key)).status).toBe(200);

    const { apiKey } = await cluster.cli('keys', 'revoke', keyId);
    const deadline = Date.parse(apiKey.revokedAt) + KEY_CACHE_TTL_MS + REQUEST_SLACK_MS;
    for (const router of cluster.routers) {
      let response = await models(router.baseURL, key);
      while (response.status === 200 && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 25));
        response = await models(router.baseURL, key);
      }
      expect(response.status).toBe(401);
      expect(((await response.json()) as { error: { code: string } }).error.code).toBe('revoked_api_key');
    }
  });

  it('applies a plan change made with the CLI on both instances from the next request on', async () => {
    const { key, accountId } = await cluster.createAccount('free');
    const [first, second] = cluster.routers.map((router) => router.baseURL) as [string, string];
    const limits = (response: Response) =>
      ['x-quota-limit', 'x-quota-used', 'x-ratelimit-limit'].map((name) => response.headers.get(name));

    expect(limits(await postChat(first, key))).toEqual(['100000', '1', '50']);
    expect(limits(await postChat(second, key))).toEqual(['100000', '2', '50']);
    const { account } = await cluster.cli('accounts', 'set-plan', accountId, 'pro');
    expect(account.plan).toBe('pro');
    expect(limits(await postChat(second, key))).toEqual(['1000000', '3', '500']);
    expect(limits(await postChat(first, key))).toEqual(['1000000', '4', '500']);
  });

  it('stops model traffic of an account deactivated with the CLI on both instances at once', async () => {
    const { key, accountId } = await cluster.createAccount('free');
    for (const router of cluster.routers) expect((await postChat(router.baseURL, key)).status).toBe(200);
    await cluster.cli('accounts', 'deactivate', accountId);
    for (const router of cluster.routers) {
      const refused = await postChat(router.baseURL, key);
      expect(refused.status).toBe(401);
      expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('inactive_account');
    }
    expect(await cluster.settledQuota(accountId, 2)).toBe(2);
  });
});
