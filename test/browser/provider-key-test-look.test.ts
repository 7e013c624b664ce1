/**
 * The provider-key Test's three failures as a person sees them in Chromium, each on the page its POST
 * redirects to: could not reach (a refused port), rejected (the fake's 401), another upstream answer
 * (the fake's 503). Axe-clean at 1280 and 375 px, light and dark, no sideways scroll at 375 px.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, manualClock, pointProvidersAt, startFakes, type Fakes } from '../e2e/router-harness.js';
import { AppClient, startAppRouter, type AppRouter } from '../e2e/app-harness.js';
import { expectAccessible, expectNoHorizontalScroll, HAVE_BROWSER, launchBrowser, screenshot } from './browser-harness.js';

const PASSWORD = 'correct horse battery staple';
const LOOKS = [
  { suffix: 'light', width: 1280, colorScheme: 'light' },
  { suffix: 'dark', width: 1280, colorScheme: 'dark' },
  { suffix: '375px', width: 375, colorScheme: 'light' },
  { suffix: '375px-dark', width: 375, colorScheme: 'dark' },
] as const;

describe.skipIf(!HAVE_BROWSER)('provider-key Test outcomes in Chromium', { timeout: 300_000 }, () => {
  let fakes: Fakes;
  let router: AppRouter;
  let browser: Browser;
  const clock = manualClock('2026-11-21T10:00:00.000Z');

  beforeAll(async () => {
    fakes = await startFakes();
    const refused = `http://127.0.0.1:${await freePort()}`;
    router = await startAppRouter({ clock, patch: { providers: pointProvidersAt({ ...fakes.urls, anthropic: refused }) } });
    browser = await launchBrowser();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await router?.close();
    await fakes?.close();
  });

  it('shows each failure once, in words that say what to do, on an accessible page at every width', async () => {
    const client = new AppClient(router.url);
    await client.signUp('look@example.com', PASSWORD);
    await client.get('/app/provider-keys');
    await client.post('/app/provider-keys', { provider: 'openai', key: 'sk-proj-look-0001' });
    await client.post('/app/provider-keys', { provider: 'anthropic', key: 'sk-ant-look-0002' });
    const cases = [
      { name: 'unreached', provider: 'Anthropic', fail: () => undefined, says: 'Could not reach Anthropic (the connection was refused), so the key was not checked.' },
      { name: 'rejected', provider: 'OpenAI', fail: () => fakes.openai.failNext({ kind: 'status', status: 401 }), says: 'OpenAI rejected this key (HTTP 401' },
      { name: 'upstream-error', provider: 'OpenAI', fail: () => fakes.openai.failNext({ kind: 'status', status: 503 }), says: 'OpenAI answered HTTP 503' },
    ];
    for (const look of LOOKS) {
      const context = await browser.newContext({ viewport: { width: look.width, height: 900 }, colorScheme: look.colorScheme });
      await context.addCookies(client.cookieHeader().split('; ').map((pair) => {
        const [name, ...value] = pair.split('=');
        return { name: name!, value: value.join('='), url: router.url };
      }));
      const page: Page = await context.newPage();
      await page.goto(`${router.url}/app/provider-keys`);
      for (const test of cases) {
        clock.advance(10_000);
        test.fail();
        await page.locator(`#provider-${test.provider.toLowerCase()}`).getByRole('button', { name: 'Test' }).click();
        await page.getByText(test.says).waitFor();
        expect(new URL(page.url()).pathname).toBe('/app/provider-keys');
        const file = `provider-key-test-${test.name}-${look.suffix}`;
        await screenshot(page, file);
        await expectAccessible(page, file);
        if (look.width < 400) await expectNoHorizontalScroll(page, file);
      }
      await page.reload();
      expect(await page.getByText('OpenAI answered HTTP 503').count()).toBe(0);
      await context.close();
    }
    fakes.reset();
  });
});
