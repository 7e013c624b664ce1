/**
 * The first run over real HTTP: onboarding says whether the account can call anything yet, the provider
 * key is added and tested inline, and the playground (and onboarding's "Send a test request") sends a
 * request as the account through the whole /v1 pipeline, answered, with headers and receipt, and counted
 * like any request. Also with managed access on, where no provider key is needed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pointProvidersAt, startFakes, type Fakes } from '../router-harness.js';
import { AppClient, listedKeyIds, startAppRouter, type AppRouter } from '../app-harness.js';

const PASSWORD = 'correct horse battery staple';
const MESSAGE = 'Say hello and tell me in one sentence what you can do.';

describe('account app: first run and playground', () => {
  let fakes: Fakes;
  let router: AppRouter;
  let managed: AppRouter;

  beforeAll(async () => {
    fakes = await startFakes();
    // Routing reads provider keys through a cache of keyCacheTtlMs: short, so a key saved after a refusal serves at once.
    router = await startAppRouter({ patch: { server: (doc: any) => void (doc.keyCacheTtlMs = 50), providers: pointProvidersAt(fakes.urls) } });
    managed = await startAppRouter({
      app: { signupPlan: 'pro' },
      env: { OPENAI_API_KEY: 'sk-operator-managed-0001', ANTHROPIC_API_KEY: 'sk-ant-operator-0002', GEMINI_API_KEY: 'gemini-operator-0003' },
      patch: {
        plans: (doc: any) => void Object.assign(doc.plans.find((plan: { id: string }) => plan.id === 'pro'), { managedSpendCapUsd: 50 }),
        providers: pointProvidersAt(fakes.urls, (doc) => void (doc.managedAccess = { enabled: true })),
      },
    });
  }, 60_000);
  afterAll(async () => {
    await router?.close();
    await managed?.close();
    await fakes?.close();
  });

  it('without managed access: step 2 is the provider key, added and tested inline; then a test request answers and is counted', async () => {
    const browser = new AppClient(router.url);
    await browser.signUp('first-run@example.com', PASSWORD);
    await browser.follow(await browser.post('/app/onboarding/key', {}));
    const before = await browser.get('/app/onboarding');
    expect(before.html).toContain('Step 2: add your provider key');
    expect(before.html).not.toContain('Send a test request');
    // The playground says so too, and a request sent anyway is refused by the pipeline, not by the page.
    const playground = await browser.get('/app/playground');
    expect(playground.html).toContain('cannot call a model yet');
    const refused = await browser.post('/app/playground', { profile: 'router/frontier', message: MESSAGE });
    expect(refused.html).toContain('no_provider_access');

    const saved = await browser.post('/app/provider-keys', { provider: 'openai', key: 'sk-proj-first-run-4242', next: 'onboarding' });
    expect(saved).toMatchObject({ status: 303, location: '/app/onboarding#step-provider' });
    const withKey = await browser.follow(saved);
    expect(withKey.html).toContain('OpenAI key ending in 4242 saved');
    expect(withKey.html).toContain('Test the OpenAI key');
    const tested = await browser.follow(await browser.post('/app/provider-keys/openai/test', { next: 'onboarding' }));
    expect(tested.html).toContain('OpenAI accepted the key');
    expect(tested.html).toContain('Send a test request');

    await new Promise((resolve) => setTimeout(resolve, 100));
    const answered = await browser.post('/app/playground', { profile: 'router/frontier', message: MESSAGE });
    expect(answered.status).toBe(200);
    expect(answered.html).toContain('Hello from openai-fake');
    const requestId = /data-field="x-request-id">([^<]+)</.exec(answered.html)![1]!;
    expect(answered.html).toContain('<code>x-router-upstream</code></th><td><code>openai</code>');
    // The refused request was refunded (no upstream served it), so this one is the first counted.
    expect(answered.html).toMatch(/data-field="quota">1 of 1000 requests/);
    // Counted like any request: in the ledger under the account's playground key.
    await router.server.runtime.usage.ledger!.flush();
    const usage = await browser.get('/app/usage');
    expect(usage.html).toContain(requestId);
    // The playground's key is the app's, not the person's: its usage is shown under its name, the keys page lists only the first key.
    expect(usage.html).toContain('Playground (browser)');
    const keys = await browser.get('/app/keys');
    expect(listedKeyIds(keys.html)).toHaveLength(1);
    expect(keys.html).not.toContain('Playground (browser)');
  });

  it('streams the answer as NDJSON events to the page script: headers, deltas, the receipt', async () => {
    const browser = new AppClient(router.url);
    await browser.signUp('stream@example.com', PASSWORD);
    await browser.get('/app/provider-keys');
    await browser.post('/app/provider-keys', { provider: 'openai', key: 'sk-proj-stream-test-1111' });
    await browser.get('/app/playground');
    const streamed = await browser.post('/app/playground', { profile: 'router/frontier', message: MESSAGE }, { accept: 'application/x-ndjson' });
    expect(streamed.headers.get('content-type')).toContain('application/x-ndjson');
    const events = streamed.html.trim().split('\n').map((line) => JSON.parse(line));
    expect(events[0]).toMatchObject({ type: 'headers', status: 200, headers: { 'x-router-upstream': 'openai', 'x-router-retry-count': '0' } });
    expect(events.filter((event) => event.type === 'delta').map((event) => event.text).join('')).toContain('Hello from openai-fake');
    expect(events.at(-1)).toMatchObject({ type: 'done', model: 'router/frontier' });
    expect(events.at(-1).usage.total).toBeGreaterThan(0);
  });

  it('refuses a profile outside the plan or an empty message at the field, keeping what was typed', async () => {
    const browser = new AppClient(router.url);
    await browser.signUp('fields@example.com', PASSWORD);
    await browser.get('/app/playground');
    const wrong = await browser.post('/app/playground', { profile: 'router/fusion', message: 'keep this text' });
    expect(wrong.status).toBe(400);
    expect(wrong.html).toContain('aria-describedby="pg-profile-error"');
    expect(wrong.html).toContain('>keep this text</textarea>');
    const empty = await browser.post('/app/playground', { profile: 'router/frontier', message: '  ' });
    expect(empty.html).toContain('id="pg-message-error"');
  });

  it('with managed access on for the plan: no provider key needed, the first request answers', async () => {
    const browser = new AppClient(managed.url);
    await browser.signUp('managed@example.com', PASSWORD);
    const onboarding = await browser.follow(await browser.post('/app/onboarding/key', {}));
    expect(onboarding.html).toContain('Your plan includes provider access');
    expect(onboarding.html).toContain('Send a test request');
    const answered = await browser.post('/app/playground', { profile: 'router/frontier', message: MESSAGE });
    expect(answered.html).toMatch(/Hello from [a-z]+-fake/);
  });
});
