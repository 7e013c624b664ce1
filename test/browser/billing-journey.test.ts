/**
 * Billing in a real browser (Chromium via playwright-core): the upgrade button leads to the (fake)
 * Stripe Checkout page, a signed webhook is delivered as Stripe would, and the billing page then shows
 * Pro with Manage billing. Screenshot and axe-core on the billing page before and after.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStripeFake, type StripeFake } from '../fakes/stripe-fake.js';
import { startAppRouter, type AppRouter } from '../e2e/app-harness.js';
import { BILLING_ENV, billingPatch, deliverEvent, PRO_PRICE } from '../e2e/billing-harness.js';
import { checkPage, expectNoHorizontalScroll, HAVE_BROWSER, launchBrowser } from './browser-harness.js';

const PASSWORD = 'correct horse battery staple';

describe.skipIf(!HAVE_BROWSER)('billing in a real browser', { timeout: 120_000 }, () => {
  let stripe: StripeFake;
  let router: AppRouter;
  let browser: Browser;

  beforeAll(async () => {
    stripe = await startStripeFake();
    router = await startAppRouter({ env: BILLING_ENV, patch: billingPatch(stripe.url) });
    browser = await launchBrowser();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await router?.close();
    await stripe?.close();
  });

  it('upgrade click → the Stripe Checkout page → signed webhook → the billing page shows Pro', async () => {
    const page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
    await page.goto(`${router.url}/app/signup`);
    await page.getByLabel('Email').fill('buyer@example.com');
    await page.getByLabel(/^Password/).fill(PASSWORD);
    await page.getByRole('button', { name: 'Create account' }).click();
    // Every sign-up is answered with the sign-in form (it never says whether the email had an account).
    await page.getByText('Next step: sign in.').waitFor({ timeout: 8000 });
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL('**/app/onboarding', { timeout: 8000 });

    await page.getByRole('link', { name: 'Billing' }).click();
    await checkPage(page, 'billing-free');
    await page.getByRole('link', { name: 'Upgrade to Pro' }).click();
    await page.waitForURL(`${stripe.url}/pay/**`, { timeout: 8000 });
    expect(await page.getByRole('heading', { name: 'Fake Stripe Checkout' }).count()).toBe(1);
    const session = stripe.calls.find((call) => call.path === '/v1/checkout/sessions')!;
    const accountId = session.params.client_reference_id!;
    expect(session.params['line_items[0][price]']).toBe(PRO_PRICE);

    // Stripe took the payment: it knows the subscription and tells the router.
    const now = Math.floor(Date.now() / 1000);
    stripe.setSubscription({ id: 'sub_browser', customer: 'cus_browser', status: 'active', price: PRO_PRICE, accountId, periodStart: now, periodEnd: now + 30 * 86_400 });
    const object = { id: 'cs_browser', object: 'checkout.session', mode: 'subscription', client_reference_id: accountId, customer: 'cus_browser', subscription: 'sub_browser' };
    const delivered = await deliverEvent(router.url, stripe, { id: 'evt_browser', type: 'checkout.session.completed', object, timestampSeconds: now });
    expect(delivered.status).toBe(200);

    // Stripe sends the person back to the success URL.
    await page.goto(session.params.success_url!);
    await expect.poll(() => page.getByRole('heading', { name: 'Your plan: Pro' }).count()).toBe(1);
    expect(await page.getByRole('link', { name: 'Manage billing' }).count()).toBe(1);
    expect(await page.locator('#subscription-status').textContent()).toBe('Active');
    expect(await page.getByText('Stripe confirmed the payment and your plan is active').count()).toBe(1);
    await checkPage(page, 'billing-pro');
    await page.setViewportSize({ width: 375, height: 900 });
    await expectNoHorizontalScroll(page, 'billing-pro at 375 px');
  });
});
