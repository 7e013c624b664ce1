/**
 * Every link the router hands out (guided errors, onboarding, /pricing, the catalog) follows the public
 * addresses it is given: ROUTER_BASE_URL alone moves them all; ROUTER_APP_URL, ROUTER_DOCS_URL and
 * ROUTER_SUPPORT_URL move their own and what derives from them.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { BILLING_ENV, billingPatch } from './billing-harness.js';
import { json, runCliJson, startRouterProcess, startTestRouter, writeConfigDir, type TestRouter } from './router-harness.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const UA = { 'user-agent': 'router-tests/1.0' };

/** Every URL in a JSON document. */
function urlsIn(document: unknown): string[] {
  return [...JSON.stringify(document).matchAll(/https?:\/\/[^"\\\s]+/g)].map((match) => match[0]);
}

describe('links derive from the public addresses', () => {
  let router: TestRouter | undefined;
  afterEach(async () => {
    await router?.close();
    router = undefined;
  });

  it('ROUTER_BASE_URL alone moves every guided link, onboarding step, checkout path and catalog page off localhost', async () => {
    // Billing on, so /pricing lists checkout paths.
    router = await startTestRouter({ env: { ROUTER_BASE_URL: 'https://api.example.com', ...BILLING_ENV }, patch: billingPatch('https://api.stripe.com') });
    const anonymous = await json(await fetch(`${router.baseURL}/models`, { headers: UA }));
    expect(anonymous.error).toMatchObject({
      docsUrl: 'https://api.example.com/docs/errors#missing_api_key',
      accountUrl: 'https://api.example.com/app/keys',
    });
    expect(anonymous.error.onboarding.map((step: { url?: string; baseUrl?: string }) => step.url ?? step.baseUrl)).toEqual([
      'https://api.example.com/app',
      'https://api.example.com/app/keys',
      'https://api.example.com/v1',
    ]);
    const pricing = await json(await fetch(`${router.url}/pricing`, { headers: UA }));
    expect(pricing.apiBaseUrl).toBe('https://api.example.com/v1');
    expect(pricing.plans.find((plan: { id: string }) => plan.id === 'pro').checkoutUrl).toBe('https://api.example.com/app/checkout?plan=pro');
    const catalog = await json(await fetch(`${router.url}/model-catalog`, { headers: UA }));
    const everything = [...urlsIn(anonymous), ...urlsIn(pricing), ...urlsIn(catalog)];
    expect(everything.length).toBeGreaterThan(5);
    expect(everything.filter((url) => !url.startsWith('https://api.example.com/'))).toEqual([]);
  });

  it('ROUTER_APP_URL moves the account links and support; ROUTER_DOCS_URL and ROUTER_SUPPORT_URL override their own', async () => {
    router = await startTestRouter({
      env: { ROUTER_BASE_URL: 'https://api.example.com/', ROUTER_APP_URL: 'https://app.example.com', ROUTER_DOCS_URL: 'https://docs.example.com' },
      patch: { plans: (doc) => void (doc.plans.find((plan: { id: string }) => plan.id === 'free').monthlyRequests = 0) },
    });
    const { key } = await router.createAccount('free');
    const quota = await json(
      await fetch(`${router.baseURL}/chat/completions`, {
        method: 'POST',
        headers: { ...UA, authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'router/frontier', messages: [{ role: 'user', content: 'hi' }] }),
      }),
    );
    expect(quota.error).toMatchObject({
      code: 'monthly_quota_exceeded',
      docsUrl: 'https://docs.example.com/errors#monthly_quota_exceeded',
      upgradeUrl: 'https://app.example.com/checkout?plan=pro',
      billingUrl: 'https://app.example.com/billing',
      supportUrl: 'https://app.example.com/support',
    });
    await router.close();
    router = await startTestRouter({ env: { ROUTER_BASE_URL: 'https://api.example.com', ROUTER_SUPPORT_URL: 'https://help.example.com/contact' } });
    expect(router.server.runtime.config.server).toMatchObject({
      baseUrl: 'https://api.example.com',
      appUrl: 'https://api.example.com/app',
      docsUrl: 'https://api.example.com/docs',
      supportUrl: 'https://help.example.com/contact',
    });
  });
});

describe('the start-up line', () => {
  it('prints the API base the links use: ROUTER_BASE_URL when set, else the address it listens on', async () => {
    const configDir = writeConfigDir();
    const dataDir = mkdtempSync(join(tmpdir(), 'router-links-'));
    const env = { ROUTER_CONFIG: configDir, ROUTER_STORAGE: `sqlite:${join(dataDir, 'router.db')}`, CONSOLA_LEVEL: '3' };
    try {
      const configured = await startRouterProcess({ ...env, ROUTER_BASE_URL: 'https://api.example.com' });
      await configured.stop();
      expect(configured.output()).toContain('API base https://api.example.com/v1');
      const local = await startRouterProcess(env);
      const port = new URL(local.url).port;
      const pricing = await json(await fetch(`${local.url}/pricing`, { headers: UA }));
      await local.stop();
      // 127.0.0.1, as the README says, on the port it listens on; and the app's address beside it.
      expect(local.output()).toContain(`API base http://127.0.0.1:${port}/v1, app http://127.0.0.1:${port}/app`);
      expect(pricing.apiBaseUrl).toBe(`http://127.0.0.1:${port}/v1`);
      expect(typeof (await runCliJson(env, 'accounts', 'list')).accounts).toBe('object');
    } finally {
      rmSync(configDir, { recursive: true, force: true });
      rmSync(dataDir, { recursive: true, force: true });
    }
    // Two router processes and a CLI run, one after the other: 6 s on a quiet 2-core VM, past 20 s on a loaded one.
  }, 60_000);
});
