/**
 * The measured routing figures and the concrete models on the pages people read, in Chromium: after
 * live traffic (one provider failing once), /status lists each provider and model's time to first byte,
 * output speed and error rate, and /model-catalog lists each concrete model with its providers, prices,
 * context length and the figures measured for that endpoint; axe-clean at 1280 and 375 px.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { frontierOrder, pointProvidersAt, PROVIDER_KEYS, postChat, startFakes, type Fakes } from '../e2e/router-harness.js';
import { startAppRouter, type AppRouter } from '../e2e/app-harness.js';
import { checkPage, expectNoHorizontalScroll, HAVE_BROWSER, launchBrowser } from './browser-harness.js';

describe.skipIf(!HAVE_BROWSER)('measured routing figures on /status and /model-catalog', { timeout: 120_000 }, () => {
  let fakes: Fakes;
  let router: AppRouter;
  let browser: Browser;

  beforeAll(async () => {
    fakes = await startFakes();
    router = await startAppRouter({ patch: { providers: pointProvidersAt(fakes.urls), routes: frontierOrder(['openai', 'anthropic', 'gemini']) } });
    const { key } = await router.createAccount('pro', { providerKeys: { ...PROVIDER_KEYS } });
    // openai serves three, then fails once (anthropic takes that one): an error rate of its own.
    for (let i = 0; i < 3; i++) expect((await postChat(router.baseURL, key)).status).toBe(200);
    fakes.openai.failNext({ kind: 'status', status: 503 });
    expect((await postChat(router.baseURL, key)).status).toBe(200);
    expect((await postChat(router.baseURL, key, { model: 'anthropic/claude-sonnet-4.5' })).status).toBe(200);
    browser = await launchBrowser();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await router?.close();
    await fakes?.close();
  });

  async function open(path: string, width: number): Promise<Page> {
    const page = await (await browser.newContext({ viewport: { width, height: 900 } })).newPage();
    await page.goto(`${router.url}${path}`);
    return page;
  }

  it('/status shows each provider and model measured, with its error rate', async () => {
    const page = await open('/status', 1280);
    const table = page.getByRole('region', { name: 'Measured routing figures' });
    const rows = await table.locator('tbody tr').allInnerTexts();
    const openai = rows.find((row) => row.startsWith('OpenAI'));
    const anthropic = rows.find((row) => row.startsWith('Anthropic'));
    expect(openai).toMatch(/gpt-4\.1\s+\d+ ms\s+[\d.]+ tokens\/s\s+[1-9][\d.]*%\s+4/);
    expect(anthropic).toMatch(/claude-sonnet-4-5\s+\d+ ms\s+[\d.]+ tokens\/s\s+0%\s+2/);
    await checkPage(page, 'status-measured');
    await page.getByRole('region', { name: 'Measured routing figures' }).focus();
    await page.keyboard.press('ArrowRight');
    await page.close();
  });

  it('/model-catalog lists the concrete models with providers, prices, context length and figures', async () => {
    const page = await open('/model-catalog', 1280);
    const sonnet = page.getByRole('region', { name: 'Claude Sonnet 4.5' });
    await expect.poll(() => sonnet.locator('dd').first().innerText()).toBe('200,000 tokens');
    const row = await sonnet.getByRole('region', { name: 'Providers of Claude Sonnet 4.5' }).locator('tbody tr').first().innerText();
    expect(row).toMatch(/^Anthropic\s+\$3 \/ M\s+\$15 \/ M\s+\S+\s+\d+ ms\s+[\d.]+ tokens\/s\s+0%$/);
    const opus = await page.getByRole('region', { name: 'Providers of Claude Opus 4.1' }).locator('tbody tr').first().innerText();
    expect(opus).toContain('not measured yet');
    await checkPage(page, 'catalog-models');
    await page.close();
  });

  it.each(['/status', '/model-catalog'])('%s fits 375 px, tables scrolling in their own region, axe-clean', async (path) => {
    const page = await open(path, 375);
    await expectNoHorizontalScroll(page, path);
    await checkPage(page, `${path.slice(1)}-375px`);
    await page.close();
  });
});
