/**
 * The account app in a real browser (Chromium via playwright-core): the main journey from sign-up to
 * a working key used by the official openai SDK, rotation with grace, provider keys and sessions; a
 * cross-origin form post; a second account; keyboard-only sign-in; axe-core and a screenshot on every
 * page, also at 375 px wide.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { manualClock, pointProvidersAt, sdkClient, startFakes, type Fakes } from '../e2e/router-harness.js';
import { issueLink } from '../../src/accounts/link-tokens.js';
import { startAppRouter, type AppRouter } from '../e2e/app-harness.js';
import { checkPage, expectAccessible, expectNoHorizontalScroll, HAVE_BROWSER, launchBrowser, screenshot } from './browser-harness.js';

const PASSWORD = 'correct horse battery staple';

describe.skipIf(!HAVE_BROWSER)('account app in a real browser', { timeout: 120_000 }, () => {
  let fakes: Fakes;
  let router: AppRouter;
  let browser: Browser;
  const clock = manualClock('2026-11-21T10:00:00.000Z');

  beforeAll(async () => {
    fakes = await startFakes();
    // Sessions outlast the hour of grace the journey waits out.
    router = await startAppRouter({ clock, app: { sessionIdleMinutes: 240 }, patch: { providers: pointProvidersAt(fakes.urls) } });
    browser = await launchBrowser();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await router?.close();
    await fakes?.close();
  });

  async function newPage(width = 1280): Promise<Page> {
    const context = await browser.newContext({ viewport: { width, height: 900 } });
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: router.url });
    return context.newPage();
  }

  async function signUp(page: Page, email: string): Promise<void> {
    await page.goto(`${router.url}/app/signup`);
    await page.getByLabel('Email').fill(email);
    await page.getByLabel(/^Password/).fill(PASSWORD);
    await page.getByRole('button', { name: 'Create account' }).click();
    // Every sign-up is answered with the sign-in form (it never says whether the email had an account).
    await page.getByText('Next step: sign in.').waitFor({ timeout: 8000 });
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL('**/app/onboarding', { timeout: 8000 });
  }

  /** Sign in on another device (a new browser context): a second session of the account. */
  async function signIn(page: Page, email: string): Promise<Page> {
    await page.goto(`${router.url}/app/signin`);
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL('**/app/keys');
    return page;
  }

  it('sign up → first key copied → SDK calls → provider key → usage → rotate with grace → old key revoked → sign out other sessions', async () => {
    const page = await newPage();
    await page.goto(router.url);
    await checkPage(page, 'landing');
    await signUp(page, 'journey@example.com');
    await checkPage(page, 'onboarding');
    await page.getByRole('button', { name: 'Generate my first key' }).click();
    const key = (await page.locator('#new-key').textContent())!.trim();
    expect(key).toMatch(/^sk_router_[0-9A-Za-z]{38}$/);
    await page.getByRole('button', { name: 'Copy key' }).click();
    await expect.poll(() => page.getByRole('button', { name: 'Copied' }).count()).toBe(1);
    expect(await page.evaluate<string>('navigator.clipboard.readText()')).toBe(key);
    await checkPage(page, 'onboarding-key-shown');

    const client = sdkClient(router, key);
    expect((await client.models.list()).data.map((model) => model.id).filter((id) => id.startsWith('router/'))).toEqual(['router/frontier']);
    const refused = await client.chat.completions.create({ model: 'router/frontier', messages: [{ role: 'user', content: 'hi' }] }).catch((error: unknown) => error);
    expect(refused).toMatchObject({ status: 403, code: 'no_provider_access' });

    await page.getByRole('link', { name: 'Provider keys' }).first().click();
    await page.getByLabel('Add the OpenAI key').fill('sk-proj-browser-test-4242');
    await page.getByRole('button', { name: 'Add' }).first().click();
    await expect.poll(() => page.getByText('…4242').count()).toBeGreaterThan(0);
    await page.locator('#provider-openai').getByRole('button', { name: 'Test' }).click();
    await expect.poll(() => page.getByText('OpenAI accepted the key').count()).toBe(1);
    // Post-redirect-get: the result is on the page the POST led to, and shown once.
    expect(new URL(page.url()).pathname).toBe('/app/provider-keys');
    await checkPage(page, 'provider-keys');
    await page.reload();
    expect(await page.getByText('OpenAI accepted the key').count()).toBe(0);
    // Routing reads an account's provider keys through a cache of keyCacheTtlMs (5 s): "within seconds".
    clock.advance(6000);

    const { data: reply, response } = await client.chat.completions.create({ model: 'router/frontier', messages: [{ role: 'user', content: 'hi' }] }).withResponse();
    expect(reply.choices[0]!.message.content).toContain('Hello from openai-fake');
    const requestId = response.headers.get('x-request-id')!;
    // The usage page shows that request: counted against the month, charted, and listed by its id
    // once the ledger has written it (within its flush interval).
    await page.getByRole('link', { name: 'Usage' }).click();
    expect(await page.locator('.big').textContent()).toContain(`${response.headers.get('x-quota-used')} of ${response.headers.get('x-quota-limit')} requests`);
    await expect.poll(async () => (await page.reload(), page.getByRole('link', { name: requestId }).count()), { timeout: 10_000 }).toBe(1);
    expect(await page.getByRole('img', { name: /^Requests per day from .* \(UTC\): \d+ in all, router\/frontier \d+\.$/ }).count()).toBe(1);
    await checkPage(page, 'usage');
    // Its redacted support bundle, from the request's link on the usage page.
    await page.getByRole('link', { name: requestId }).click();
    expect(await page.getByLabel(/^Request id/).inputValue()).toBe(requestId);
    await checkPage(page, 'support-bundle-form');
    const download = page.waitForEvent('download');
    await page.getByRole('button', { name: 'Download bundle' }).click();
    expect((await download).suggestedFilename()).toBe(`support-bundle-${requestId}.json`);

    await page.getByRole('link', { name: 'API keys' }).click();
    await checkPage(page, 'keys');
    await page.getByLabel('Old key keeps working for').selectOption('3600');
    await page.getByRole('button', { name: 'Rotate' }).click();
    const replacement = (await page.locator('#new-key').textContent())!.trim();
    expect(replacement).not.toBe(key);
    await checkPage(page, 'keys-rotated');
    for (const candidate of [key, replacement]) {
      const answer = await sdkClient(router, candidate).chat.completions.create({ model: 'router/frontier', messages: [{ role: 'user', content: 'hi' }] });
      expect(answer.model).toBe('router/frontier');
    }
    clock.advance(3600_000 + 1000);
    const late = await sdkClient(router, key).models.list().catch((error: unknown) => error);
    expect(late).toMatchObject({ status: 401, code: 'revoked_api_key' });
    expect((await sdkClient(router, replacement).models.list()).data.map((model) => model.id).filter((id) => id.startsWith('router/'))).toEqual(['router/frontier']);

    const phone = await signIn(await newPage(375), 'journey@example.com');
    await screenshot(phone, 'keys-375px');
    await expectNoHorizontalScroll(phone, 'keys at 375px');
    await expectAccessible(phone, 'keys at 375px');

    await page.getByRole('link', { name: 'Security' }).click();
    await checkPage(page, 'security');
    await page.getByRole('button', { name: 'Sign out other sessions' }).click();
    await expect.poll(() => page.getByText('1 other session signed out').count()).toBe(1);
    await phone.reload();
    expect(new URL(phone.url()).pathname).toBe('/app/signin');
    await page.getByRole('link', { name: 'Support' }).first().click();
    await checkPage(page, 'support');
    await page.getByRole('link', { name: 'Billing' }).click();
    await checkPage(page, 'billing');
  });

  it('a form posted from another origin is refused and changes nothing', async () => {
    const page = await newPage();
    await signUp(page, 'target@example.com');
    const evil: Server = createServer((_req, res) => {
      res.setHeader('content-type', 'text/html');
      res.end(`<form id="f" method="post" action="${router.url}/app/keys"><input name="name" value="evil"></form><script>document.getElementById('f').submit()</script>`);
    });
    await new Promise<void>((resolve) => evil.listen(0, 'localhost', resolve));
    try {
      const response = page.waitForResponse((candidate) => candidate.url() === `${router.url}/app/keys` && candidate.request().method() === 'POST');
      await page.goto(`http://localhost:${(evil.address() as AddressInfo).port}/`);
      expect((await response).status()).toBe(403);
      const account = (await router.server.runtime.store.findLoginByEmail('target@example.com'))!.account;
      expect(await router.server.runtime.store.listApiKeys(account.id)).toEqual([]);
    } finally {
      await new Promise((resolve) => evil.close(resolve));
    }
  });

  it('a second account sees nothing of the first', async () => {
    const first = await newPage();
    await signUp(first, 'first-owner@example.com');
    await first.getByRole('button', { name: 'Generate my first key' }).click();
    const firstKey = (await first.locator('#new-key').textContent())!.trim();
    const firstKeyId = (await router.server.runtime.store.listApiKeys((await router.server.runtime.store.findLoginByEmail('first-owner@example.com'))!.account.id))[0]!.id;
    const second = await newPage();
    await signUp(second, 'second-owner@example.com');
    await second.goto(`${router.url}/app/keys`);
    expect(await second.content()).not.toContain(firstKey.slice(-4));
    expect(await second.content()).not.toContain(firstKeyId);
    const guessed = await second.goto(`${router.url}/app/keys/${firstKeyId}/revoke`);
    expect(guessed!.status()).toBe(404);
    await checkPage(second, 'not-found');
    // The owner's own confirmation page, for comparison (and for its accessibility check).
    await first.goto(`${router.url}/app/keys/${firstKeyId}/revoke`);
    await checkPage(first, 'revoke-confirm');
    await first.getByRole('button', { name: 'Yes, revoke it' }).click();
    await expect.poll(() => first.getByText('revoked.').count()).toBeGreaterThan(0);
  });

  it('signing up with an email that has an account shows the same next step and signs no one in', async () => {
    const owner = await newPage();
    await signUp(owner, 'taken@example.com');
    const stranger = await newPage();
    await stranger.goto(`${router.url}/app/signup`);
    await stranger.getByLabel('Email').fill('taken@example.com');
    await stranger.getByLabel(/^Password/).fill('a different passphrase entirely');
    await stranger.getByRole('button', { name: 'Create account' }).click();
    await stranger.getByText('Next step: sign in.').waitFor({ timeout: 8000 });
    await checkPage(stranger, 'signup-next-step');
    expect(await stranger.getByText(/already exists/i).count()).toBe(0);
    await stranger.goto(`${router.url}/app/keys`);
    expect(stranger.url()).toMatch(/\/app\/signin\?next=%2Fapp%2Fkeys$/);
  });

  it('an invitation link opens a form that creates the account', async () => {
    const server = router.server.runtime.config.server;
    const link = await issueLink({ store: router.server.runtime.store, clock, server }, 'invite', 'invited@example.com', 'cli');
    const page = await newPage();
    await page.goto(link.url.replace(server.appUrl, `${router.url}/app`));
    await checkPage(page, 'invitation');
    await page.getByLabel(/^Password/).fill(PASSWORD);
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.waitForURL('**/app/onboarding');
    await page.goto(link.url.replace(server.appUrl, `${router.url}/app`));
    await checkPage(page, 'link-used');
    expect(await page.getByRole('heading', { name: 'This link is not valid' }).count()).toBe(1);
  });

  it('signs in with the keyboard alone', async () => {
    const setup = await newPage();
    await signUp(setup, 'keyboard@example.com');
    const page = await newPage();
    await page.goto(`${router.url}/app/signin`);
    await checkPage(page, 'signin');
    // Tab from the top of the page until the email field has focus, then type and submit with Enter.
    for (let i = 0; i < 12 && (await page.evaluate<string | undefined>('document.activeElement?.id')) !== 'email'; i++) await page.keyboard.press('Tab');
    expect(await page.evaluate<string | undefined>('document.activeElement?.id')).toBe('email');
    await page.keyboard.type('keyboard@example.com');
    await page.keyboard.press('Tab');
    expect(await page.evaluate<string | undefined>('document.activeElement?.id')).toBe('password');
    await page.keyboard.type(PASSWORD);
    await page.keyboard.press('Enter');
    await page.waitForURL('**/app/onboarding');
  });

  it('the usage page charts 30 days by route profile, provider and key, in a chosen zone, at desktop width and at 375 px', async () => {
    const page = await newPage();
    await signUp(page, 'charts@example.com');
    await page.getByRole('button', { name: 'Generate my first key' }).click();
    const laptop = (await page.locator('#new-key').textContent())!.trim();
    const { store, keys } = router.server.runtime;
    const accountId = (await store.findLoginByEmail('charts@example.com'))!.account.id;
    const ci = (await keys.issue(accountId, 'ci', 'test')).key;
    await page.goto(`${router.url}/app/provider-keys`);
    await page.getByLabel('Add the OpenAI key').fill('sk-proj-charts-test-0001');
    await page.getByRole('button', { name: 'Add' }).first().click();
    await expect.poll(() => page.getByText('…0001').count()).toBeGreaterThan(0);
    await page.getByLabel('Add the Anthropic key').fill('sk-ant-charts-test-0002');
    await page.locator('#provider-anthropic').getByRole('button', { name: 'Add' }).click();
    await expect.poll(() => page.getByText('…0002').count()).toBeGreaterThan(0);
    // A month of traffic up to now (sessions stay fresh): more on weekdays, a second key, OpenAI failing over to Anthropic now and then.
    const now = clock.now();
    const start = now - 29 * 86_400_000 - 3_600_000;
    for (let day = 0; day < 30; day++) {
      clock.set(new Date(start + day * 86_400_000).toISOString());
      const count = 1 + ((day * 7) % 5) + (day % 7 < 5 ? 2 : 0);
      for (let i = 0; i < count; i++) {
        if ((day + i) % 4 === 0) fakes.openai.failNext({ kind: 'status', status: 503 });
        const reply = await sdkClient(router, i % 3 === 2 ? ci : laptop).chat.completions.create({ model: 'router/frontier', messages: [{ role: 'user', content: 'hi' }] });
        expect(reply.model).toBe('router/frontier');
        clock.advance(60_000);
      }
    }
    clock.set(new Date(now + 60_000).toISOString());
    await router.server.runtime.usage.ledger!.flush();
    for (const [by, label] of [['route', 'route profile'], ['provider', 'provider'], ['key', 'API key']] as const) {
      await page.goto(`${router.url}/app/usage?by=${by}`);
      expect(await page.getByRole('table', { name: `By ${label}` }).count()).toBe(1);
      await checkPage(page, `usage-by-${by}`);
    }
    await page.getByLabel('Time zone').fill('Europe/Berlin');
    await page.getByLabel('Split by').selectOption('provider');
    await page.getByRole('button', { name: 'Show' }).click();
    // The member and workspace filters go along empty (everyone, every workspace).
    await page.waitForURL(/\/app\/usage\?tz=Europe%2FBerlin&by=provider(&member=&workspace=)?$/);
    expect(await page.getByText('calendar days in Europe/Berlin').count()).toBeGreaterThan(0);
    await screenshot(page, 'usage');
    const phone = await signIn(await newPage(375), 'charts@example.com');
    await phone.goto(`${router.url}/app/usage?tz=Europe%2FBerlin&by=provider`);
    await screenshot(phone, 'usage-375px');
    await expectNoHorizontalScroll(phone, 'usage at 375px');
    await expectAccessible(phone, 'usage at 375px');
    await phone.goto(`${router.url}/app/usage?tz=Mars%2FOlympus`);
    expect(await phone.getByRole('alert').textContent()).toContain('unknown time zone "Mars/Olympus"');
    await expectAccessible(phone, 'usage with a bad zone');
    await phone.goto(`${router.url}/pricing`);
    await expectNoHorizontalScroll(phone, 'pricing at 375px');
  });

  it('public pages and docs are accessible and fit 375 px', async () => {
    const page = await newPage(375);
    for (const [name, path] of [
      ['pricing', '/pricing'],
      ['catalog', '/model-catalog'],
      ['family', '/model-catalog/frontier'],
      ['status', '/status'],
      ['docs', '/docs'],
      ['docs-quick-start', '/docs/quick-start'],
      ['docs-errors', '/docs/errors'],
      ['docs-limits', '/docs/limits'],
      ['docs-route-profiles', '/docs/route-profiles'],
      ['docs-app', '/docs/app'],
      ['signup', '/app/signup'],
      ['forgot', '/app/forgot'],
      ['deactivated', '/app/deactivated'],
    ] as const) {
      await page.goto(router.url + path);
      await screenshot(page, `${name}-375px`);
      await expectAccessible(page, name);
      await expectNoHorizontalScroll(page, name);
    }
    const wide = await newPage();
    for (const [name, path] of [['pricing', '/pricing'], ['catalog', '/model-catalog'], ['status', '/status'], ['docs-errors', '/docs/errors']] as const) {
      await wide.goto(router.url + path);
      await screenshot(wide, name);
    }
  });
});
