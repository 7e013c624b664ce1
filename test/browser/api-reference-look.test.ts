/**
 * The docs' API reference page (rendered from GET /v1/openapi.json) in a real browser: it passes axe in
 * light and dark, and on a 375 px phone nothing scrolls sideways (long paths and body tables wrap).
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAppRouter, type AppRouter } from '../e2e/app-harness.js';
import { expectAccessible, expectNoHorizontalScroll, HAVE_BROWSER, launchBrowser, screenshot } from './browser-harness.js';

describe.skipIf(!HAVE_BROWSER)('the API reference page', { timeout: 120_000 }, () => {
  let router: AppRouter;
  let browser: Browser;

  beforeAll(async () => {
    router = await startAppRouter();
    browser = await launchBrowser();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await router?.close();
  });

  it.each([
    ['light', 1280, 'light'],
    ['dark', 1280, 'dark'],
    ['375px', 375, 'light'],
  ] as const)('%s: accessible, every endpoint listed, no sideways scroll', async (suffix, width, colorScheme) => {
    const page = await (await browser.newContext({ viewport: { width, height: 900 }, colorScheme })).newPage();
    await page.goto(`${router.url}/docs`);
    // The docs index links it (and so does the docs navigation): follow the first.
    await page.getByRole('link', { name: 'API reference' }).first().click();
    await page.waitForURL('**/docs/api-reference');
    expect(await page.getByRole('heading', { name: 'POST /v1/chat/completions', exact: true }).count()).toBe(1);
    expect(await page.locator('section.api-operation').count()).toBeGreaterThan(15);
    await screenshot(page, `docs-api-reference-${suffix}`);
    await expectAccessible(page, `docs-api-reference-${suffix}`);
    if (width < 400) await expectNoHorizontalScroll(page, `docs-api-reference-${suffix}`);
  });
});
