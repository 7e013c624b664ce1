/**
 * Email in Chromium, through a real SMTP server (an in-process sink): sign up → the verification email →
 * its link followed in the browser → the first key; forgot password → the reset email → its link → a new
 * password → sign in with it; a leaked-key signal on the home and the security page with "Revoke now"; the
 * support page's contact form, its field errors, and the message at the sink.
 * axe (no serious or critical violation) at 1280 and 375 px on each page; screenshots in
 * test-results/screenshots/, and with ROUTER_UPDATE_SCREENSHOTS=1 the 1280 px ones in docs/screenshots/.
 */
import { copyFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSmtpSink, type SmtpSink } from '../support/smtp-sink.js';
import { frontierOrder, pointProvidersAt, postV1, startFakes, type Fakes } from '../e2e/router-harness.js';
import { startAppRouter, type AppRouter } from '../e2e/app-harness.js';
import { expectAccessible, expectNoHorizontalScroll, HAVE_BROWSER, launchBrowser, screenshot, SCREENSHOT_DIR } from './browser-harness.js';

const PASSWORD = 'correct horse battery staple';
const NEW_PASSWORD = 'a brand new passphrase for mail';
const EMAIL = 'mail-journey@example.com';
const DOCS_SCREENSHOTS = new URL('../../docs/screenshots/', import.meta.url).pathname;
const linkIn = (text: string) => /(http:\/\/127\.0\.0\.1:\d+\/app\/link\?token=[A-Za-z0-9_-]+)/.exec(text)?.[1] ?? null;

describe.skipIf(!HAVE_BROWSER)('email and alerts in a real browser', { timeout: 180_000 }, () => {
  let sink: SmtpSink;
  let fakes: Fakes;
  let router: AppRouter;
  let browser: Browser;

  beforeAll(async () => {
    sink = await startSmtpSink();
    fakes = await startFakes();
    // SMTP on: email verification is required by default. A low spike threshold, so a few calls are a leaked-key signal.
    router = await startAppRouter({
      env: { ROUTER_SMTP_URL: sink.url },
      app: { support: 'help@operator.example', alerts: { sweepSeconds: 1, spikeMinRequests: 5, spikeFactor: 3 } },
      patch: { server: (doc: any) => void (doc.keyCacheTtlMs = 50), providers: pointProvidersAt(fakes.urls), routes: frontierOrder(['openai']) },
    });
    browser = await launchBrowser();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await router?.close();
    await fakes?.close();
    await sink?.close();
  });

  async function newPage(width = 1280): Promise<Page> {
    return (await browser.newContext({ viewport: { width, height: 900 } })).newPage();
  }

  /** Screenshot (into docs/ on request), axe at this width, and at 375 px the same address fits and passes axe too. */
  async function look(page: Page, name: string, phone?: Page): Promise<void> {
    await screenshot(page, name);
    await expectAccessible(page, name);
    if (process.env.ROUTER_UPDATE_SCREENSHOTS === '1') {
      mkdirSync(DOCS_SCREENSHOTS, { recursive: true });
      copyFileSync(join(SCREENSHOT_DIR, `${name}.png`), join(DOCS_SCREENSHOTS, `${name}.png`));
    }
    if (phone) {
      await screenshot(phone, `${name}-375px`);
      await expectNoHorizontalScroll(phone, `${name} at 375px`);
      await expectAccessible(phone, `${name} at 375px`);
    }
  }

  async function signIn(page: Page, password: string): Promise<void> {
    await page.goto(`${router.url}/app/signin`);
    await page.getByLabel('Email').fill(EMAIL);
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(/\/app\/(keys|onboarding)/, { timeout: 8000 });
  }

  let apiKey = '';

  it('signs up, follows the verification link from the email, and then gets the first key', async () => {
    const page = await newPage();
    await page.goto(`${router.url}/app/signup`);
    await page.getByLabel('Email').fill(EMAIL);
    await page.getByLabel(/^Password/).fill(PASSWORD);
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.getByText('Next step: sign in.').waitFor({ timeout: 8000 });
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL('**/app/onboarding', { timeout: 8000 });
    expect(await page.getByRole('heading', { name: 'Confirm your email' }).count()).toBe(1);
    expect(await page.getByRole('button', { name: 'Generate my first key' }).count()).toBe(0);
    const phone = await newPage(375);
    await phone.context().addCookies(await page.context().cookies());
    await phone.goto(`${router.url}/app/onboarding`);
    await look(page, 'verify-email', phone);
    // The playground spends: until the address is confirmed it shows the same step, with why.
    await page.goto(`${router.url}/app/playground`);
    await phone.goto(`${router.url}/app/playground`);
    expect(await page.getByRole('heading', { name: 'Confirm your email' }).count()).toBe(1);
    expect(await page.getByText('Confirm your email address to use the playground').count()).toBe(1);
    expect(await page.getByRole('button', { name: 'Send', exact: true }).count()).toBe(0);
    await look(page, 'playground-unconfirmed', phone);

    const mail = await sink.waitFor(EMAIL, /^Confirm your email address$/);
    const link = linkIn(mail.text);
    expect(link).not.toBeNull();
    await page.goto(link!);
    await page.getByRole('button', { name: 'Confirm my email' }).click();
    await page.waitForURL('**/app/onboarding');
    await page.getByRole('button', { name: 'Generate my first key' }).click();
    await page.waitForURL('**/app/onboarding');
    apiKey = (await page.locator('#new-key').textContent()) ?? '';
    expect(apiKey).toMatch(/^sk_router_/);
  });

  it('forgot password → the email at the SMTP sink → the link in the browser → a new password → sign in', async () => {
    const page = await newPage();
    await page.goto(`${router.url}/app/signin`);
    await page.getByRole('link', { name: 'Get a reset link' }).click();
    await page.waitForURL('**/app/forgot');
    const phone = await newPage(375);
    await phone.goto(`${router.url}/app/forgot`);
    await look(page, 'forgot', phone);
    await page.getByLabel('Email').fill(EMAIL);
    await page.getByRole('button', { name: 'Email me a reset link' }).click();
    await page.getByText('If an account has that email, we just sent it a link').waitFor({ timeout: 8000 });

    const mail = await sink.waitFor(EMAIL, /^Reset your password$/);
    const link = linkIn(mail.text)!;
    expect(link).not.toBeNull();
    await page.goto(link);
    await phone.goto(link);
    expect(await page.getByRole('button', { name: 'Set password and sign in' }).count()).toBe(1);
    await look(page, 'reset-form', phone);
    await page.getByLabel(/^Password/).fill(NEW_PASSWORD);
    await page.getByRole('button', { name: 'Set password and sign in' }).click();
    await page.waitForURL(/\/app\/(keys|onboarding)/, { timeout: 8000 });

    // The link worked once; the old password no longer signs in, the new one does.
    await (await newPage()).goto(link).then((response) => expect(response?.status()).toBe(410));
    const other = await newPage();
    await other.goto(`${router.url}/app/signin`);
    await other.getByLabel('Email').fill(EMAIL);
    await other.getByLabel('Password').fill(PASSWORD);
    await other.getByRole('button', { name: 'Sign in' }).click();
    await other.getByText(/do not match/).waitFor({ timeout: 8000 });
    await signIn(other, NEW_PASSWORD);
  });

  it('shows a leaked-key signal on the home and the security page, and "Revoke now" revokes the key', async () => {
    const page = await newPage();
    await signIn(page, NEW_PASSWORD);
    await page.goto(`${router.url}/app/onboarding`);
    await page.getByLabel('Provider', { exact: true }).selectOption('openai');
    await page.getByLabel('Provider key', { exact: true }).fill('sk-proj-browser-mail-journey-4242');
    await page.getByRole('button', { name: 'Save key' }).click();
    await page.waitForURL('**/app/onboarding**');
    for (let i = 0; i < 6; i++) expect((await postV1(router, apiKey, '/chat/completions', { model: 'router/frontier', messages: [{ role: 'user', content: 'hi' }] })).status).toBe(200);
    const mail = await sink.waitFor(EMAIL, /^Unusual traffic on key/, 10_000);
    expect(mail.text).toContain('/app/security#alerts');

    await page.goto(`${router.url}/app/keys`);
    const home = page.getByRole('region', { name: 'Needs your attention' });
    expect(await home.getByRole('button', { name: 'Revoke now' }).count()).toBe(1);
    const phoneHome = await newPage(375);
    await phoneHome.context().addCookies(await page.context().cookies());
    await phoneHome.goto(`${router.url}/app/keys`);
    await look(page, 'keys-open-alert', phoneHome);

    await page.goto(`${router.url}/app/security#alerts`);
    const alerts = page.locator('#alerts');
    expect(await alerts.getByText(/^Unusual traffic on key "first key"$/).count()).toBe(1);
    const phone = await newPage(375);
    await phone.context().addCookies(await page.context().cookies());
    await phone.goto(`${router.url}/app/security#alerts`);
    await look(page, 'security-alerts', phone);
    await alerts.screenshot({ path: join(SCREENSHOT_DIR, 'security-alerts-section.png') });

    await alerts.getByRole('button', { name: 'Revoke now' }).click();
    await page.getByText(/is revoked: it stops working within seconds/).waitFor({ timeout: 8000 });
    expect(await page.locator('#alerts').getByRole('button', { name: 'Revoke now' }).count()).toBe(0);
    await page.goto(`${router.url}/app/keys`);
    expect(await page.getByRole('region', { name: 'Needs your attention' }).count()).toBe(0);
    await expect.poll(async () => (await postV1(router, apiKey, '/chat/completions', { model: 'router/frontier', messages: [{ role: 'user', content: 'hi' }] })).status, { timeout: 10_000, interval: 500 }).toBe(401);
  });
  it('the support page offers the operator contact and a form that mails it, errors at the fields first', async () => {
    const page = await newPage();
    await signIn(page, NEW_PASSWORD);
    await page.goto(`${router.url}/app/support`);
    const phone = await newPage(375);
    await phone.context().addCookies(await page.context().cookies());
    await phone.goto(`${router.url}/app/support`);
    expect(await page.getByRole('link', { name: 'help@operator.example' }).getAttribute('href')).toBe('mailto:help@operator.example');
    await look(page, 'support-contact', phone);
    // The browser's own checks aside (required), an over-long message comes back at its field, text kept.
    await page.getByLabel('Subject').fill('Billing question');
    await page.getByLabel(/^Message/).evaluate((field) => field.removeAttribute('maxlength'));
    await page.getByLabel(/^Message/).fill('x'.repeat(4001));
    await page.getByRole('button', { name: 'Send to support' }).click();
    await page.getByText('Keep the message to 4000 characters').waitFor({ timeout: 8000 });
    expect(await page.getByLabel(/^Message/).getAttribute('aria-invalid')).toBe('true');
    expect(await page.getByLabel('Subject').inputValue()).toBe('Billing question');
    await look(page, 'support-contact-error');
    await page.getByLabel(/^Message/).fill('Can I move to Pro this month?');
    await page.getByRole('button', { name: 'Send to support' }).click();
    await page.waitForURL('**/app/support?sent=1#contact', { timeout: 8000 });
    expect(await page.getByText('Your message was sent to help@operator.example.').count()).toBe(1);
    const mail = await sink.waitFor('help@operator.example', /^\[Support\] Billing question$/);
    expect(mail.text).toContain('Can I move to Pro this month?');
    expect(mail.replyTo).toBe(EMAIL);
  });
});
