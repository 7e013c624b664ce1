/**
 * Alerts through real HTTP and a real SMTP sink: the quota, a key's own cap and the managed spend cap at
 * 80 % and 100 % (each mailed once), a provider key rejected in live traffic and by its Test (the same
 * alert), a sign-in from a new device, an alert turned off by email (still listed), and the app's home
 * showing the open alerts with their action.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startSmtpSink, type SmtpSink } from '../../support/smtp-sink.js';
import { AppClient, shownKey, startAppRouter, type AppRouter } from '../app-harness.js';
import { frontierOrder, pointProvidersAt, postV1, startFakes, type Fakes, type YamlPatch } from '../router-harness.js';

const PASSWORD = 'correct horse battery staple';
const BAD_OPENAI_KEY = 'sk-test-openai-revoked-0001';

let sink: SmtpSink;
let fakes: Fakes;
let router: AppRouter | undefined;
beforeAll(async () => {
  sink = await startSmtpSink();
  fakes = await startFakes();
});
afterAll(async () => {
  await sink.close();
  await fakes.close();
});
afterEach(async () => {
  await router?.close();
  router = undefined;
  fakes.reset();
});

function start(options: { monthlyRequests?: number; patch?: YamlPatch; env?: Record<string, string>; app?: Record<string, unknown> } = {}) {
  return startAppRouter({
    env: { ROUTER_SMTP_URL: sink.url, ...options.env },
    app: { alerts: { sweepSeconds: 1, spikeMinRequests: 10_000, spikeFactor: 10 }, requireEmailVerification: false, ...options.app },
    patch: {
      providers: pointProvidersAt(fakes.urls),
      routes: frontierOrder(['openai']),
      plans: (doc) => {
        if (options.monthlyRequests) doc.plans.find((plan: { id: string }) => plan.id === 'free').monthlyRequests = options.monthlyRequests;
      },
      ...options.patch,
    },
  });
}

async function accountWithKey(email: string, providerKey: string | null = 'sk-test-openai-1234'): Promise<{ client: AppClient; key: string }> {
  const client = new AppClient(router!.url);
  await client.signUp(email, PASSWORD);
  const key = shownKey((await client.follow(await client.post('/app/onboarding/key', {}))).html)!;
  if (providerKey) {
    await client.get('/app/provider-keys');
    await client.post('/app/provider-keys', { provider: 'openai', key: providerKey });
  }
  return { client, key };
}
const call = (key: string) => postV1(router!, key, '/chat/completions', { model: 'router/frontier', messages: [{ role: 'user', content: 'hi' }] });
const mailsTo = (email: string, subject: RegExp) => sink.mails.filter((mail) => mail.to.includes(email) && subject.test(mail.subject));
const settle = (ms = 1500) => new Promise((resolve) => setTimeout(resolve, ms));

describe('threshold alerts', () => {
  it('the monthly quota at 80 % then 100 %: each mailed once, the home shows the higher one with "See usage"', { timeout: 30_000 }, async () => {
    router = await start({ monthlyRequests: 5 });
    const { client, key } = await accountWithKey('quota.levels@example.com');
    for (let i = 0; i < 4; i++) expect((await call(key)).status).toBe(200);
    await sink.waitFor('quota.levels@example.com', /^You have used 80 % of your monthly requests$/, 8000);
    expect((await client.get('/app/keys')).html).toContain('You have used 80 % of your monthly requests');
    expect((await call(key)).status).toBe(200);
    const full = await sink.waitFor('quota.levels@example.com', /^Your monthly requests are used up$/, 8000);
    expect(full.text).toContain('5 of 5 requests');
    const home = (await client.get('/app/keys')).html;
    const needs = home.slice(home.indexOf('Needs your attention'));
    expect(needs).toContain('Your monthly requests are used up');
    expect(needs).toContain('>See usage</a>');
    // 100 % hides 80 % on the home; the security page keeps both.
    expect(home).not.toContain('You have used 80 % of your monthly requests');
    expect((await client.get('/app/security')).html).toContain('You have used 80 % of your monthly requests');
    await call(key); // refused now (429), and the sweep runs again: nothing new is mailed
    await settle();
    expect(mailsTo('quota.levels@example.com', /80 %/)).toHaveLength(1);
    expect(mailsTo('quota.levels@example.com', /used up/)).toHaveLength(1);
  });

  it("a key's own monthly cap at 80 % and 100 %, named in the mail, with \"Change its cap\" on the home", { timeout: 30_000 }, async () => {
    router = await start();
    const { client } = await accountWithKey('key.cap@example.com');
    await client.get('/app/keys');
    const created = await client.follow(await client.post('/app/keys', { name: 'ci runner', expiresInDays: '30', monthlyRequests: '5', requestsPerMinute: '' }));
    const capped = shownKey(created.html)!;
    expect(capped).toMatch(/^sk_router_/);
    for (let i = 0; i < 4; i++) expect((await call(capped)).status).toBe(200);
    const warned = await sink.waitFor('key.cap@example.com', /^Key "ci runner" is at 80 % of its monthly cap$/, 8000);
    expect(warned.text).toContain('4 of 5 requests');
    expect(warned.text).toContain(`…${capped.slice(-4)}`);
    expect(warned.text).not.toContain(capped);
    expect((await call(capped)).status).toBe(200);
    await sink.waitFor('key.cap@example.com', /^Key "ci runner" reached its monthly cap$/, 8000);
    const home = (await client.get('/app/keys')).html;
    expect(home).toMatch(/href="\/app\/keys#key_[0-9a-f]+">Change its cap<\/a>/);
    await settle();
    expect(mailsTo('key.cap@example.com', /ci runner/)).toHaveLength(2);
  });

  it('the managed spend cap at 100 %, with provider access of the service', { timeout: 30_000 }, async () => {
    router = await start({
      env: { OPENAI_API_KEY: 'sk-operator-managed-0001' },
      // The shipped plan that may resell provider access; its cap is reached by the first request.
      app: { signupPlan: 'pro' },
      patch: {
        plans: (doc) => void Object.assign(doc.plans.find((plan: { id: string }) => plan.id === 'pro'), { managedSpendCapUsd: 0.000001 }),
        providers: pointProvidersAt(fakes.urls, (doc) => void (doc.managedAccess = { enabled: true })),
      },
    });
    const { client, key } = await accountWithKey('spend.cap@example.com', null);
    expect((await call(key)).status).toBe(200);
    const mail = await sink.waitFor('spend.cap@example.com', /^Your spend cap is reached$/, 15_000);
    expect(mail.text).toContain('of $0.00');
    expect((await client.get('/app/onboarding')).html).toContain('Your spend cap is reached');
  });
});

describe('a provider key rejected by its provider', () => {
  it('in live traffic: mailed once, "Fix provider key" on the home until the key is replaced', { timeout: 30_000 }, async () => {
    router = await start();
    fakes.openai.rejectKey(BAD_OPENAI_KEY);
    const { client, key } = await accountWithKey('live.reject@example.com', BAD_OPENAI_KEY);
    expect((await call(key)).status).not.toBe(200);
    const mail = await sink.waitFor('live.reject@example.com', /^Your openai key was rejected$/, 8000);
    expect(mail.text).toContain('answered 401 to your provider key (in live traffic)');
    expect(mail.text).not.toContain(BAD_OPENAI_KEY);
    const home = (await client.get('/app/keys')).html;
    expect(home).toContain('href="/app/provider-keys">Fix provider key</a>');
    await call(key);
    await settle();
    expect(mailsTo('live.reject@example.com', /was rejected/)).toHaveLength(1);
    // Replaced: the alert is no longer open (the security page still lists it).
    await client.get('/app/provider-keys');
    await client.post('/app/provider-keys', { provider: 'openai', key: 'sk-test-openai-1234' });
    expect((await client.get('/app/keys')).html).not.toContain('Fix provider key');
    expect((await client.get('/app/security')).html).toContain('Your openai key was rejected');
  });

  it('by its Test: the same alert and mail, and the key shown as rejected', { timeout: 30_000 }, async () => {
    router = await start();
    fakes.openai.rejectKey(BAD_OPENAI_KEY);
    const { client } = await accountWithKey('test.reject@example.com', BAD_OPENAI_KEY);
    await client.get('/app/provider-keys');
    const tested = await client.follow(await client.post('/app/provider-keys/openai/test', {}));
    expect(tested.html).toContain('OpenAI rejected this key (HTTP 401');
    expect(tested.html).toContain('<span class="badge rejected">failing since');
    const mail = await sink.waitFor('test.reject@example.com', /^Your openai key was rejected$/, 5000);
    expect(mail.text).toContain('answered 401 to your provider key (when you tested it)');
    expect((await client.get('/app/onboarding')).html).toContain('Fix provider key');
  });
});

describe('sign-ins and alert emails', () => {
  it('a sign-in from a new device is noted and mailed; the first device and a known one are not', { timeout: 30_000 }, async () => {
    router = await start();
    const first = new AppClient(router.url);
    await first.signUp('devices@example.com', PASSWORD);
    const phone = new AppClient(router.url, 'Mozilla/5.0 (Macintosh; Intel Mac OS X 14_0) Gecko/20100101 Firefox/131.0');
    await phone.signIn('devices@example.com', PASSWORD);
    const mail = await sink.waitFor('devices@example.com', /^New sign-in to your account$/);
    expect(mail.text).toContain('Firefox on macOS');
    expect(mail.text).toContain(`${router.url}/app/security`);
    const security = (await first.get('/app/security')).html;
    expect(security).toContain('Signed in from Firefox on macOS');
    // The same browser again, and the first device again: nothing new.
    await phone.signIn('devices@example.com', PASSWORD);
    await first.signIn('devices@example.com', PASSWORD);
    await settle(800);
    expect(mailsTo('devices@example.com', /New sign-in/)).toHaveLength(1);
    // Verification is off here: no "confirm your email" message asking for it.
    expect(mailsTo('devices@example.com', /Confirm your email/)).toHaveLength(0);
  });

  it('an alert kind turned off by email sends nothing, and the alert is still listed', { timeout: 30_000 }, async () => {
    router = await start({ monthlyRequests: 5 });
    const { client, key } = await accountWithKey('quiet@example.com');
    const security = await client.get('/app/security');
    expect(security.html).toContain('name="email_quota" checked');
    const boxes = Object.fromEntries([...security.html.matchAll(/name="(email_[a-z_]+)" checked/g)].map((match) => [match[1]!, 'on']));
    delete boxes.email_quota;
    const saved = await client.post('/app/security/alerts', boxes);
    expect(saved.html).toContain('Alert emails saved.');
    expect(saved.html).not.toContain('name="email_quota" checked');
    expect(saved.html).toContain('name="email_key_cap" checked');
    for (let i = 0; i < 4; i++) expect((await call(key)).status).toBe(200);
    const deadline = Date.now() + 8000;
    while (!(await client.get('/app/security')).html.includes('You have used 80 % of your monthly requests') && Date.now() < deadline) await settle(200);
    expect((await client.get('/app/security')).html).toContain('You have used 80 % of your monthly requests');
    await settle(800);
    expect(mailsTo('quiet@example.com', /monthly requests/)).toHaveLength(0);
  });
});
