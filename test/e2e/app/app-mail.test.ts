/**
 * Email through a real SMTP server (an in-process sink): password reset by emailed link, verification
 * before the first key, a taken email's owner warned, nothing for unknown addresses, a failing mail server
 * that never fails a page nor leaks its credentials, and the alerts (80 % of the quota, a leaked-key signal
 * with "Revoke now").
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startSmtpSink, type SmtpSink } from '../../support/smtp-sink.js';
import { AppClient, shownKey, startAppRouter, type AppRouter } from '../app-harness.js';
import { freePort, frontierOrder, pointProvidersAt, postV1, silentLogger, startFakes, type Fakes } from '../router-harness.js';

const PASSWORD = 'correct horse battery staple';
const linkIn = (text: string) => /(http:\/\/127\.0\.0\.1:\d+\/app\/link\?token=[A-Za-z0-9_-]+)/.exec(text)?.[1] ?? null;
const pathOf = (url: string) => { const parsed = new URL(url); return parsed.pathname + parsed.search; };

let sink: SmtpSink;
let fakes: Fakes;
beforeAll(async () => {
  sink = await startSmtpSink();
  fakes = await startFakes();
});
afterAll(async () => {
  await sink.close();
  await fakes.close();
});

describe('password reset, verification and sign-up mail', () => {
  let router: AppRouter;
  beforeAll(async () => {
    router = await startAppRouter({ env: { ROUTER_SMTP_URL: sink.url } });
  });
  afterAll(async () => router.close());

  it('forgot password → the email at the sink → the link → a new password → sign in', async () => {
    const client = new AppClient(router.url);
    await client.signUp('reset.me@example.com', PASSWORD);
    const anonymous = new AppClient(router.url);
    await anonymous.get('/app/forgot');
    const asked = await anonymous.post('/app/forgot', { email: 'Reset.Me@example.com' });
    expect(asked.status).toBe(200);
    expect(asked.html).toContain('If an account has that email, we just sent it a link');
    const mail = await sink.waitFor('reset.me@example.com', /^Reset your password$/);
    expect(mail.user).toBe('sink-user');
    const link = linkIn(mail.text)!;
    expect(link).not.toBeNull();
    const form = await anonymous.get(pathOf(link));
    expect(form.status).toBe(200);
    const token = new URL(link).searchParams.get('token')!;
    const done = await anonymous.follow(await anonymous.post('/app/link', { token, email: 'reset.me@example.com', password: 'a brand new passphrase' }));
    expect(done.status).toBe(200);
    // The link works once; the new password signs in, the old one no longer does.
    expect((await new AppClient(router.url).get(pathOf(link))).status).toBe(410);
    const fresh = new AppClient(router.url);
    expect((await fresh.signIn('reset.me@example.com', PASSWORD)).html).toContain('do not match');
    expect((await new AppClient(router.url).signIn('reset.me@example.com', 'a brand new passphrase')).html).not.toContain('do not match');
  });

  it('answers an unknown address with the same page and sends nothing', async () => {
    const client = new AppClient(router.url);
    await client.get('/app/forgot');
    const known = await client.post('/app/forgot', { email: 'reset.me@example.com' });
    const unknown = await client.post('/app/forgot', { email: 'nobody.here@example.com' });
    expect(unknown.status).toBe(known.status);
    expect(unknown.html.replace(/name="csrf" value="[^"]*"/g, '')).toBe(known.html.replace(/name="csrf" value="[^"]*"/g, ''));
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(sink.mails.some((mail) => mail.to.includes('nobody.here@example.com'))).toBe(false);
  });

  it('asks a new account to confirm its email before its first key, through the mailed link', async () => {
    const client = new AppClient(router.url);
    const first = await client.signUp('verify.me@example.com', PASSWORD);
    expect(first.html).toContain('Confirm your email');
    expect(shownKey((await client.follow(await client.post('/app/onboarding/key', {}))).html)).toBeNull();
    const mail = await sink.waitFor('verify.me@example.com', /^Confirm your email address$/);
    const link = linkIn(mail.text)!;
    // Opening the link shows a button only (a mail scanner's GET uses nothing up).
    const opened = await client.get(pathOf(link));
    expect(opened.html).toContain('Confirm my email');
    const confirmed = await client.follow(await client.post('/app/link', { token: new URL(link).searchParams.get('token')! }));
    expect(confirmed.html).toContain('Generate my first key');
    expect(shownKey((await client.follow(await client.post('/app/onboarding/key', {}))).html)).toMatch(/^sk_router_/);
  });

  it('mails the owner of a taken email instead of telling the person who signed up', async () => {
    await new AppClient(router.url).signUp('taken@example.com', PASSWORD);
    const other = new AppClient(router.url);
    await other.get('/app/signup');
    const page = await other.post('/app/signup', { email: 'taken@example.com', password: 'another long password' });
    expect(page.status).toBe(200);
    expect(page.html).toContain('Next step: sign in');
    const mail = await sink.waitFor('taken@example.com', /tried to sign up/);
    expect(mail.text).toContain('Nothing changed');
  });
});

describe('a mail server that fails', () => {
  it('logs the failure without the SMTP credentials, the recipient or the link, and the page still answers', async () => {
    const port = await freePort();
    const logger = silentLogger();
    const router = await startAppRouter({ env: { ROUTER_SMTP_URL: `smtp://mailer:Sup3rSecretPw@127.0.0.1:${port}` }, build: { logger } });
    try {
      const client = new AppClient(router.url);
      await client.signUp('fail.me@example.com', PASSWORD);
      await client.get('/app/forgot');
      const asked = await client.post('/app/forgot', { email: 'fail.me@example.com' });
      expect(asked.status).toBe(200);
      const deadline = Date.now() + 5000;
      while (!logger.lines.some((line: string) => line.includes('mail not sent (password reset)')) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      const mailLines = logger.lines.filter((line: string) => line.includes('mail not sent'));
      expect(mailLines.length).toBeGreaterThan(0);
      const all = logger.lines.join('\n');
      expect(all).not.toContain('Sup3rSecretPw');
      expect(mailLines.join('\n')).not.toContain('fail.me@example.com');
      expect(all).not.toContain('/app/link?token=');
    } finally {
      await router.close();
    }
  });
});

describe('alerts', () => {
  let router: AppRouter;
  afterEach(async () => router?.close());

  const start = (alerts: Record<string, number>, monthlyRequests: number) =>
    startAppRouter({
      env: { ROUTER_SMTP_URL: sink.url },
      app: { alerts: { sweepSeconds: 1, ...alerts }, requireEmailVerification: false },
      patch: {
        providers: pointProvidersAt(fakes.urls),
        routes: frontierOrder(['openai']),
        plans: (doc) => {
          doc.plans.find((plan: { id: string }) => plan.id === 'free').monthlyRequests = monthlyRequests;
        },
      },
    });

  async function accountWithKey(email: string): Promise<{ client: AppClient; key: string }> {
    const client = new AppClient(router.url);
    await client.signUp(email, PASSWORD);
    const key = shownKey((await client.follow(await client.post('/app/onboarding/key', {}))).html)!;
    await client.get('/app/provider-keys');
    await client.post('/app/provider-keys', { provider: 'openai', key: 'sk-test-openai-1234' });
    return { client, key };
  }
  const call = (key: string) => postV1(router, key, '/chat/completions', { model: 'router/frontier', messages: [{ role: 'user', content: 'hi' }] });

  it('mails an 80 % quota alert once, and lists it on the security page', async () => {
    router = await start({}, 5);
    const { client, key } = await accountWithKey('quota.alert@example.com');
    for (let i = 0; i < 4; i++) expect((await call(key)).status).toBe(200);
    const mail = await sink.waitFor('quota.alert@example.com', /used 80 % of your monthly requests/, 8000);
    expect(mail.text).toContain('4 of 5 requests');
    const security = await client.get('/app/security');
    expect(security.html).toContain('You have used 80 % of your monthly requests');
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(sink.mails.filter((m) => m.to.includes('quota.alert@example.com') && /80 %/.test(m.subject))).toHaveLength(1);
  });

  it('flags a key whose traffic jumps far above its own rate, with a "Revoke now" that works', async () => {
    router = await start({ spikeMinRequests: 5, spikeFactor: 3 }, 1000);
    const { client, key } = await accountWithKey('spike.alert@example.com');
    for (let i = 0; i < 6; i++) expect((await call(key)).status).toBe(200);
    const mail = await sink.waitFor('spike.alert@example.com', /^Unusual traffic on key/, 8000);
    expect(mail.text).toContain('/app/security#alerts');
    const security = await client.get('/app/security');
    expect(security.html).toContain('Revoke now');
    const keyId = /name="keyId" value="(key_[0-9a-f]+)"/.exec(security.html)![1]!;
    const revoked = await client.post('/app/security/alerts/revoke-key', { keyId });
    expect(revoked.html).toContain('is revoked');
    expect(revoked.html).not.toContain('Revoke now');
    await new Promise((resolve) => setTimeout(resolve, 5500)); // past the verified-key cache TTL
    expect((await call(key)).status).toBe(401);
  });
});
