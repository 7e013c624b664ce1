/**
 * What a newcomer met on a phone, in Chromium at 375 px, light and dark: the playground as a chat (two
 * streamed turns kept in the page, each answer with its cost, the second sent with the first as context),
 * and the usage page's recent requests (a cost column, short request ids with the whole id on hover and
 * Copy) in a table that scrolls inside its own region with a visible cue: edge shadows, and a
 * "scroll sideways" line the focusable region names for screen readers. Axe on every page; screenshots.
 */
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pointProvidersAt, sdkClient, startFakes, type Fakes } from '../e2e/router-harness.js';
import { startAppRouter, type AppRouter } from '../e2e/app-harness.js';
import { expectAccessible, expectNoHorizontalScroll, HAVE_BROWSER, launchBrowser, screenshot, SCREENSHOT_DIR } from './browser-harness.js';

const PASSWORD = 'correct horse battery staple';

describe.skipIf(!HAVE_BROWSER)('the playground chat and narrow tables at 375 px', { timeout: 180_000 }, () => {
  let fakes: Fakes;
  let router: AppRouter;
  let browser: Browser;
  let key: string;

  beforeAll(async () => {
    fakes = await startFakes();
    router = await startAppRouter({ patch: { server: (doc: any) => void (doc.keyCacheTtlMs = 50), providers: pointProvidersAt(fakes.urls) } });
    browser = await launchBrowser();
    const page = await signedIn(1280, 'light', true);
    await page.getByRole('button', { name: 'Generate my first key' }).click();
    key = (await page.locator('#new-key').textContent())!.trim();
    await page.goto(`${router.url}/app/provider-keys`);
    await page.getByLabel('Add the OpenAI key').fill('sk-proj-narrow-4242');
    await page.getByRole('button', { name: 'Add' }).first().click();
    await page.getByText('…4242').first().waitFor({ timeout: 8000 });
    await page.context().close();
    await new Promise((resolve) => setTimeout(resolve, 100));
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await router?.close();
    await fakes?.close();
  });

  async function signedIn(width: number, colorScheme: 'light' | 'dark', signUp = false): Promise<Page> {
    const context = await browser.newContext({ viewport: { width, height: 800 }, colorScheme });
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: router.url });
    const page = await context.newPage();
    if (signUp) {
      await page.goto(`${router.url}/app/signup`);
      await page.getByLabel('Email').fill('narrow@example.com');
      await page.getByLabel(/^Password/).fill(PASSWORD);
      await page.getByRole('button', { name: 'Create account' }).click();
      await page.getByText('Next step: sign in.').waitFor({ timeout: 8000 });
    } else {
      await page.goto(`${router.url}/app/signin`);
      await page.getByLabel('Email').fill('narrow@example.com');
    }
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(/\/app\/(keys|onboarding)/);
    return page;
  }

  async function send(page: Page, message: string): Promise<void> {
    await page.getByLabel('Message', { exact: true }).fill(message);
    await page.getByRole('button', { name: 'Send' }).click();
    await page.locator('[data-playground-result][data-complete="true"]').waitFor({ timeout: 15_000 });
  }

  for (const colorScheme of ['light', 'dark'] as const) {
    it(`chats for two turns at 375 px (${colorScheme}), each answer with its cost`, async () => {
      const page = await signedIn(375, colorScheme);
      await page.goto(`${router.url}/app/playground`);
      await page.getByLabel(/^Temperature/).fill('0.5');
      await send(page, 'What is a pelican?');
      await send(page, 'And a heron?');
      const turns = page.locator('.chat-turns > li');
      expect(await turns.count()).toBe(4);
      expect(await turns.nth(2).textContent()).toContain('And a heron?');
      expect(await turns.nth(3).textContent()).toContain('Hello from openai-fake');
      const costs = await page.locator('[data-turn-cost]').allTextContents();
      expect(costs).toHaveLength(2);
      for (const cost of costs) expect(cost).toMatch(/^Cost: \$\d+\.\d+$/);
      expect(await page.locator('[data-field="cost"]').textContent()).toBe(costs[1]!.replace('Cost: $', ''));
      // The second request carried the first exchange; the message box is empty for a third.
      const last = fakes.openai.requests.filter((request) => request.path.startsWith('/v1/chat/completions')).at(-1)!.body as { messages: unknown[]; temperature: number };
      expect(last.messages).toHaveLength(3);
      expect(last.temperature).toBe(0.5);
      expect(await page.getByLabel('Message', { exact: true }).inputValue()).toBe('');
      expect(await page.getByRole('link', { name: 'Start a new chat' }).isVisible()).toBe(true);
      await screenshot(page, `playground-chat-375px-${colorScheme}`);
      await expectNoHorizontalScroll(page, `playground chat at 375px ${colorScheme}`);
      await expectAccessible(page, `playground chat at 375px ${colorScheme}`);
      // Reloading the page's own answer (no script) keeps the chat: the server renders the carried turns.
      await page.getByLabel('Message', { exact: true }).fill('Third, without a script');
      await Promise.all([page.waitForNavigation(), page.evaluate("document.querySelector('form[data-chat-form]').submit()")]);
      expect(await page.locator('.chat-turns > li').count()).toBe(6);
      expect(await page.locator('[data-turn-cost]').count()).toBe(3);
      await page.context().close();
    });
  }

  it('shows recent requests at 375 px in a region that scrolls, with a visible cue, a cost column and readable ids', async () => {
    for (let i = 0; i < 3; i++) await sdkClient(router, key).chat.completions.create({ model: 'router/frontier', messages: [{ role: 'user', content: 'hi' }] });
    await router.server.runtime.usage.ledger!.flush();
    for (const colorScheme of ['light', 'dark'] as const) {
      const page = await signedIn(375, colorScheme);
      await page.goto(`${router.url}/app/usage`);
      const region = page.locator('.table-scroll[aria-label="Recent requests"]');
      expect(await region.locator('thead th').allTextContents()).toContain('Cost (USD)');
      // Wider than the screen, so it scrolls inside its own region (the page itself does not).
      const widths = await region.evaluate((element) => ({ scroll: element.scrollWidth, client: element.clientWidth }));
      expect(widths.scroll).toBeGreaterThan(widths.client);
      await expectNoHorizontalScroll(page, `usage at 375px ${colorScheme}`);
      // The cue: the hint line is shown and named by the region; the edge shadows are drawn.
      const hintId = await region.getAttribute('aria-describedby');
      expect(hintId).toMatch(/^scroll-hint-\d+$/);
      const hint = page.locator(`#${hintId}`);
      expect(await hint.isVisible()).toBe(true);
      expect(await hint.textContent()).toBe('Scroll sideways for more →');
      expect(await region.evaluate((element) => (globalThis as any).getComputedStyle(element).backgroundImage as string)).toContain('radial-gradient');
      // The keyboard scrolls it: the region takes focus and the arrow key moves it.
      await region.focus();
      expect(await region.evaluate((element) => element.scrollLeft)).toBe(0);
      await page.keyboard.press('ArrowRight');
      await expect.poll(() => region.evaluate((element) => element.scrollLeft)).toBeGreaterThan(0);
      // Short ids, the whole one on hover and in the Copy button's name; each row's cost a decimal.
      const firstId = region.locator('code.request-id').first();
      const full = (await firstId.textContent())!;
      expect(await firstId.evaluate((element) => element.scrollWidth > element.clientWidth)).toBe(true);
      expect(await region.locator('a[title]').first().getAttribute('title')).toContain(full);
      const copy = region.getByRole('button', { name: `Copy request id ${full}` });
      expect(await copy.isVisible()).toBe(true);
      const costCells = await region.locator('tbody tr').evaluateAll((rows) => rows.map((row) => row.children[5]!.textContent));
      expect(costCells.length).toBeGreaterThanOrEqual(3);
      for (const cost of costCells) expect(cost).toMatch(/^(\d+\.\d+|—)$/);
      await region.evaluate((element) => (element.scrollLeft = 0));
      await screenshot(page, `usage-recent-375px-${colorScheme}`);
      // The table alone, where the cue must be seen (a full 375 px page is too tall to judge it by).
      await page.locator('section[aria-labelledby="recent-heading"]').screenshot({ path: join(SCREENSHOT_DIR, `usage-recent-table-375px-${colorScheme}.png`) });
      await expectAccessible(page, `usage at 375px ${colorScheme}`);
      await copy.click();
      await expect.poll(() => page.evaluate<string>('navigator.clipboard.readText()')).toBe(full);
      // At 1280 px the same table fits: no cue, no hint.
      await page.setViewportSize({ width: 1280, height: 800 });
      await expect.poll(() => hint.isVisible()).toBe(false);
      await page.context().close();
    }
  });
});
