/**
 * The picture of one request's trace in docs/operations.md: a chat stream with one failover, traced by a
 * real router into the test OTLP collector, drawn as a waterfall page (test/support/trace-waterfall.ts,
 * no tracing backend here) and screenshot in Chromium into docs/screenshots/. The page is checked too:
 * every span of the trace is a row, under its parent, and axe finds nothing serious.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { startOtlpReceiver, type OtlpReceiver } from '../support/otlp-receiver.js';
import { renderWaterfall } from '../support/trace-waterfall.js';
import { PROVIDER_KEYS, frontierOrder, pointProvidersAt, readSse, startFakes, startTestRouter, type Fakes, type TestRouter } from '../e2e/router-harness.js';
import { expectAccessible, HAVE_BROWSER, launchBrowser, screenshot } from './browser-harness.js';

const DOCS_SCREENSHOTS = new URL('../../docs/screenshots/', import.meta.url).pathname;

describe.skipIf(!HAVE_BROWSER)('one request’s trace, drawn', { timeout: 120_000 }, () => {
  let fakes: Fakes;
  let receiver: OtlpReceiver;
  let router: TestRouter;
  let browser: Browser;

  beforeAll(async () => {
    fakes = await startFakes();
    receiver = await startOtlpReceiver();
    router = await startTestRouter({
      env: { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_BSP_SCHEDULE_DELAY: '50', OTEL_SERVICE_NAME: 'llm-router' },
      patch: { providers: pointProvidersAt(fakes.urls), routes: frontierOrder(['openai', 'anthropic', 'gemini']) },
    });
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await router?.close();
    await fakes?.close();
    await receiver?.close();
  });

  it('a chat stream with one failover: server span, admission, spend gate, a failed and a served attempt', async () => {
    const { key } = await router.createAccount('pro', { providerKeys: { ...PROVIDER_KEYS } });
    const traceId = randomBytes(16).toString('hex');
    fakes.openai.failNext({ kind: 'status', status: 503 });
    fakes.anthropic.setReply({ latencyMs: 40 });
    const response = await fetch(`${router.baseURL}/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'user-agent': 'trace-screenshot/1.0', traceparent: `00-${traceId}-${randomBytes(8).toString('hex')}-01` },
      body: JSON.stringify({ model: 'router/frontier', stream: true, stream_options: { include_usage: true }, messages: [{ role: 'user', content: 'Say hello' }] }),
    });
    await readSse(response);
    const spans = await receiver.waitFor((all) => all.some((span) => span.traceId === traceId && span.kind === 2));
    const mine = spans.filter((span) => span.traceId === traceId);

    const page = await browser.newPage({ viewport: { width: 1280, height: 600 } });
    await page.setContent(renderWaterfall(spans, traceId, 'POST /v1/chat/completions (stream, one failover)'));
    const names = await page.locator('tbody th[scope=row] .name').allTextContents();
    expect(names).toHaveLength(mine.length);
    expect(names[0]).toBe('POST /v1/chat/completions');
    expect(names).toEqual(expect.arrayContaining(['router.authenticate', 'router.quota', 'router.rate_limit', 'router.spend_gate', 'chat gpt-4.1', 'chat claude-sonnet-4-5']));
    expect(await page.locator('tr.error .name').allTextContents()).toEqual(['chat gpt-4.1']);
    await expectAccessible(page, 'trace waterfall');
    // Into test-results/ on every run; the tracked copy in docs/ only when asked, so `npm test` leaves the tree clean.
    await screenshot(page, 'trace-waterfall');
    if (process.env.ROUTER_UPDATE_SCREENSHOTS === '1') {
      mkdirSync(DOCS_SCREENSHOTS, { recursive: true });
      await page.screenshot({ path: `${DOCS_SCREENSHOTS}trace-waterfall.png`, fullPage: true });
    }
    await page.close();
  });
});
