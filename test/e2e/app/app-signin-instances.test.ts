/**
 * The sign-in throttle across instances: two routers on one PostgreSQL store and one Redis, whose
 * RateLimiter keeps the throttle's windows, count the same failures, and a device cookie one instance
 * set exempts its browser on the other (both sign with the same server secret). Runs when
 * ROUTER_TEST_POSTGRES_URL and ROUTER_TEST_REDIS_URL are set.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FAILURES_PER_EMAIL } from '../../../src/app/signin-throttle.js';
import { AppClient, startAppRouter, type AppRouter } from '../app-harness.js';
import { postgresRedisBackend, postgresSkipReason, type UsageBackend } from '../usage-backends.js';

const PASSWORD = 'correct horse battery staple';

describe.skipIf(postgresSkipReason !== undefined)('sign-in throttle shared by two instances (PostgreSQL and Redis)', { timeout: 60_000 }, () => {
  let backend: UsageBackend;
  let routers: AppRouter[] = [];
  beforeAll(async () => {
    backend = postgresRedisBackend('signin');
    const start = () => startAppRouter({ env: backend.env, app: { requireEmailVerification: false }, patch: { server: (doc) => backend.server(doc) } });
    routers = [await start(), await start()];
  }, 60_000);
  afterAll(async () => {
    for (const router of routers) await router.close();
    await backend?.cleanUp();
  });

  async function signIn(router: AppRouter, email: string, password: string) {
    const client = new AppClient(router.url);
    await client.get('/app/signin');
    return client.post('/app/signin', { email, password });
  }

  it('refuses every unknown device on either instance once the failures on both reach the limit', async () => {
    const [first, second] = routers as [AppRouter, AppRouter];
    expect(first.server.runtime.rateLimiter.kind).toBe('redis');
    const owner = new AppClient(first.url);
    await owner.get('/app/signup');
    await owner.post('/app/signup', { email: 'two.instances@example.com', password: PASSWORD });
    // Alternating: neither instance alone sees the limit's worth of failures.
    for (let i = 0; i < FAILURES_PER_EMAIL; i++) expect((await signIn(routers[i % 2]!, 'two.instances@example.com', `wrong ${i}`)).status).toBe(401);
    expect((await signIn(second, 'two.instances@example.com', PASSWORD)).status).toBe(429);
    expect((await signIn(first, 'two.instances@example.com', PASSWORD)).status).toBe(429);
  });

  it('the owner’s browser, known from a sign-in on one instance, signs in on both while strangers fill the limit across them', async () => {
    const [first, second] = routers as [AppRouter, AppRouter];
    const owner = new AppClient(first.url);
    await owner.signUp('known.device@example.com', PASSWORD);
    const device = owner.cookies.get('router_device');
    expect(device).toBeDefined();
    for (let i = 0; i < FAILURES_PER_EMAIL + 2; i++) await signIn(routers[i % 2]!, 'known.device@example.com', `wrong ${i}`);
    expect((await signIn(first, 'known.device@example.com', PASSWORD)).status).toBe(429);
    expect((await signIn(second, 'known.device@example.com', PASSWORD)).status).toBe(429);
    for (const router of [second, first]) {
      const client = new AppClient(router.url);
      client.cookies.set('router_device', device!);
      expect((await client.signIn('known.device@example.com', PASSWORD)).status).toBe(200);
      expect(client.cookies.has('router_session')).toBe(true);
    }
  });
});
