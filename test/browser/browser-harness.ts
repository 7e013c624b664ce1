/**
 * A real browser for the account app: Debian's Chromium driven by playwright-core (no downloaded
 * browser). `ROUTER_TEST_CHROMIUM` names the executable (default /usr/bin/chromium); without one the
 * browser suites are skipped with a printed reason, and CI installs it (.ci/run). Every page a test
 * visits can be screenshot into test-results/screenshots/ and checked with axe-core.
 */
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { expect } from 'vitest';

export const CHROMIUM = process.env.ROUTER_TEST_CHROMIUM ?? '/usr/bin/chromium';
export const HAVE_BROWSER = existsSync(CHROMIUM);
// In CI the browser tests must run: .ci/run installs Chromium, so a missing one is a failure there.
if (!HAVE_BROWSER && process.env.CI) throw new Error(`no Chromium at ${CHROMIUM}: CI must run the browser tests (.ci/run installs Debian's chromium)`);
if (!HAVE_BROWSER) console.warn(`skipping browser tests: no Chromium at ${CHROMIUM} (install Debian's chromium or set ROUTER_TEST_CHROMIUM)`);

export const SCREENSHOT_DIR = new URL('../../test-results/screenshots/', import.meta.url).pathname;
const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

export function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
  });
}

/**
 * Save a full-page screenshot as a test artefact. Chromium now and then answers "Unable to capture
 * screenshot" when the machine is loaded (seen with four test files at once on two cores); the picture
 * is an artefact, not the assertion, so that one protocol error is tried again, twice, after a frame.
 */
export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  for (let attempt = 1; ; attempt++) {
    try {
      await page.screenshot({ path: join(SCREENSHOT_DIR, `${name}.png`), fullPage: true });
      return;
    } catch (error) {
      if (attempt === 3 || !String((error as Error).message).includes('Unable to capture screenshot')) throw error;
      await page.waitForTimeout(250 * attempt);
    }
  }
}

/** Run axe-core in the page; fail on any serious or critical violation (named, with its targets). */
export async function expectAccessible(page: Page, label: string): Promise<void> {
  // Evaluated through the DevTools protocol, so the page's strict CSP (no inline script) does not block it.
  await page.evaluate(AXE_SOURCE);
  const violations = await page.evaluate(async () => {
    const axe = (globalThis as unknown as { axe: { run(): Promise<{ violations: Array<{ id: string; impact: string; nodes: Array<{ target: unknown }> }> }> } }).axe;
    const result = await axe.run();
    return result.violations.map((violation) => ({ id: violation.id, impact: violation.impact, targets: violation.nodes.map((node) => node.target) }));
  });
  const blocking = violations.filter((violation) => violation.impact === 'serious' || violation.impact === 'critical');
  expect(blocking, `${label}: ${JSON.stringify(blocking)}`).toEqual([]);
}

const WIDER_THAN_VIEWPORT = `[...document.querySelectorAll('body *')].filter((e) => e.getBoundingClientRect().right > document.documentElement.clientWidth + 1 && !(e.parentElement && e.parentElement.closest('.table-scroll, pre'))).slice(0, 8).map((e) => e.tagName.toLowerCase() + (e.className && typeof e.className === 'string' ? '.' + e.className.trim().replace(/ +/g, '.') : ''))`;

/** The page fits a narrow phone screen: nothing wider than the viewport. */
export async function expectNoHorizontalScroll(page: Page, label: string): Promise<void> {
  const overflow = await page.evaluate<number>('document.documentElement.scrollWidth - document.documentElement.clientWidth');
  // Names the elements past the right edge, so a failure says what to fix.
  const wide = overflow > 0 ? await page.evaluate<string[]>(WIDER_THAN_VIEWPORT) : [];
  expect(overflow, `${label} overflows by ${overflow}px: ${wide.join(', ')}`).toBeLessThanOrEqual(0);
}

/** Screenshot and accessibility check in one step, for every page a journey reaches. */
export async function checkPage(page: Page, name: string): Promise<void> {
  await screenshot(page, name);
  await expectAccessible(page, name);
}
