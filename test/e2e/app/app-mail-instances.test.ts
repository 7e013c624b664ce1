/**
 * The mail limits across instances: two routers on one PostgreSQL store and one Redis (whose RateLimiter
 * keeps the limits' windows) and one SMTP server, asked alternately, send no more than one would; and
 * of the links they sent only the newest works. Runs when ROUTER_TEST_POSTGRES_URL and ROUTER_TEST_REDIS_URL are set.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAIL_LIMITS } from '../../../src/app/mail-limits.js';
import { startSmtpSink, type SmtpSink } from '../../support/smtp-sink.js';
import { AppClient, startAppRouter, type AppRouter } from '../app-harness.js';
import { postgresRedisBackend, postgresSkipReason, type UsageBackend } from '../usage-backends.js';

const linkIn = (text: string) => /http:\/\/127\.0\.0\.1:\d+(\/app\/link\?token=[A-Za-z0-9_-]+)/.exec(text)?.[1] ?? null;

describe.skipIf(postgresSkipReason !== undefined)('mail limits shared by two instances (PostgreSQL and Redis)', { timeout: 60_000 }, () => {
  let backend: UsageBackend;
  let sink: SmtpSink;
  let routers: AppRouter[] = [];
  beforeAll(async () => {
    backend = postgresRedisBackend('mail');
    sink = await startSmtpSink();
    const start = () => startAppRouter({ env: { ...backend.env, ROUTER_SMTP_URL: sink.url }, patch: { server: (doc) => backend.server(doc) } });
    routers = [await start(), await start()];
  }, 60_000);
  afterAll(async () => {
    for (const router of routers) await router.close();
    await sink?.close();
    await backend?.cleanUp();
  });

  it('12 reset requests alternating between the instances send the per-recipient limit in all, and one link works', async () => {
    const [first] = routers as [AppRouter, AppRouter];
    expect(first.server.runtime.rateLimiter.kind).toBe('redis');
    await first.server.runtime.store.createAccountWithLogin({ email: 'two.instances.mail@example.com', plan: 'free', passwordHash: 'not-a-usable-hash' }, 'test');
    for (let i = 0; i < 12; i++) {
      const client = new AppClient(routers[i % 2]!.url);
      await client.get('/app/forgot');
      expect((await client.post('/app/forgot', { email: 'two.instances.mail@example.com' })).status).toBe(200);
    }
    const mails = () => sink.mails.filter((mail) => mail.to.includes('two.instances.mail@example.com'));
    const deadline = Date.now() + 10_000;
    while (mails().length < MAIL_LIMITS.reset.perRecipient && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect(mails()).toHaveLength(MAIL_LIMITS.reset.perRecipient);
    const statuses = await Promise.all(mails().map(async (mail) => (await new AppClient(first.url).get(linkIn(mail.text)!)).status));
    expect(statuses.filter((status) => status === 200)).toHaveLength(1);
  });
});
