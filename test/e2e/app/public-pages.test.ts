/**
 * Pages for people beside the API: content negotiation on /pricing, /model-catalog and /status, the
 * landing page, the generated docs, and a crawl that follows every URL the API's guided errors,
 * /pricing, the catalog and the app's pages emit, asserting each resolves (anchors included).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ERROR_TABLE, RouterError, type ErrorCode } from '../../../src/core/errors.js';
import { errorBody } from '../../../src/http/send-error.js';
import { json } from '../router-harness.js';
import { AppClient, shownKey, startAppRouter, type AppRouter } from '../app-harness.js';

describe('public pages and docs', () => {
  let router: AppRouter;
  beforeAll(async () => {
    router = await startAppRouter();
  });
  afterAll(() => router.close());

  it('answers browsers with HTML and API clients with the same JSON as before, both with Vary: Accept', async () => {
    for (const path of ['/pricing', '/model-catalog', '/status']) {
      const html = await fetch(router.url + path, { headers: { accept: 'text/html,application/xhtml+xml,*/*;q=0.8', 'user-agent': 'Mozilla/5.0' } });
      expect(html.status, path).toBe(200);
      expect(html.headers.get('content-type'), path).toBe('text/html; charset=utf-8');
      expect(html.headers.get('vary'), path).toContain('Accept');
      for (const accept of ['application/json', '*/*']) {
        const api = await fetch(router.url + path, { headers: { accept, 'user-agent': 'tests/1.0' } });
        expect(api.status, path).toBe(200);
        expect(api.headers.get('content-type'), path).toBe('application/json');
        expect(api.headers.get('vary'), path).toContain('Accept');
        expect((await json(api)).object, path).toBe(path === '/pricing' ? 'pricing' : path === '/model-catalog' ? 'model_catalog' : 'status');
      }
    }
  });

  it('shows plans side by side with how each is obtained, route families with snippets, and provider health with the last hour', async () => {
    const browser = new AppClient(router.url);
    const pricing = await browser.get('/pricing');
    expect(pricing.html.match(/<section class="card plan/g)).toHaveLength(3);
    // Billing is off here: paid plans say who sets them, and no page offers a checkout (billing.test.ts has it on).
    expect(pricing.html).not.toContain('/checkout?plan=');
    expect(pricing.html).toContain('Upgrades are arranged with our team');
    expect(pricing.html).not.toContain('operator');
    // Hierarchy: the first paid plan is marked as recommended, every plan has its own call to action,
    // and a free plan's price is an amount, never "Free" under the name "Free".
    const planCardsHtml = pricing.html.match(/<section class="card plan[^]*?<\/section>/g)!;
    expect(planCardsHtml.map((card) => /class="badge recommended"/.test(card))).toEqual([false, true, false]);
    expect(planCardsHtml.map((card) => (/<a class="button[^"]*" href="([^"]+)">([^<]+)<\/a>/.exec(card) ?? [])[2])).toEqual(['Start free', 'Ask for Pro', 'Ask for Max']);
    expect(planCardsHtml[0]).toContain('<span class="amount">$0</span>');
    expect(pricing.html).toContain('Managed provider access');
    // Route profiles are stated once, in one table row each with the plans that include them, not per card.
    const cards = pricing.html.slice(pricing.html.indexOf('<div class="plans">'), pricing.html.indexOf('route-profiles-heading'));
    expect(cards).not.toContain('Route profiles:');
    expect(cards).not.toMatch(/<li>router\/frontier<\/li>/);
    for (const route of ['router/frontier', 'router/fusion']) expect(pricing.html.match(new RegExp(`<code>${route}</code>`, 'g')), route).toHaveLength(1);
    const fusionRow = /<tr><th scope="row"><code>router\/fusion<\/code>.*?<\/tr>/s.exec(pricing.html)![0];
    expect(fusionRow.match(/included<\/td>/g)).toHaveLength(2);
    expect(fusionRow).toContain('not included');
    // Concrete models are a plan's by its `models` globs: the shipped Free plan denies Opus, allows Sonnet.
    const rowOf = (id: string) => new RegExp(`<tr><th scope="row"><code>${id.replaceAll('.', '\\.').replaceAll('/', '\\/')}</code>.*?</tr>`, 's').exec(pricing.html)![0];
    expect(rowOf('anthropic/claude-opus-4.1').match(/included<\/td>/g)).toHaveLength(2);
    expect(rowOf('anthropic/claude-opus-4.1')).toContain('not included');
    expect(rowOf('anthropic/claude-sonnet-4.5').match(/included<\/td>/g)).toHaveLength(3);
    const catalog = await browser.get('/model-catalog');
    expect(catalog.html).toContain('router/frontier');
    const family = await browser.get('/model-catalog/frontier');
    expect(family.status).toBe(200);
    expect(family.html).toContain('"model": "router/frontier"');
    expect((await browser.get('/model-catalog/nope')).status).toBe(404);
    const status = await browser.get('/status');
    expect(status.html.match(/<svg class="history"/g)).toHaveLength(3);
    expect(status.html.match(/<rect x=/g)).toHaveLength(180);
    // A router nothing has called yet has no evidence either way: "no data", never "operational".
    expect(status.html.match(/<span class="badge idle">no data<\/span>/g)).toHaveLength(3);
    expect(status.html).not.toContain('operational');
    // Failing traffic below the breaker's threshold (5): the circuit is still closed, the badge says failing.
    const health = router.server.runtime.health;
    health.recordFailure('anthropic');
    health.recordFailure('anthropic');
    health.recordSuccess('gemini', 120);
    const failing = await browser.get('/status');
    expect(failing.html).toMatch(/Anthropic <span class="badge open">failing<\/span>[\s\S]*?<dd>0% of 2<\/dd>/);
    expect(failing.html).toContain('Google Gemini <span class="badge closed">operational</span>');
    expect(failing.html).toContain('OpenAI <span class="badge idle">no data</span>');
    const landing = await browser.get('/');
    expect(landing.html).toContain(`${router.baseURL}`);
    expect(landing.html).toContain('/app/signup');
  });

  it('documents every error code at its own anchor, generated from the error table', async () => {
    const page = await new AppClient(router.url).get('/docs/errors');
    for (const code of Object.keys(ERROR_TABLE)) {
      expect(page.html, code).toContain(`<section class="card error-code" id="${code}">`);
    }
  });

  it('every URL the API, /pricing, the catalog and the app emit resolves', async () => {
    const server = router.server.runtime.config.server;
    const urls = new Set<string>();
    const addAll = (value: unknown): void => {
      if (typeof value === 'string' && /^https?:\/\//.test(value)) urls.add(value);
      else if (Array.isArray(value)) value.forEach(addAll);
      else if (value && typeof value === 'object') Object.values(value).forEach(addAll);
    };
    for (const code of Object.keys(ERROR_TABLE) as ErrorCode[]) addAll(errorBody(new RouterError(code, 'x'), server));
    const pricing = await json(await fetch(`${router.url}/pricing`, { headers: { 'user-agent': 'tests/1.0' } }));
    const catalog = await json(await fetch(`${router.url}/model-catalog`, { headers: { 'user-agent': 'tests/1.0' } }));
    addAll({ ...pricing, apiBaseUrl: undefined });
    addAll({ ...catalog, apiBaseUrl: undefined });
    // A signed-in person's pages: every link and every GET form on them.
    const browser = new AppClient(router.url);
    await browser.signUp('crawler@example.com', 'correct horse battery staple');
    expect(shownKey((await browser.follow(await browser.post('/app/onboarding/key', {}))).html)).not.toBeNull();
    // A guardrail and a budget on the default workspace, so the Guardrails page links them (anchors included).
    const workspace = /<option value="(workspace:ws_[0-9a-f]+)"/.exec((await browser.get('/app/guardrails')).html)![1]!;
    expect((await browser.post('/app/guardrails', { target: workspace, providers: 'any', 'deny.gemini': 'on' })).status).toBe(200);
    expect((await browser.post('/app/budgets', { target: workspace, usd: '10', period: 'month' })).status).toBe(200);
    const pages = ['/', '/pricing', '/model-catalog', '/status', '/docs', '/app/onboarding', '/app/keys', '/app/provider-keys', '/app/usage', '/app/workspaces', '/app/guardrails', '/app/billing', '/app/security', '/app/support', '/app/deactivated'];
    for (const path of pages) {
      const page = await browser.get(path);
      expect(page.status, path).toBe(200);
      for (const match of page.html.matchAll(/\shref="([^"]+)"/g)) urls.add(new URL(match[1]!.replace(/&amp;/g, '&'), router.url).toString());
    }
    // The API base (onboarding's "set your base URL" step) is a client setting, not a page.
    urls.delete(`${router.url}/v1`);
    const fragmentsChecked: string[] = [];
    for (const url of urls) {
      const target = new URL(url);
      expect(target.origin, url).toBe(router.url);
      // A link may lead through redirects (the app's front door); where it ends must be a page.
      const page = await browser.follow(await browser.get(target.pathname + target.search));
      expect(page.status, url).toBe(200);
      if (target.hash) {
        expect(page.html, url).toContain(`id="${decodeURIComponent(target.hash.slice(1))}"`);
        fragmentsChecked.push(target.hash);
      }
    }
    expect(urls.size).toBeGreaterThan(40);
    for (const [code, spec] of Object.entries(ERROR_TABLE)) {
      if ((spec.guidance as readonly string[]).includes('docsUrl')) expect(fragmentsChecked, code).toContain(`#${code}`);
    }
  });
});
