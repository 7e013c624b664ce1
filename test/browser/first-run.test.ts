/**
 * The first run in Chromium at http://127.0.0.1: sign up and in, generate the key (focus lands on its
 * Copy button; a reload shows no second key), add and test a provider key inline on onboarding, then
 * "Send a test request" streams the first answer into the page with its receipt; the playground at
 * 375 px; axe on each page.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pointProvidersAt, startFakes, type Fakes } from '../e2e/router-harness.js';
import { startAppRouter, type AppRouter } from '../e2e/app-harness.js';
import { checkPage, expectAccessible, expectNoHorizontalScroll, HAVE_BROWSER, launchBrowser, screenshot } from './browser-harness.js';

const PASSWORD = 'correct horse battery staple';

describe.skipIf(!HAVE_BROWSER)('first run in a real browser', { timeout: 120_000 }, () => {
  let fakes: Fakes;
  let router: AppRouter;
  let browser: Browser;

  beforeAll(async () => {
    fakes = await startFakes();
    router = await startAppRouter({ patch: { server: (doc: any) => void (doc.keyCacheTtlMs = 50), providers: pointProvidersAt(fakes.urls) } });
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

  it('signs up at 127.0.0.1, adds a provider key inline and gets a first streamed answer', async () => {
    expect(router.url).toMatch(/^http:\/\/127\.0\.0\.1:/);
    const page = await newPage();
    await page.goto(`${router.url}/app/signup`);
    await page.getByLabel('Email').fill('first-run@example.com');
    await page.getByLabel(/^Password/).fill(PASSWORD);
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.getByText('Next step: sign in.').waitFor({ timeout: 8000 });
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL('**/app/onboarding', { timeout: 8000 });
    await page.getByRole('button', { name: 'Generate my first key' }).click();
    await page.waitForURL('**/app/onboarding');
    await expect.poll(() => page.evaluate<string | undefined>('document.activeElement?.textContent')).toBe('Copy key');
    await checkPage(page, 'onboarding-key-shown');
    await page.reload();
    expect(await page.locator('#new-key').count()).toBe(0);

    await page.getByLabel('Provider', { exact: true }).selectOption('openai');
    await page.getByLabel('Provider key', { exact: true }).fill('sk-proj-browser-first-run-4242');
    await page.getByRole('button', { name: 'Save key' }).click();
    await page.getByRole('button', { name: 'Test the OpenAI key' }).click();
    await expect.poll(() => page.getByText('OpenAI accepted the key').count()).toBe(1);
    await page.waitForTimeout(100);
    await page.getByRole('button', { name: 'Send a test request' }).click();
    await page.locator('[data-playground-result][data-complete="true"]').waitFor({ timeout: 15_000 });
    expect(await page.locator('[data-answer]').textContent()).toContain('Hello from openai-fake');
    expect(await page.locator('[data-field="x-router-upstream"]').textContent()).toBe('openai');
    await checkPage(page, 'onboarding-first-answer');

    const phone = await newPage(375);
    await phone.goto(`${router.url}/app/playground`);
    expect(new URL(phone.url()).pathname).toBe('/app/signin');
    await phone.getByLabel('Email').fill('first-run@example.com');
    await phone.getByLabel('Password').fill(PASSWORD);
    await phone.getByRole('button', { name: 'Sign in' }).click();
    await phone.waitForURL('**/app/playground');
    await phone.getByRole('button', { name: 'Send' }).click();
    await phone.locator('[data-playground-result][data-complete="true"]').waitFor({ timeout: 15_000 });
    expect(await phone.locator('[data-answer]').textContent()).toContain('Hello from openai-fake');
    await screenshot(phone, 'playground-375px');
    await expectNoHorizontalScroll(phone, 'playground at 375px');
    await expectAccessible(phone, 'playground at 375px');

    await phone.goto(`${router.url}/no/such/page`);
    expect(await phone.getByRole('heading', { name: 'Page not found' }).count()).toBe(1);
    await checkPage(phone, 'not-found-375px');
  });
});
