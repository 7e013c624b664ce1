/**
 * The response cache across processes, through Redis (docs/caching.md): two `router serve` instances
 * on one PostgreSQL and one Redis, and one instance in cluster mode (two workers) on the same Redis.
 * An answer paid for on one instance (or worker) is a HIT on the other, for chat (JSON and stream),
 * Responses and Messages streams, with the original's event stream; two accounts never share an
 * entry; a zdr request is never stored; the CLI's account rule applies on both at once; the usage
 * report (`router usage --json`) counts the hits and the spend they saved.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deleteRedisKeys } from '../support/service-cleanup.js';
import { oneConnectionPerWorker, startSpawnedRouter, type SpawnedRouter } from '../security/process-harness.js';
import { clusterSkipReason, startCluster, type Cluster, type ClusterAccount } from './multi-instance-cluster.js';

if (clusterSkipReason) console.warn(clusterSkipReason);

const HEADERS = { 'content-type': 'application/json', 'user-agent': 'router-tests/1.0', 'anthropic-version': '2023-06-01', 'x-openrouter-cache': 'true' };
let n = 0;
const unique = (text: string) => `${text} ${randomBytes(3).toString('hex')} #${(n += 1)}`;
const post = (baseURL: string, key: string, path: string, body: object) =>
  fetch(`${baseURL}${path}`, { method: 'POST', headers: { ...HEADERS, authorization: `Bearer ${key}` }, body: JSON.stringify(body) });

/**
 * Waits until Redis holds more cache entries under `keyPrefix` than `before`. An answer is stored once its
 * last byte has gone (docs/caching.md), so a repeat sent the instant the first one ends can arrive first
 * on a loaded machine; these tests ask for the repeat once the entry is there.
 */
async function entriesUnder(keyPrefix: string): Promise<{ count: () => Promise<number>; grewFrom: (before: number) => Promise<void>; close: () => void }> {
  const { Redis } = await import('ioredis');
  const redis = new Redis(process.env.ROUTER_TEST_REDIS_URL!);
  const count = async () => (await redis.keys(`${keyPrefix}{rc}:e:*`)).length;
  const grewFrom = async (before: number) => {
    const deadline = Date.now() + 5_000;
    while ((await count()) <= before && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
  };
  return { count, grewFrom, close: () => redis.disconnect() };
}

describe.skipIf(clusterSkipReason !== undefined)('response cache across two instances sharing Redis', { timeout: 90_000 }, () => {
  let cluster: Cluster;
  let alice: ClusterAccount;
  let bob: ClusterAccount;
  const calls = () => cluster.fakes.openai.requests.length;

  beforeAll(async () => {
    cluster = await startCluster({ plans: { pro: { monthlyRequests: 100_000, requestsPerMinute: 1000 } } });
    [alice, bob] = await Promise.all([cluster.createAccount('pro'), cluster.createAccount('pro')]);
  }, 90_000);
  afterAll(async () => {
    await cluster?.close();
  });

  it('a repeat on the other instance is a HIT, for chat, chat streams, Responses and Messages streams', async () => {
    const [one, two] = cluster.routers;
    const cases: [string, object][] = [
      ['/chat/completions', { model: 'router/frontier', messages: [{ role: 'user', content: unique('Hello') }] }],
      ['/chat/completions', { model: 'router/frontier', messages: [{ role: 'user', content: unique('Hello') }], stream: true }],
      ['/responses', { model: 'router/frontier', input: unique('Hello'), stream: true }],
      ['/messages', { model: 'router/frontier', max_tokens: 50, messages: [{ role: 'user', content: unique('Hello') }], stream: true }],
    ];
    const entries = await entriesUnder(cluster.keyPrefix);
    for (const [path, body] of cases) {
      const before = calls();
      const stored = await entries.count();
      const miss = await post(one.baseURL, alice.key, path, body);
      const missText = await miss.text();
      await entries.grewFrom(stored);
      const hit = await post(two.baseURL, alice.key, path, body);
      const hitText = await hit.text();
      expect([miss.status, hit.status], path).toEqual([200, 200]);
      expect([miss.headers.get('x-router-cache-status'), hit.headers.get('x-router-cache-status')], path).toEqual(['MISS', 'HIT']);
      expect(hit.headers.get('x-router-cache-original-request-id')).toBe(miss.headers.get('x-request-id'));
      expect(calls() - before, path).toBe(1);
      const costless = (text: string) => text.replace(/"cost":[0-9.e-]+/g, '"cost":0').replace(/"cost_details":\{[^}]*\}/g, '"cost_details":{}');
      if ((body as { stream?: boolean }).stream) expect(costless(hitText), path).toBe(costless(missText));
    }
    entries.close();
  });

  it('never shares an entry between accounts, never stores a zdr request, and applies the CLI account rule on both instances', async () => {
    const [one, two] = cluster.routers;
    const body = { model: 'router/frontier', messages: [{ role: 'user', content: unique('Same body') }] };
    expect((await post(one.baseURL, alice.key, '/chat/completions', body)).headers.get('x-router-cache-status')).toBe('MISS');
    expect((await post(two.baseURL, bob.key, '/chat/completions', body)).headers.get('x-router-cache-status')).toBe('MISS');
    const zdr = { ...body, messages: [{ role: 'user', content: unique('zdr') }], provider: { zdr: true } };
    // No provider of this deployment promises zero retention: the request is refused, and nothing is stored either way.
    const refused = await post(one.baseURL, alice.key, '/chat/completions', zdr);
    expect(refused.status).toBe(400);
    const keys = await import('ioredis').then(({ Redis }) => new Redis(process.env.ROUTER_TEST_REDIS_URL!));
    const before = (await keys.keys(`${cluster.keyPrefix}{rc}:e:*`)).length;
    await cluster.cli('accounts', 'cache-policy', alice.accountId, 'never');
    const fresh = { model: 'router/frontier', messages: [{ role: 'user', content: unique('Never kept') }] };
    expect((await post(one.baseURL, alice.key, '/chat/completions', fresh)).headers.get('x-router-cache-status')).toBe('BYPASS');
    expect((await post(two.baseURL, alice.key, '/chat/completions', fresh)).headers.get('x-router-cache-status')).toBe('BYPASS');
    expect((await keys.keys(`${cluster.keyPrefix}{rc}:e:*`)).length).toBe(before);
    keys.disconnect();
    await cluster.cli('accounts', 'cache-policy', alice.accountId, 'allow');
  });

  it('`router usage --json` counts the hits and the spend they saved', async () => {
    const deadline = Date.now() + 15_000;
    let totals: any;
    do {
      await new Promise((resolve) => setTimeout(resolve, 500));
      totals = (await cluster.cli('usage', '--account', alice.accountId)).totals;
    } while (totals.responseCacheHits < 4 && Date.now() < deadline);
    expect(totals.responseCacheHits).toBe(4);
    expect(typeof totals.responseCacheSavedUsd).toBe('string');
  });
});

describe.skipIf(clusterSkipReason !== undefined)('response cache in cluster mode (two workers, Redis)', { timeout: 120_000 }, () => {
  let router: SpawnedRouter;
  const keyPrefix = `e2e_rc_${randomBytes(4).toString('hex')}:`;

  beforeAll(async () => {
    router = await startSpawnedRouter({
      readyTimeoutMs: 40_000,
      env: { ROUTER_WORKERS: '2', ROUTER_REDIS_URL: process.env.ROUTER_TEST_REDIS_URL! },
      patch: { server: (doc: any) => void (doc.rateLimit = { ...doc.rateLimit, keyPrefix }) },
    });
  }, 60_000);
  afterAll(async () => {
    await router?.close();
    await deleteRedisKeys(process.env.ROUTER_TEST_REDIS_URL!, keyPrefix);
  });

  it('an answer paid for on one worker is a HIT on the other, stream and whole', async () => {
    const { key } = await router.account('pro');
    const workers = [...(await oneConnectionPerWorker(router)).values()];
    const ask = async (worker: (typeof workers)[number], body: object) => {
      const answer = await worker.request({ path: '/v1/chat/completions', method: 'POST', headers: { ...HEADERS, authorization: `Bearer ${key}` }, body: JSON.stringify(body) });
      const text = await answer.body.text();
      return { status: answer.statusCode, cache: answer.headers['x-router-cache-status'], text };
    };
    const entries = await entriesUnder(keyPrefix);
    for (const stream of [false, true]) {
      const body = { model: 'router/frontier', messages: [{ role: 'user', content: unique('Cluster') }], stream };
      const before = router.fakes.openai.requests.length;
      const stored = await entries.count();
      const miss = await ask(workers[0]!, body);
      await entries.grewFrom(stored);
      const hit = await ask(workers[1]!, body);
      expect([miss.status, miss.cache, hit.status, hit.cache]).toEqual([200, 'MISS', 200, 'HIT']);
      expect(router.fakes.openai.requests.length - before).toBe(1);
    }
    entries.close();
    await Promise.all(workers.map((worker) => worker.close()));
  });
});
