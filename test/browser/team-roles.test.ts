/**
 * The role matrix as people meet it (docs/teams.md): a member and a viewer of a team sign in on a phone
 * (375 px, light and dark) and see only the navigation and controls their role may use; what they may
 * not use is absent, not merely refused, and a page above their role is the 403 page naming it. Every
 * page is screenshot and axe-checked and must not scroll sideways. The HTTP matrix is app-teams.test.ts.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAppRouter, type AppRouter } from '../e2e/app-harness.js';
import { PASSWORD, startTeam } from '../e2e/team-harness.js';
import { checkPage, expectNoHorizontalScroll, HAVE_BROWSER, launchBrowser } from './browser-harness.js';

const NAV: Record<'member' | 'viewer', string[]> = {
  member: ['Get started', 'Playground', 'API keys', 'Presets', 'Usage', 'Members', 'Workspaces', 'Guardrails', 'Security', 'Support'],
  viewer: ['Get started', 'Usage', 'Workspaces', 'Guardrails', 'Security', 'Support'],
};
/** Buttons for admins and owners only, on the pages both roles read. */
const ADMIN_BUTTONS: Record<string, string[]> = {
  members: ['Send invitation', 'Change role', 'Remove'],
  workspaces: ['Create workspace', 'Set budget', 'Rename'],
  guardrails: ['Save guardrail'],
};

describe.skipIf(!HAVE_BROWSER)('what a member and a viewer see in the browser', { timeout: 240_000 }, () => {
  let router: AppRouter;
  let browser: Browser;

  beforeAll(async () => {
    router = await startAppRouter({ app: { signupPlan: 'pro', requireEmailVerification: false } });
    await startTeam(router, 'roles.example');
    browser = await launchBrowser();
  }, 90_000);
  afterAll(async () => {
    await browser?.close();
    await router?.close();
  });

  async function signIn(page: Page, email: string): Promise<void> {
    await page.goto(`${router.url}/app/signin`);
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL((url) => !url.pathname.endsWith('/signin'));
  }

  const check = async (page: Page, name: string) => {
    await checkPage(page, name);
    await expectNoHorizontalScroll(page, name);
  };

  it('an owner manages members on a phone (375 px): each row stacks, its role and removal controls in view without scrolling sideways', async () => {
    for (const colorScheme of ['light', 'dark'] as const) {
      const context = await browser.newContext({ viewport: { width: 375, height: 800 }, colorScheme });
      const page = await context.newPage();
      await signIn(page, 'owner@roles.example');
      await page.goto(`${router.url}/app/members`);
      await check(page, `owner-members-375px-${colorScheme}`);
      const region = page.getByRole('region', { name: 'Members' });
      // The table fits its region: nothing of it is hidden past the edge.
      expect(await region.evaluate((element) => element.scrollWidth - element.clientWidth)).toBeLessThanOrEqual(1);
      const row = page.locator('tr', { hasText: 'viewer@roles.example' });
      for (const control of [row.getByRole('button', { name: 'Change role' }), row.getByRole('button', { name: 'Remove' }), row.getByLabel('Role of viewer@roles.example')]) {
        const box = await control.boundingBox();
        expect(box, 'a control of the row').not.toBeNull();
        expect(box!.x).toBeGreaterThanOrEqual(0);
        expect(box!.x + box!.width).toBeLessThanOrEqual(375);
      }
      await context.close();
    }
  });

  for (const role of ['member', 'viewer'] as const) {
    for (const colorScheme of ['light', 'dark'] as const) {
      it(`a ${role} (${colorScheme}, 375 px) sees only what the ${role} role may use`, async () => {
        const context = await browser.newContext({ viewport: { width: 375, height: 800 }, colorScheme });
        const page = await context.newPage();
        await signIn(page, `${role}@roles.example`);
        const nav = page.getByRole('navigation', { name: 'Account' });
        expect(await nav.getByRole('link').allTextContents()).toEqual(NAV[role]);
        expect(await nav.textContent()).toContain(`role: ${role}`);

        const readable = role === 'member' ? ['members', 'workspaces', 'guardrails'] : ['workspaces', 'guardrails'];
        for (const name of readable) {
          const response = await page.goto(`${router.url}/app/${name}`);
          expect(response?.status(), name).toBe(200);
          for (const button of ADMIN_BUTTONS[name]!) expect(await page.getByRole('button', { name: button }).count(), `${role} sees ${button} on ${name}`).toBe(0);
          await check(page, `${role}-${name}-375px-${colorScheme}`);
        }
        await page.goto(`${router.url}/app/usage`);
        await check(page, `${role}-usage-375px-${colorScheme}`);
        if (role === 'member') {
          // Their own keys: the form to make one is theirs; moving a key to another workspace is not.
          await page.goto(`${router.url}/app/keys`);
          expect(await page.getByRole('button', { name: 'Create key' }).count()).toBe(1);
          expect(await page.getByRole('button', { name: 'Move' }).count()).toBe(0);
          expect(await page.getByLabel(/^Management key/).count()).toBe(0);
        }

        // A page above the role, opened by its address: the 403 page naming the role, itself accessible.
        const above = role === 'member' ? 'provider-keys' : 'keys';
        const refused = await page.goto(`${router.url}/app/${above}`);
        expect(refused?.status()).toBe(403);
        await page.getByText('Not allowed for your role').first().waitFor();
        // Still in the signed-in frame, with the way back to what the role may open.
        expect(await nav.getByRole('link').allTextContents()).toEqual(NAV[role]);
        await check(page, `${role}-refused-375px-${colorScheme}`);
        await context.close();
      });
    }
  }
});
