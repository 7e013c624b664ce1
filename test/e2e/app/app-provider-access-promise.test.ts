/**
 * Promises kept: the landing page, sign-up and the quick start say what this deployment's config makes
 * true about provider keys. With managed access off (the default) they say a provider key must be added
 * and that calls are refused with no_provider_access until then, and never "no provider key needed";
 * with it on, the plans it covers are named, and a sign-up plan it covers is promised no key.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pointProvidersAt, startFakes, type Fakes } from '../router-harness.js';
import { AppClient, startAppRouter, type AppRouter } from '../app-harness.js';

const OPERATOR_KEYS = { OPENAI_API_KEY: 'sk-operator-managed-0001', ANTHROPIC_API_KEY: 'sk-ant-operator-0002', GEMINI_API_KEY: 'gemini-operator-0003' };
const text = (html: string) => html.replace(/<[^>]+>/g, '').replace(/\s+/g, ' ');

describe('account app: what the public pages promise about provider keys', () => {
  let fakes: Fakes;
  let off: AppRouter;
  let managedPro: AppRouter;
  let managedSignup: AppRouter;

  beforeAll(async () => {
    fakes = await startFakes();
    const managed = (signupPlan: string) =>
      startAppRouter({
        app: { signupPlan },
        env: OPERATOR_KEYS,
        patch: {
          plans: (doc: any) => void Object.assign(doc.plans.find((plan: { id: string }) => plan.id === 'pro'), { managedSpendCapUsd: 50 }),
          providers: pointProvidersAt(fakes.urls, (doc) => void (doc.managedAccess = { enabled: true })),
        },
      });
    off = await startAppRouter({ patch: { providers: pointProvidersAt(fakes.urls) } });
    managedPro = await managed('free');
    managedSignup = await managed('pro');
  }, 60_000);
  afterAll(async () => {
    await Promise.all([off?.close(), managedPro?.close(), managedSignup?.close()]);
    await fakes?.close();
  });

  const pages = async (router: AppRouter) => {
    const browser = new AppClient(router.url);
    const [landing, signup, quickStart] = await Promise.all([browser.get('/'), browser.get('/app/signup'), browser.get('/docs/quick-start')]);
    for (const page of [landing, signup, quickStart]) expect(page.status).toBe(200);
    return { landing: text(landing.html), signup: text(signup.html), quickStart: text(quickStart.html) };
  };

  it('managed access off (the default): every page says a provider key is needed first, and none promises otherwise', async () => {
    expect(off.server.runtime.app.managedAccess.active).toBe(false);
    const { landing, signup, quickStart } = await pages(off);
    for (const page of [landing, signup, quickStart]) {
      expect(page).not.toMatch(/no provider key/i);
      expect(page).toContain('no_provider_access');
      expect(page).toContain('OpenAI, Anthropic or Google Gemini');
      expect(page).not.toContain('include provider access');
    }
    expect(landing).toContain('You start on the Free plan: no card needed.');
    expect(signup).toContain('Your first API key comes next; then add your own provider key');
    expect(quickStart).toContain('Add your own provider key (OpenAI, Anthropic or Google Gemini) on the provider keys page');
    // The quick start's Claude Code lines are two commands, not one run together.
    const raw = await new AppClient(off.url).get('/docs/quick-start');
    expect(raw.html).toContain(`export ANTHROPIC_BASE_URL=${off.url}\nexport ANTHROPIC_API_KEY=$ROUTER_API_KEY\nclaude`);
    // And the promise is the behaviour: a new account's first call is refused until a key is added.
    const browser = new AppClient(off.url);
    await browser.signUp('promise-off@example.com', 'correct horse battery staple');
    const refused = await browser.post('/app/playground', { profile: 'router/frontier', message: 'hi' });
    expect(refused.html).toContain('no_provider_access');
  });

  it('managed access on for Pro, sign-up on Free: the Free account still needs its own key; Pro is named as included', async () => {
    expect(managedPro.server.runtime.app.managedAccess.active).toBe(true);
    const { landing, signup, quickStart } = await pages(managedPro);
    for (const page of [landing, signup, quickStart]) {
      expect(page).not.toMatch(/no provider key/i);
      expect(page).toContain('no_provider_access');
      expect(page).toContain('Pro include provider access');
    }
  });

  it('managed access on for the sign-up plan: no provider key is promised, and nothing mentions the refusal', async () => {
    const { landing, signup, quickStart } = await pages(managedSignup);
    expect(landing).toContain('You start on the Pro plan: no card and no provider key needed.');
    expect(signup).toContain('no card and no provider key needed. Your first API key comes next.');
    expect(quickStart).toContain('Create an account (Pro: no card, no provider key)');
    for (const page of [landing, signup, quickStart]) expect(page).not.toContain('no_provider_access');
  });
});
