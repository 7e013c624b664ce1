/**
 * Alerts on the multi-instance deployment: two routers on one PostgreSQL store with the Redis quota gate,
 * each sweeping the accounts it served. The quota at 80 % and 100 % is read through the gate's `peek`
 * and mailed once per level however many instances find it (the store's unique insert), and a key's own
 * cap likewise. Runs when ROUTER_TEST_POSTGRES_URL and ROUTER_TEST_REDIS_URL are set.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSmtpSink, type SmtpSink } from '../../support/smtp-sink.js';
import { AppClient, shownKey, startAppRouter, type AppRouter } from '../app-harness.js';
import { frontierOrder, pointProvidersAt, postV1, startFakes, type Fakes } from '../router-harness.js';
import { postgresRedisBackend, postgresSkipReason, type UsageBackend } from '../usage-backends.js';

const PASSWORD = 'correct horse battery staple';

describe.skipIf(postgresSkipReason !== undefined)('alerts on PostgreSQL with the Redis quota gate, two instances', { timeout: 60_000 }, () => {
  let sink: SmtpSink;
  let fakes: Fakes;
  let backend: UsageBackend;
  let routers: AppRouter[] = [];

  beforeAll(async () => {
    [sink, fakes] = await Promise.all([startSmtpSink(), startFakes()]);
    backend = postgresRedisBackend('alerts');
    const start = () =>
      startAppRouter({
        env: { ...backend.env, ROUTER_SMTP_URL: sink.url },
        app: { alerts: { sweepSeconds: 1, spikeMinRequests: 10_000, spikeFactor: 10 }, requireEmailVerification: false },
        patch: {
          server: (doc) => backend.server(doc),
          providers: pointProvidersAt(fakes.urls),
          routes: frontierOrder(['openai']),
          plans: (doc) => void (doc.plans.find((plan: { id: string }) => plan.id === 'free').monthlyRequests = 10),
        },
      });
    routers = [await start(), await start()];
  }, 60_000);
  afterAll(async () => {
    for (const router of routers) await router.close();
    await Promise.all([sink?.close(), fakes?.close()]);
    await backend?.cleanUp();
  });

  it('mails the quota at 80 % and 100 % and a key cap once each, with requests and sweeps on both instances', async () => {
    const [first, second] = routers as [AppRouter, AppRouter];
    expect(first.server.runtime.store.kind).toBe('postgres');
    expect(first.server.runtime.quota.kind).toBe('redis-gate');
    const client = new AppClient(first.url);
    await client.signUp('pg.alerts@example.com', PASSWORD);
    const key = shownKey((await client.follow(await client.post('/app/onboarding/key', {}))).html)!;
    await client.get('/app/provider-keys');
    await client.post('/app/provider-keys', { provider: 'openai', key: 'sk-test-openai-1234' });
    await client.get('/app/keys');
    const capped = shownKey((await client.follow(await client.post('/app/keys', { name: 'shared', expiresInDays: '30', monthlyRequests: '5', requestsPerMinute: '' }))).html)!;
    const call = (router: AppRouter, apiKey: string) => postV1(router, apiKey, '/chat/completions', { model: 'router/frontier', messages: [{ role: 'user', content: 'hi' }] });

    // Alternating instances: 4 then 1 on the capped key (80 %, 100 % of its 5), then the account to 8 and 10 of 10.
    for (let i = 0; i < 4; i++) expect((await call(routers[i % 2]!, capped)).status).toBe(200);
    await sink.waitFor('pg.alerts@example.com', /^Key "shared" is at 80 % of its monthly cap$/, 10_000);
    expect((await call(second, capped)).status).toBe(200);
    await sink.waitFor('pg.alerts@example.com', /^Key "shared" reached its monthly cap$/, 10_000);
    for (let i = 0; i < 3; i++) expect((await call(routers[i % 2]!, key)).status).toBe(200);
    await sink.waitFor('pg.alerts@example.com', /^You have used 80 % of your monthly requests$/, 10_000);
    for (let i = 0; i < 2; i++) expect((await call(routers[i % 2]!, key)).status).toBe(200);
    await sink.waitFor('pg.alerts@example.com', /^Your monthly requests are used up$/, 10_000);
    // More traffic on both and a few more sweeps each: nothing is mailed twice.
    await call(first, key);
    await call(second, key);
    await new Promise((resolve) => setTimeout(resolve, 2500));
    const subjects = sink.mails.filter((mail) => mail.to.includes('pg.alerts@example.com')).map((mail) => mail.subject).sort();
    expect(subjects).toEqual(['Key "shared" is at 80 % of its monthly cap', 'Key "shared" reached its monthly cap', 'You have used 80 % of your monthly requests', 'Your monthly requests are used up'].sort());
  });
});
