/**
 * Measured routing across two router processes on one PostgreSQL and one Redis: the figures and the
 * hysteresis leaders live in Redis under the deployment's key prefix, so an instance that served none of
 * the traffic that turned the order ranks as the one that did (measured-hysteresis-scenario.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HYSTERESIS_ROUTE, turnAndHold, type RoutingSide } from './measured-hysteresis-scenario.js';
import { clusterSkipReason, startCluster, type Cluster } from './multi-instance-cluster.js';
import { PROVIDER_KEYS, type RouterProcess } from './router-harness.js';

if (clusterSkipReason) console.warn(clusterSkipReason);

describe.skipIf(clusterSkipReason !== undefined)('measured routing across two instances (PostgreSQL + Redis)', { timeout: 120_000 }, () => {
  let cluster: Cluster;

  beforeAll(async () => {
    cluster = await startCluster({ plans: { pro: { monthlyRequests: 100_000, requestsPerMinute: 1000 } }, extraRoutes: [HYSTERESIS_ROUTE] });
  }, 90_000);
  afterAll(async () => {
    await cluster?.close();
  });

  it('both instances rank the same after traffic through one turns the order and brings the candidates within the hysteresis margin', async () => {
    const account = await cluster.createAccount('pro');
    await cluster.cli('provider-keys', 'set', '--account', account.accountId, '--provider', 'anthropic', '--key', PROVIDER_KEYS.anthropic);
    const side = (router: RouterProcess): RoutingSide => ({
      async chat() {
        const response = await fetch(`${router.baseURL}/chat/completions`, {
          method: 'POST',
          headers: { 'user-agent': 'router-tests/1.0', authorization: `Bearer ${account.key}`, 'content-type': 'application/json' },
          body: JSON.stringify({ model: HYSTERESIS_ROUTE.id, messages: [{ role: 'user', content: 'Say hello' }] }),
        });
        await response.arrayBuffer();
        expect(response.status).toBe(200);
        return response.headers.get('x-router-upstream') ?? '';
      },
      async measured() {
        const response = await fetch(`${router.url}/status`, { headers: { 'user-agent': 'router-tests/1.0', accept: 'application/json' } });
        return ((await response.json()) as { measured: Awaited<ReturnType<RoutingSide['measured']>> }).measured;
      },
    });
    await turnAndHold(side(cluster.routers[0]), side(cluster.routers[1]), cluster.fakes);
  });
});
