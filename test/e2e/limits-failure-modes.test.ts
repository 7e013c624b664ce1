/**
 * The limits when their backing services fail: without Redis each instance keeps limiting on its own and
 * says so; without PostgreSQL model traffic fails closed (503 store_unavailable), never served unmetered.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateApiKey } from '../../src/core/api-key.js';
import { systemClock } from '../../src/core/clock.js';
import { createPostgresStore } from '../../src/stores/postgres/create-postgres-store.js';
import {
  freePort,
  frontierOrder,
  json,
  planLimits,
  pointProvidersAt,
  postChat,
  PROVIDER_KEYS,
  runCliJson,
  startFakes,
  startTestRouter,
  type Fakes,
  type TestRouter,
  type YamlPatch,
} from './router-harness.js';
import { deleteRedisKeys, dropSchemas } from '../support/service-cleanup.js';
import { startRelayFor, type ServiceRelay } from '../support/tcp-relay.js';

const postgresUrl = process.env.ROUTER_TEST_POSTGRES_URL;
if (!postgresUrl) console.warn('skipping the PostgreSQL outage tests: set ROUTER_TEST_POSTGRES_URL (e.g. postgres://postgres@127.0.0.1:5432/test)');

const patch = (fakes: Fakes) => ({
  plans: planLimits({ free: { monthlyRequests: 100, requestsPerMinute: 3 } }),
  providers: pointProvidersAt(fakes.urls),
  routes: frontierOrder(['openai']),
});
const OPENAI = { providerKeys: { openai: PROVIDER_KEYS.openai } };
const STORE_UNAVAILABLE = { type: 'server_error', code: 'store_unavailable', param: null, supportUrl: 'http://localhost:8787/app/support' };

describe('Redis unreachable', () => {
  let fakes: Fakes;
  let router: TestRouter;
  beforeAll(async () => {
    fakes = await startFakes();
    // A password in the URL must never reach the logs or /readyz.
    const redisUrl = `redis://:hunter2-redis@127.0.0.1:${await freePort()}`;
    router = await startTestRouter({ patch: patch(fakes), env: { ROUTER_REDIS_URL: redisUrl } });
  });
  afterAll(async () => {
    await router.close();
    await fakes.close();
  });

  it('keeps limiting per instance, decides the monthly quota in the store, says so in /readyz, and logs each once', async () => {
    const { key } = await router.createAccount('free', OPENAI);
    const statuses: number[] = [];
    const used: Array<string | null> = [];
    for (let i = 0; i < 4; i++) {
      const response = await postChat(router.baseURL, key);
      statuses.push(response.status);
      used.push(response.headers.get('x-quota-used'));
    }
    expect(statuses).toEqual([200, 200, 200, 429]);
    // Counted in SQLite, one by one; the rate-limited fourth request was given back.
    expect(used).toEqual(['1', '2', '3', '3']);

    const ready = await fetch(`${router.url}/readyz`);
    expect(ready.status).toBe(200);
    const body = await json(ready);
    expect(body).toMatchObject({ status: 'ready', store: 'sqlite', quota: { backend: 'store-fallback' }, rateLimiter: { backend: 'memory-fallback' } });
    expect(body.rateLimiter.reason).toMatch(/^redis /);
    expect(body.quota.reason).toMatch(/^redis /);

    const lines: string[] = (router.server.runtime.logger as unknown as { lines: string[] }).lines;
    const warnings = lines.filter((line) => line.includes('shared rate-limit windows unavailable'));
    expect(warnings).toHaveLength(1);
    expect(lines.filter((line) => line.includes('monthly quota gate unavailable'))).toHaveLength(1);
    expect(JSON.stringify([body, lines])).not.toContain('hunter2-redis');
  });
});

describe('PostgreSQL unreachable at start', () => {
  it('refuses to start the server with exit 1 and a one-line reason that hides the password', async () => {
    const storage = `postgres://router:hunter2-pg@127.0.0.1:${await freePort()}/router`;
    const failure = await runCliJson({ ROUTER_STORAGE: storage, ROUTER_PORT: '0', ROUTER_SECRET_KEY: 'x'.repeat(32) }, 'serve').catch((error: unknown) => error);
    expect(failure).toMatchObject({ code: 1 });
    const { stderr } = failure as { stderr: string };
    expect(stderr).toContain('PostgreSQL store unavailable');
    expect(stderr).not.toContain('hunter2-pg');
  });
});

/** A router whose PostgreSQL is reached through a relay that can be cut and restored on the same port. */
async function startRouterBehindRelay(schema: string, options: { patch: YamlPatch; env?: Record<string, string> }) {
  const relay = await startRelayFor(postgresUrl ?? '');
  const viaRelay = new URL(relay.url);
  viaRelay.searchParams.set('schema', schema);
  const router = await startTestRouter({ patch: options.patch, env: { ROUTER_STORAGE: viaRelay.toString(), ...options.env } });
  return { relay, router };
}

describe.skipIf(!postgresUrl)('PostgreSQL unreachable while serving', () => {
  const schema = `limits_outage_${randomBytes(4).toString('hex')}`;
  let relay: ServiceRelay;
  let fakes: Fakes;
  let router: TestRouter;

  beforeAll(async () => {
    fakes = await startFakes();
    ({ relay, router } = await startRouterBehindRelay(schema, { patch: patch(fakes) }));
  });
  afterAll(async () => {
    await router?.close();
    await fakes?.close();
    await dropSchemas(postgresUrl ?? '', schema);
  });

  it('fails model requests closed with 503 store_unavailable and /readyz 503, and recovers when it is back', async () => {
    const { key } = await router.createAccount('free', OPENAI);
    expect((await postChat(router.baseURL, key)).status).toBe(200);
    await relay.cut();
    fakes.reset();

    // The key is still in this instance's cache: authentication passes, the monthly count cannot be taken.
    const cached = await postChat(router.baseURL, key);
    expect(cached.status).toBe(503);
    expect(cached.headers.get('retry-after')).toBe('5');
    expect((await json(cached)).error).toMatchObject(STORE_UNAVAILABLE);
    // A key this instance has not seen cannot be checked either: 503, not a guess in either direction.
    const uncached = await postChat(router.baseURL, generateApiKey());
    expect(uncached.status).toBe(503);
    expect((await json(uncached)).error).toMatchObject(STORE_UNAVAILABLE);
    expect(fakes.openai.requests).toHaveLength(0);

    const ready = await fetch(`${router.url}/readyz`);
    expect(ready.status).toBe(503);
    expect(await json(ready)).toMatchObject({ status: 'unavailable', store: 'postgres' });

    await relay.restore();
    const back = await postChat(router.baseURL, key);
    expect(back.status).toBe(200);
    expect(back.headers.get('x-quota-used')).toBe('2');
  });

  it('fails closed the same way when the store has been shut down under a running router', async () => {
    const store = createPostgresStore({ url: postgresUrl ?? '', clock: systemClock, schema });
    // The router's own shutdown must not end the pool a second time.
    const closing = await startTestRouter({ patch: patch(fakes), build: { store: { ...store, close: async () => undefined } } });
    try {
      const { key } = await closing.createAccount('free', OPENAI);
      expect((await postChat(closing.baseURL, key)).status).toBe(200);
      await store.close();
      fakes.reset();
      const refused = await postChat(closing.baseURL, key);
      expect(refused.status).toBe(503);
      expect((await json(refused)).error).toMatchObject(STORE_UNAVAILABLE);
      expect(fakes.openai.requests).toHaveLength(0);
      expect((await fetch(`${closing.url}/readyz`)).status).toBe(503);
    } finally {
      await closing.close();
    }
  });
});

const redisUrl = process.env.ROUTER_TEST_REDIS_URL;
describe.skipIf(!postgresUrl || !redisUrl)('PostgreSQL unreachable while the Redis quota gate still holds units', () => {
  const schema = `limits_gate_outage_${randomBytes(4).toString('hex')}`;
  let relay: ServiceRelay;
  let fakes: Fakes;
  let router: TestRouter;

  beforeAll(async () => {
    fakes = await startFakes();
    ({ relay, router } = await startRouterBehindRelay(schema, {
      patch: {
        ...patch(fakes),
        // A limit large enough that the first request makes PostgreSQL hold a block of 100 for the gate.
        plans: planLimits({ free: { monthlyRequests: 100_000, requestsPerMinute: 1000 } }),
        server: (doc: any) => void (doc.rateLimit = { ...doc.rateLimit, keyPrefix: `${schema}:` }),
      },
      env: { ROUTER_REDIS_URL: redisUrl ?? '' },
    }));
  });
  afterAll(async () => {
    await router?.close();
    await fakes?.close();
    await dropSchemas(postgresUrl ?? '', schema);
    await deleteRedisKeys(redisUrl ?? '', `${schema}:`);
  });

  it('fails closed with 503 within two store probes, though Redis could still admit, and recovers', async () => {
    const { key } = await router.createAccount('free', OPENAI);
    expect((await postChat(router.baseURL, key)).status).toBe(200);
    expect(await json(await fetch(`${router.url}/readyz`))).toMatchObject({ quota: { backend: 'redis-gate' } });
    await relay.cut();
    fakes.reset();
    await new Promise((resolve) => setTimeout(resolve, 2500));

    const refused = await postChat(router.baseURL, key);
    expect(refused.status).toBe(503);
    expect((await json(refused)).error).toMatchObject(STORE_UNAVAILABLE);
    expect(fakes.openai.requests).toHaveLength(0);

    await relay.restore();
    const deadline = Date.now() + 5000;
    let back = await postChat(router.baseURL, key);
    while (back.status === 503 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      back = await postChat(router.baseURL, key);
    }
    expect(back.status).toBe(200);
    expect(back.headers.get('x-quota-used')).toBe('2');
  });
});
