/**
 * In Chromium at 127.0.0.1: a form with a problem answers at the field (focus on the first invalid
 * field, its error read with it, what was typed kept); a form posted on an ended session comes back
 * filled after signing in again; the browser's own time zone offered and then used on every page with
 * times; one key's usage from the keys page. Each page passes axe at 1280 and 375 px, light and dark.
 * With ROUTER_UPDATE_SCREENSHOTS=1 the shots also replace docs/screenshots/.
 */
import { copyFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pointProvidersAt, sdkClient, startFakes, type Fakes } from '../e2e/router-harness.js';
import { startAppRouter, type AppRouter } from '../e2e/app-harness.js';
import { expectAccessible, expectNoHorizontalScroll, HAVE_BROWSER, launchBrowser, screenshot, SCREENSHOT_DIR } from './browser-harness.js';

const PASSWORD = 'correct horse battery staple';
const EMAIL = 'forms@example.com';
const DOCS_SCREENSHOTS = new URL('../../docs/screenshots/', import.meta.url).pathname;
const LOOKS = [
  { suffix: 'light', width: 1280, colorScheme: 'light' },
  { suffix: 'dark', width: 1280, colorScheme: 'dark' },
  { suffix: '375px', width: 375, colorScheme: 'light' },
  { suffix: '375px-dark', width: 375, colorScheme: 'dark' },
] as const;

describe.skipIf(!HAVE_BROWSER)('forms, kept input, time zone and per-key usage in Chromium', { timeout: 300_000 }, () => {
  let fakes: Fakes;
  let router: AppRouter;
  let browser: Browser;

  beforeAll(async () => {
    fakes = await startFakes();
    router = await startAppRouter({ patch: { providers: pointProvidersAt(fakes.urls) } });
    browser = await launchBrowser();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await router?.close();
    await fakes?.close();
  });

  async function look(page: Page, name: string, suffix: string, width: number): Promise<void> {
    const file = `${name}-${suffix}`;
    await screenshot(page, file);
    await expectAccessible(page, file);
    if (width < 400) await expectNoHorizontalScroll(page, file);
    if (suffix !== '375px-dark' && process.env.ROUTER_UPDATE_SCREENSHOTS === '1') {
      mkdirSync(DOCS_SCREENSHOTS, { recursive: true });
      copyFileSync(join(SCREENSHOT_DIR, `${file}.png`), join(DOCS_SCREENSHOTS, `${file}.png`));
    }
  }

  async function signIn(page: Page): Promise<void> {
    await page.getByLabel('Email').fill(EMAIL);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
  }

  it('answers at the field, keeps input across an ended session, offers the browser zone, and shows one key’s usage', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, timezoneId: 'Asia/Kathmandu' });
    const page = await context.newPage();
    // Sign-up with a weak password: the error at the password field, focus there, the email kept.
    await page.goto(`${router.url}/app/signup`);
    await page.getByLabel('Email').fill(EMAIL);
    await page.getByLabel(/^Password/).fill('shortpw1');
    // The browser's own minlength check would stop the form first; the server's answer is what is tested.
    await page.locator('#password').evaluate((input) => input.removeAttribute('minlength'));
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.locator('#password-error').waitFor();
    expect(await page.evaluate<string | undefined>('document.activeElement?.id')).toBe('password');
    expect(await page.locator('#password').getAttribute('aria-describedby')).toBe('password-error');
    expect(await page.getByLabel('Email').inputValue()).toBe(EMAIL);
    expect(await page.locator('#password').inputValue()).toBe('');
    await page.getByLabel(/^Password/).fill(PASSWORD);
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.getByText('Next step: sign in.').waitFor();
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL('**/app/onboarding');
    await page.getByRole('button', { name: 'Generate my first key' }).click();
    const key = (await page.locator('#new-key').textContent())!.trim();
    await page.goto(`${router.url}/app/provider-keys`);
    await page.getByLabel('Add the OpenAI key').fill('sk-proj-forms-4242');
    await page.getByRole('button', { name: 'Add' }).first().click();
    await page.getByText('…4242').first().waitFor();
    for (let i = 0; i < 2; i++) await sdkClient(router, key).chat.completions.create({ model: 'router/frontier', messages: [{ role: 'user', content: 'hi' }] });

    // A key with a cap that is not a number: the error at the cap, focus on it, name and expiry kept.
    await page.goto(`${router.url}/app/keys`);
    await page.locator('#key-name').fill('ci runner');
    await page.locator('#key-expiry').selectOption('30');
    await page.locator('#key-cap').fill('lots');
    await page.locator('#key-cap').evaluate((input) => input.removeAttribute('pattern'));
    await page.getByRole('button', { name: 'Create key' }).click();
    await page.locator('#key-cap-error').waitFor();
    expect(await page.evaluate<string | undefined>('document.activeElement?.id')).toBe('key-cap');
    expect(await page.locator('#key-cap').getAttribute('aria-invalid')).toBe('true');
    expect(await page.locator('#key-name').inputValue()).toBe('ci runner');
    expect(await page.locator('#key-expiry').inputValue()).toBe('30');
    const errorUrl = page.url();

    // The session ends (another tab signed out); the form posted then comes back filled after sign-in.
    await page.locator('#key-cap').fill('50');
    await context.clearCookies({ name: 'router_session' });
    await page.getByRole('button', { name: 'Create key' }).click();
    await page.getByText('Your session ended').waitFor();
    await signIn(page);
    await page.waitForURL('**/app/keys');
    await page.getByText('What you typed is back in the form').waitFor();
    expect(await page.locator('#key-name').inputValue()).toBe('ci runner');
    expect(await page.locator('#key-cap').inputValue()).toBe('50');
    expect(await page.locator('#key-expiry').inputValue()).toBe('30');
    expect(errorUrl).toContain('/app/keys');

    // The browser's zone is offered; chosen once, the keys and security pages show their times in it.
    expect(await page.getByText(/\d{4}-\d\d-\d\d \d\d:\d\d UTC/).count()).toBeGreaterThan(0);
    // Chromium names the zone by ICU's older spelling, Asia/Katmandu: both are the same zone.
    await page.getByRole('button', { name: /^Use my time zone \(Asia\/Kath?mandu\)$/ }).click();
    await page.waitForURL(/tz=Asia%2FKath?mandu/);
    expect(await page.getByText(/\d\d:\d\d Asia\/Kath?mandu/).count()).toBeGreaterThan(0);
    await page.goto(`${router.url}/app/security`);
    expect(await page.getByRole('columnheader', { name: /^When \(Asia\/Kath?mandu\)$/ }).count()).toBe(1);
    expect(await page.getByRole('button', { name: /Use my time zone/ }).count()).toBe(0);

    // One key's usage from its link on the keys page.
    await page.goto(`${router.url}/app/keys`);
    await page.getByRole('link', { name: 'Usage of this key' }).first().click();
    await page.waitForURL(/\/app\/keys\/[^/]+\/usage/);
    await page.getByRole('heading', { name: /Usage of first key/ }).waitFor();
    expect(await page.locator('dl.facts dd').first().textContent()).toBe('2');
    const keyUsagePath = new URL(page.url()).pathname;
    await context.close();

    // Each of these pages in four looks: axe, 375 px fit, screenshots.
    for (const { suffix, width, colorScheme } of LOOKS) {
      const view = await (await browser.newContext({ viewport: { width, height: 900 }, colorScheme, timezoneId: 'Asia/Kathmandu' })).newPage();
      await view.goto(`${router.url}/app/signin`);
      await signIn(view);
      await view.waitForURL('**/app/keys');
      await view.locator('#key-cap').fill('0');
      await view.locator('#key-cap').evaluate((input) => input.removeAttribute('pattern'));
      await view.getByRole('button', { name: 'Create key' }).click();
      await view.locator('#key-cap-error').waitFor();
      await look(view, 'keys-field-error', suffix, width);
      await view.goto(`${router.url}${keyUsagePath}?tz=Asia/Kathmandu`);
      await look(view, 'key-usage', suffix, width);
      await view.goto(`${router.url}/app/keys`);
      await look(view, 'keys', suffix, width);
      await view.goto(`${router.url}/app/security`);
      await look(view, 'security', suffix, width);
      await view.goto(`${router.url}/app/onboarding`);
      await look(view, 'onboarding', suffix, width);
      await view.context().close();
    }
  });
});
