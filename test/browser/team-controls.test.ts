/**
 * Workspaces, budgets and guardrails in a real browser, driven by the keyboard where a person would type:
 * an owner makes a workspace, a key in it (the workspace chosen on the keys form), a budget on that
 * workspace and a guardrail on the key, then reads on the Guardrails page what applies to the key. Every
 * page is screenshot and axe-checked at 1280 px, and at 375 px (light and dark) must not scroll sideways.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAppRouter, type AppRouter } from '../e2e/app-harness.js';
import { checkPage, expectNoHorizontalScroll, HAVE_BROWSER, launchBrowser } from './browser-harness.js';

const PASSWORD = 'correct horse battery staple';

describe.skipIf(!HAVE_BROWSER)('workspaces, budgets and guardrails in the browser', { timeout: 240_000 }, () => {
  let router: AppRouter;
  let browser: Browser;

  beforeAll(async () => {
    router = await startAppRouter({ app: { signupPlan: 'pro', requireEmailVerification: false } });
    browser = await launchBrowser();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await router?.close();
  });

  async function signUp(page: Page, email: string): Promise<void> {
    await page.goto(`${router.url}/app/signup`);
    await page.getByLabel('Email').fill(email);
    await page.getByLabel(/^Password/).fill(PASSWORD);
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.getByText('Next step: sign in.').waitFor({ timeout: 8000 });
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(/\/app\/(keys|onboarding)/);
  }

  it('an owner sets up a workspace, a key in it, a budget and a guardrail, and reads what applies', async () => {
    const page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
    await signUp(page, 'teams.look@example.com');

    await page.getByRole('navigation', { name: 'Account' }).getByRole('link', { name: 'Workspaces' }).click();
    await page.waitForURL('**/app/workspaces');
    await page.getByLabel('Name', { exact: true }).fill('Research');
    await page.keyboard.press('Enter');
    await page.getByText('Workspace Research created.').waitFor();

    await page.goto(`${router.url}/app/keys`);
    const workspace = page.locator('#key-workspace');
    expect(await workspace.locator('option:checked').textContent()).toBe('Default (default)');
    await page.getByLabel('Name').fill('lab-agent');
    await workspace.selectOption({ label: 'Research' });
    await page.getByRole('button', { name: 'Create key' }).click();
    await page.locator('#new-key').waitFor();
    const card = page.locator('li.key-item', { hasText: 'lab-agent' });
    expect(await card.locator('dd').nth(4).textContent()).toBe('Research');
    await checkPage(page, 'keys-with-workspaces');

    await page.goto(`${router.url}/app/workspaces`);
    await page.getByLabel('Applies to', { exact: true }).selectOption({ label: 'Research' });
    await page.getByLabel('Limit in USD').fill('25');
    await page.getByLabel('Period').selectOption('month');
    await page.getByRole('button', { name: 'Set budget' }).click();
    await page.getByText('Budget of Research set: USD 25.00 per month.').waitFor();
    // A mistake is answered at its field, and focus goes there.
    await page.getByLabel('Limit in USD').fill('a lot');
    await page.getByRole('button', { name: 'Set budget' }).click();
    await page.getByText('Enter an amount in USD, such as 25 or 0.50.').waitFor();
    await expect.poll(() => page.evaluate<string | undefined>('document.activeElement?.id')).toBe('budget-usd');
    await checkPage(page, 'workspaces-1280');

    await page.goto(`${router.url}/app/guardrails`);
    const keyOption = await page.locator('#guardrail-target option', { hasText: 'lab-agent' }).getAttribute('value');
    await page.getByLabel('Applies to', { exact: true }).selectOption(keyOption!);
    await page.getByLabel(/^Only these models/).fill('router/frontier');
    await page.getByRole('group', { name: 'Providers requests never use' }).getByLabel('Google Gemini').check();
    await page.getByLabel('Require zero data retention').check();
    await page.getByRole('button', { name: 'Save guardrail' }).click();
    await page.getByText(/Guardrail of key lab-agent .* saved/).waitFor();
    const row = page.getByRole('list', { name: 'What applies to each key' }).getByRole('listitem').filter({ hasText: 'lab-agent' });
    expect(await row.locator('dd').nth(0).textContent()).toBe('Research');
    expect(await row.locator('dd').nth(1).textContent()).toBe('Its own');
    expect(await row.locator('dd').nth(2).textContent()).toBe('Workspace Research');
    await checkPage(page, 'guardrails-1280');

    // The same form by keyboard alone: Tab through the fields, arrows in the radio group, Space on a tick, Enter on the button.
    await page.getByLabel('Applies to', { exact: true }).selectOption({ label: 'Research' });
    await page.getByLabel('Applies to', { exact: true }).focus();
    await page.keyboard.press('Tab');
    await page.keyboard.type('router/frontier');
    await page.keyboard.press('Tab');
    await page.keyboard.press('Tab');
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('Tab');
    await page.keyboard.press('Space');
    await page.getByRole('button', { name: 'Save guardrail' }).focus();
    await page.keyboard.press('Enter');
    await page.getByText('Guardrail of workspace Research saved: Only models: router/frontier; Only providers: OpenAI.').waitFor();
    const researchKey = page.getByRole('list', { name: 'What applies to each key' }).getByRole('listitem').filter({ hasText: 'lab-agent' });
    expect(await researchKey.locator('dd').nth(1).textContent()).toBe('Workspace Research, Its own');

    for (const colorScheme of ['light', 'dark'] as const) {
      const phone = await (await browser.newContext({ viewport: { width: 375, height: 800 }, colorScheme })).newPage();
      await phone.goto(`${router.url}/app/signin`);
      await phone.getByLabel('Email').fill('teams.look@example.com');
      await phone.getByLabel('Password').fill(PASSWORD);
      await phone.getByRole('button', { name: 'Sign in' }).click();
      await phone.waitForURL(/\/app\/(keys|onboarding)/);
      for (const name of ['workspaces', 'guardrails', 'keys'] as const) {
        await phone.goto(`${router.url}/app/${name}`);
        await checkPage(phone, `${name}-375px-${colorScheme}`);
        await expectNoHorizontalScroll(phone, `${name} at 375 px (${colorScheme})`);
      }
      await phone.context().close();
    }
    await page.context().close();
  });
});
