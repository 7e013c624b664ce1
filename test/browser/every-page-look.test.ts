/**
 * Every page in four looks: 1280 px and 375 px wide, light and dark (prefers-color-scheme emulated).
 * Each is checked with axe-core (no serious or critical violation), must fit 375 px without scrolling
 * sideways, and is screenshot into test-results/screenshots/. With ROUTER_UPDATE_SCREENSHOTS=1 the
 * light, dark and 375 px shots also replace docs/screenshots/ (the README's table shows them).
 */
import { copyFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { manualClock, pointProvidersAt, sdkClient, startFakes, type Fakes } from '../e2e/router-harness.js';
import { startAppRouter, type AppRouter } from '../e2e/app-harness.js';
import { expectAccessible, expectNoHorizontalScroll, HAVE_BROWSER, launchBrowser, screenshot, SCREENSHOT_DIR } from './browser-harness.js';

const PASSWORD = 'correct horse battery staple';
const DOCS_SCREENSHOTS = new URL('../../docs/screenshots/', import.meta.url).pathname;
const LOOKS = [
  { suffix: 'light', width: 1280, colorScheme: 'light', docs: true },
  { suffix: 'dark', width: 1280, colorScheme: 'dark', docs: true },
  { suffix: '375px', width: 375, colorScheme: 'light', docs: true },
  { suffix: '375px-dark', width: 375, colorScheme: 'dark', docs: false },
] as const;

// Each look is a test: 26 pages, each screenshot and scanned by axe (about 100 s on a loaded CI machine).
describe.skipIf(!HAVE_BROWSER)('every page, light and dark, desktop and phone', { timeout: 300_000 }, () => {
  let fakes: Fakes;
  let router: AppRouter;
  let browser: Browser;
  const clock = manualClock('2026-11-21T10:00:00.000Z');

  beforeAll(async () => {
    fakes = await startFakes();
    router = await startAppRouter({ clock, app: { sessionIdleMinutes: 600 }, patch: { providers: pointProvidersAt(fakes.urls) } });
    browser = await launchBrowser();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await router?.close();
    await fakes?.close();
  });

  /** A signed-in page per look (each context holds its own session of the same account). */
  async function signedIn(width: number, colorScheme: 'light' | 'dark'): Promise<Page> {
    const page = await (await browser.newContext({ viewport: { width, height: 900 }, colorScheme })).newPage();
    await page.goto(`${router.url}/app/signin`);
    await page.getByLabel('Email').fill('looks@example.com');
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(/\/app\/(keys|onboarding)/);
    return page;
  }

  async function look(page: Page, name: string, suffix: string, width: number, docs: boolean): Promise<void> {
    const file = `${name}-${suffix}`;
    await screenshot(page, file);
    await expectAccessible(page, file);
    if (width < 400) await expectNoHorizontalScroll(page, file);
    if (docs && process.env.ROUTER_UPDATE_SCREENSHOTS === '1') {
      mkdirSync(DOCS_SCREENSHOTS, { recursive: true });
      copyFileSync(join(SCREENSHOT_DIR, `${file}.png`), join(DOCS_SCREENSHOTS, `${file}.png`));
    }
  }

  // The account the tour shows: signed up, first key, an OpenAI key, a few requests. Made once; each look
  // is a test of its own, so a failure names the look and each look has the whole timeout (on a loaded CI
  // machine the four in one test took longer than 420 s).
  beforeAll(async () => {
    const setup = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
    await setup.goto(`${router.url}/app/signup`);
    await setup.getByLabel('Email').fill('looks@example.com');
    await setup.getByLabel(/^Password/).fill(PASSWORD);
    await setup.getByRole('button', { name: 'Create account' }).click();
    await setup.getByText('Next step: sign in.').waitFor({ timeout: 8000 });
    await setup.getByLabel('Password').fill(PASSWORD);
    await setup.getByRole('button', { name: 'Sign in' }).click();
    await setup.waitForURL('**/app/onboarding');
    await setup.getByRole('button', { name: 'Generate my first key' }).click();
    const key = (await setup.locator('#new-key').textContent())!.trim();
    await setup.goto(`${router.url}/app/provider-keys`);
    await setup.getByLabel('Add the OpenAI key').fill('sk-proj-looks-4242');
    await setup.getByRole('button', { name: 'Add' }).first().click();
    await setup.getByText('…4242').first().waitFor();
    clock.advance(6000);
    for (let i = 0; i < 3; i++) await sdkClient(router, key).chat.completions.create({ model: 'router/frontier', messages: [{ role: 'user', content: 'hi' }] });
    // The usage page lists what the ledger has written: flushed now rather than after its interval.
    await router.server.runtime.usage.ledger!.flush();
    await setup.context().close();
  }, 120_000);

  const signedInPages = [
    ['onboarding', '/app/onboarding'],
    ['playground', '/app/playground'],
    ['keys', '/app/keys'],
    ['provider-keys', '/app/provider-keys'],
    ['usage', '/app/usage'],
    ['members', '/app/members'],
    ['workspaces', '/app/workspaces'],
    ['guardrails', '/app/guardrails'],
    ['organization', '/app/organization'],
    ['billing', '/app/billing'],
    ['security', '/app/security'],
    ['support', '/app/support'],
  ] as const;
  const publicPages = [
    ['landing', '/'],
    ['pricing', '/pricing'],
    ['catalog', '/model-catalog'],
    ['family', '/model-catalog/frontier'],
    ['status', '/status'],
    ['docs', '/docs'],
    ['docs-quick-start', '/docs/quick-start'],
    ['docs-errors', '/docs/errors'],
    ['docs-app', '/docs/app'],
    ['not-found', '/app/no-such-page'],
  ] as const;
  const signedOutPages = [
    ['signin', '/app/signin'],
    ['signup', '/app/signup'],
    ['forgot', '/app/forgot'],
    ['deactivated', '/app/deactivated'],
  ] as const;

  it.each(LOOKS)('an account with a key, a provider key and traffic: every page passes axe in the $suffix look', async ({ suffix, width, colorScheme, docs }) => {
    const page = await signedIn(width, colorScheme);
    for (const [name, path] of signedInPages) {
      await page.goto(router.url + path);
      await look(page, name, suffix, width, docs);
    }
    // Public pages read by a signed-in person show the account menu, not "Sign in".
    for (const [name, path] of publicPages) {
      await page.goto(router.url + path);
      expect(await page.locator('.account-menu summary').count(), `${name} shows the account menu`).toBe(1);
      expect(await page.locator('header.top').getByRole('link', { name: 'Sign in' }).count(), `${name} offers no sign-in`).toBe(0);
      await look(page, name, suffix, width, docs);
    }
    const anonymous = await (await browser.newContext({ viewport: { width, height: 900 }, colorScheme })).newPage();
    for (const [name, path] of signedOutPages) {
      await anonymous.goto(router.url + path);
      await look(anonymous, name, suffix, width, docs);
    }
    await page.context().close();
    await anonymous.context().close();
  });
});
