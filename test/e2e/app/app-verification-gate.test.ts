/**
 * Verification gates everything that spends, over HTTP with a real SMTP server and the fake providers:
 * an account whose email is not confirmed gets no key from the app, no playground answer (no key minted,
 * no upstream called, even with managed access that needs no provider key of its own) and no provider-key
 * Test; Get started keeps asking for the confirmation though a key exists; the mailed link opens them all.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateApiKey, hashApiKey, lastFour } from '../../../src/core/api-key.js';
import { startSmtpSink, type SmtpSink } from '../../support/smtp-sink.js';
import { AppClient, startAppRouter, type AppRouter } from '../app-harness.js';
import { pointProvidersAt, startFakes, type Fakes } from '../router-harness.js';

const PASSWORD = 'correct horse battery staple';
const MESSAGE = 'Say hello and tell me in one sentence what you can do.';
const linkIn = (text: string) => /http:\/\/127\.0\.0\.1:\d+\/app\/link\?token=([A-Za-z0-9_-]+)/.exec(text)?.[1] ?? null;

let sink: SmtpSink;
let fakes: Fakes;
let router: AppRouter;
beforeAll(async () => {
  [sink, fakes] = await Promise.all([startSmtpSink(), startFakes()]);
  router = await startAppRouter({
    app: { signupPlan: 'pro' },
    env: { ROUTER_SMTP_URL: sink.url, OPENAI_API_KEY: 'sk-operator-managed-0001', ANTHROPIC_API_KEY: 'sk-ant-operator-0002', GEMINI_API_KEY: 'gemini-operator-0003' },
    patch: {
      server: (doc) => void (doc.keyCacheTtlMs = 50),
      plans: (doc) => void Object.assign(doc.plans.find((plan: { id: string }) => plan.id === 'pro'), { managedSpendCapUsd: 50 }),
      providers: pointProvidersAt(fakes.urls, (doc) => void (doc.managedAccess = { enabled: true })),
    },
  });
}, 60_000);
afterAll(async () => {
  await router?.close();
  await Promise.all([sink?.close(), fakes?.close()]);
});

const store = () => router.server.runtime.store;
const upstreamCalls = () => fakes.openai.requests.length + fakes.anthropic.requests.length + fakes.gemini.requests.length;

describe('an account whose email is not confirmed', () => {
  it('gets no playground answer, no key, no provider-key Test: each page says to confirm, and nothing is minted or called', async () => {
    const browser = new AppClient(router.url);
    await browser.signUp('unconfirmed@example.com', PASSWORD);
    const { account } = (await store().findLoginByEmail('unconfirmed@example.com'))!;
    fakes.reset();

    const playground = await browser.get('/app/playground');
    expect(playground.html).toContain('Confirm your email');
    expect(playground.html).toContain('Send the link again');
    const posted = await browser.post('/app/playground', { profile: 'router/frontier', message: MESSAGE });
    expect(posted.status).toBe(403);
    expect(posted.html).toContain('Confirm your email address to use the playground');
    const streamed = await browser.post('/app/playground', { profile: 'router/frontier', message: MESSAGE }, { accept: 'application/x-ndjson' });
    expect(streamed.status).toBe(403);

    const created = await browser.post('/app/keys', { name: 'mine' });
    expect(created).toMatchObject({ status: 303, location: '/app/onboarding' });
    expect((await browser.follow(await browser.post('/app/onboarding/key', {}))).html).toContain('Confirm your email');

    await browser.get('/app/provider-keys');
    await browser.post('/app/provider-keys', { provider: 'openai', key: 'sk-proj-unconfirmed-4242' });
    const tested = await browser.post('/app/provider-keys/openai/test', {});
    expect(tested.status).toBe(403);
    expect(tested.html).toContain('Confirm your email address first');

    expect(await store().listApiKeys(account.id)).toEqual([]);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(upstreamCalls()).toBe(0);
  }, 60_000);

  it('is still asked to confirm on Get started (and sent there from the app’s home) once a key exists', async () => {
    const browser = new AppClient(router.url);
    await browser.signUp('has.key@example.com', PASSWORD);
    const { account } = (await store().findLoginByEmail('has.key@example.com'))!;
    // A key the app would not make (made before this check, or by the operator's CLI).
    const key = generateApiKey();
    await store().createApiKey({ accountId: account.id, name: 'older key', hash: hashApiKey(key, 'unused'), last4: lastFour(key) }, 'cli');
    const onboarding = await browser.get('/app/onboarding');
    expect(onboarding.html).toContain('Confirm your email');
    expect(onboarding.html).not.toContain('Generate my first key');
    expect((await browser.get('/app/')).location).toBe('/app/onboarding');
    // Nor does it get a new key by rotating that one; revoking it still works.
    const keyId = (await store().listApiKeys(account.id))[0]!.id;
    await browser.get('/app/keys');
    expect(await browser.post(`/app/keys/${keyId}/rotate`, { graceSeconds: '0' })).toMatchObject({ status: 303, location: '/app/onboarding' });
    expect(await store().listApiKeys(account.id)).toHaveLength(1);
    expect((await browser.post(`/app/keys/${keyId}/revoke`, {})).html).toContain('revoked');
    expect((await store().getApiKey(keyId))!.revokedAt).not.toBeNull();
  }, 60_000);

  it('once the mailed link is used, gets its first key and the playground answers', async () => {
    const browser = new AppClient(router.url);
    await browser.signUp('confirms@example.com', PASSWORD);
    const token = linkIn((await sink.waitFor('confirms@example.com', /^Confirm your email address$/)).text)!;
    await browser.get(`/app/link?token=${token}`);
    const confirmed = await browser.follow(await browser.post('/app/link', { token }));
    expect(confirmed.html).toContain('Generate my first key');
    const answered = await browser.post('/app/playground', { profile: 'router/frontier', message: MESSAGE });
    expect(answered.status).toBe(200);
    expect(answered.html).toMatch(/Hello from [a-z]+-fake/);
  }, 60_000);
});
