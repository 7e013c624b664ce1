/**
 * One key's usage, linked from the keys page: its days, route profiles, providers, tokens and cost,
 * only that key's; another account's key and a made-up id are the same 404. And the person's time
 * zone: chosen once (?tz= on any page with times), remembered, and used by the keys, security, usage
 * and per-key pages.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppClient, listedKeyIds, shownKey, startAppRouter, type AppRouter } from '../app-harness.js';
import { manualClock, pointProvidersAt, postChat, startFakes, type Fakes } from '../router-harness.js';
import { usageBackends, type UsageBackend } from '../usage-backends.js';

const PASSWORD = 'correct horse battery staple';

describe.each(usageBackends('app_key_usage'))('account app: per-key usage and the time zone on %s', { timeout: 120_000 }, (_name, makeBackend) => {
  const clock = manualClock('2026-11-21T23:30:00.000Z');
  let backend: UsageBackend;
  let fakes: Fakes;
  let router: AppRouter;
  let alice: { browser: AppClient; firstId: string; secondId: string };
  let bobKeyId: string;

  async function newUser(email: string) {
    const browser = new AppClient(router.url);
    await browser.signUp(email, PASSWORD);
    const key = shownKey((await browser.follow(await browser.post('/app/onboarding/key', {}))).html)!;
    await browser.get('/app/provider-keys');
    await browser.post('/app/provider-keys', { provider: 'openai', key: 'sk-proj-key-usage-0001' });
    return { browser, key };
  }

  beforeAll(async () => {
    backend = makeBackend();
    fakes = await startFakes();
    router = await startAppRouter({ clock, env: backend.env, patch: { providers: pointProvidersAt(fakes.urls), server: backend.server } });
    const first = await newUser('alice-keys@example.com');
    await first.browser.get('/app/keys');
    // A second later, so the keys page lists the two in a fixed order (newest first).
    clock.advance(1_000);
    const second = shownKey((await first.browser.follow(await first.browser.post('/app/keys', { name: 'second', expiresInDays: '90' }))).html)!;
    const ids = listedKeyIds((await first.browser.get('/app/keys')).html);
    alice = { browser: first.browser, secondId: ids[0]!, firstId: ids[1]! };
    const bob = await newUser('bob-keys@example.com');
    bobKeyId = listedKeyIds((await bob.browser.get('/app/keys')).html)[0]!;
    for (let i = 0; i < 3; i++) expect((await postChat(router.baseURL, first.key, {})).status).toBe(200);
    expect((await postChat(router.baseURL, second, {})).status).toBe(200);
    expect((await postChat(router.baseURL, bob.key, {})).status).toBe(200);
    await router.server.runtime.usage.ledger!.flush();
  });
  afterAll(async () => {
    await router?.close();
    await fakes?.close();
    await backend?.cleanUp();
  });

  const requestsOf = (html: string) => /<dt>Requests<\/dt><dd>([^<]+)<\/dd>/.exec(html)?.[1];

  it('shows one key its own usage by day, route profile and provider, linked from the keys page', async () => {
    const keys = await alice.browser.get('/app/keys');
    expect(keys.html).toContain(`href="/app/keys/${alice.firstId}/usage"`);
    expect(keys.html).toContain(`href="/app/keys/${alice.secondId}/usage"`);
    const first = await alice.browser.get(`/app/keys/${alice.firstId}/usage`);
    expect(first.status).toBe(200);
    expect(requestsOf(first.html)).toBe('3');
    expect(first.html).toContain('<caption>By route profile</caption>');
    expect(first.html).toMatch(/<th scope="row">router\/frontier<\/th><td>3<\/td>/);
    expect(first.html).toMatch(/<th scope="row">OpenAI<\/th><td>3<\/td>/);
    expect(first.html).toMatch(/<th scope="row">2026-11-21<\/th><td>3<\/td>/);
    expect(requestsOf((await alice.browser.get(`/app/keys/${alice.secondId}/usage`)).html)).toBe('1');
  });

  it('answers another account’s key and a made-up id with the same 404, and a signed-out visitor with sign-in', async () => {
    const other = await alice.browser.get(`/app/keys/${bobKeyId}/usage`);
    const madeUp = await alice.browser.get('/app/keys/key_doesnotexist/usage');
    expect(other.status).toBe(404);
    expect(madeUp.status).toBe(404);
    expect(other.html.replace(bobKeyId, '')).toBe(madeUp.html.replace('key_doesnotexist', ''));
    expect(other.html).not.toContain('bob-keys@example.com');
    const visitor = await new AppClient(router.url).get(`/app/keys/${alice.firstId}/usage`);
    expect(visitor.status).toBe(302);
    expect(visitor.location).toContain('/app/signin?next=');
  });

  it('remembers a chosen time zone and shows the keys, security, usage and per-key pages in it', async () => {
    const browser = alice.browser;
    const keys = await browser.get('/app/keys');
    expect(keys.html).toContain('id="page-tz"');
    expect(keys.html).toMatch(/<time datetime="[^"]+">2026-11-21 23:30 UTC<\/time>/);
    const chosen = await browser.get('/app/keys?tz=Asia/Kathmandu');
    // 23:30 UTC is 05:15 the next day in Kathmandu (UTC+5:45).
    expect(chosen.html).toContain('2026-11-22 05:15 Asia/Kathmandu');
    expect(browser.cookies.get('router_tz')).toBe('Asia%2FKathmandu');
    expect((await browser.get('/app/security')).html).toContain('<th scope="col">When (Asia/Kathmandu)</th>');
    const usagePage = (await browser.get('/app/usage')).html;
    expect(usagePage).toContain('calendar days in <strong>Asia/Kathmandu</strong>');
    // Why a failed request may not be in this month's count (docs/limits.md#monthly-quota).
    expect(usagePage).toContain('A request no provider answered is not counted');
    const perKey = await browser.get(`/app/keys/${alice.firstId}/usage`);
    expect(perKey.html).toMatch(/<th scope="row">2026-11-22<\/th><td>3<\/td>/);
    // A zone that does not exist is not remembered.
    await browser.get('/app/keys?tz=Mars/Olympus');
    expect((await browser.get('/app/keys')).html).toContain('Asia/Kathmandu');
    await browser.get('/app/keys?tz=UTC');
  });

  it('shows alerts, provider keys and their rejection in the chosen zone; the monthly reset stays UTC', async () => {
    const browser = alice.browser;
    await browser.get('/app/provider-keys?tz=Asia/Kathmandu');
    // The provider key was set at 23:30 UTC (the manual clock), 05:15 the next day in Kathmandu.
    const keys = await browser.get('/app/provider-keys');
    expect(keys.html).toMatch(/<span class="badge live">set <time datetime="2026-11-21T23:30:00\.000Z">2026-11-22 05:15 Asia\/Kathmandu<\/time><\/span>/);
    // A Test the provider refuses: the key is failing, and an alert is raised at that time.
    fakes.openai.failNext({ kind: 'status', status: 401 });
    const tested = await browser.follow(await browser.post('/app/provider-keys/openai/test', {}));
    expect(tested.html).toMatch(/<span class="badge rejected">failing since <time datetime="2026-11-21T23:30:01\.000Z">2026-11-22 05:15 Asia\/Kathmandu<\/time> \(HTTP 401\)<\/span>/);
    const security = await browser.get('/app/security');
    expect(security.html).toMatch(/<time datetime="2026-11-21T23:30:01\.000Z">2026-11-22 05:15 Asia\/Kathmandu<\/time><\/span><br>/);
    expect(security.html).not.toContain('2026-11-21 23:30 UTC');
    const home = await browser.get('/app/keys');
    expect(home.html).toContain('Fix provider key');
    expect(home.html).toMatch(/<strong>[^<]+<\/strong> <span class="hint"><time datetime="2026-11-21T23:30:01\.000Z">2026-11-22 05:15 Asia\/Kathmandu<\/time>/);
    // Quota months are UTC calendar months for everyone: the reset says so, whatever the zone.
    expect((await browser.get('/app/usage')).html).toContain('<time datetime="2026-12-01T00:00:00.000Z">2026-12-01 00:00 UTC</time>');
    fakes.reset();
    await browser.post('/app/provider-keys', { provider: 'openai', key: 'sk-proj-key-usage-0001' });
    await browser.get('/app/keys?tz=UTC');
  });
});
