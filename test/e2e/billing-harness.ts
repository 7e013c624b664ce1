/** A router with Stripe billing on, pointed at the in-process fake Stripe API (test/fakes/stripe-fake.ts). */
import { FAKE_STRIPE_KEY, FAKE_WEBHOOK_SECRET, type StripeFake } from '../fakes/stripe-fake.js';
import { AppClient, shownKey, type AppRouter } from './app-harness.js';
import { pointProvidersAt, sdkClient, type YamlPatch } from './router-harness.js';

export const PRO_PRICE = 'price_test_pro_monthly';
export const MAX_PRICE = 'price_test_max_monthly';

/** The secrets as the shipped server.yaml reads them: from the environment. */
export const BILLING_ENV = { STRIPE_SECRET_KEY: FAKE_STRIPE_KEY, STRIPE_WEBHOOK_SECRET: FAKE_WEBHOOK_SECRET };

export function billingPatch(stripeUrl: string, providerUrls: Record<string, string> = {}): YamlPatch {
  return {
    server: (doc) => {
      doc.billing = { ...doc.billing, provider: 'stripe', stripe: { ...doc.billing?.stripe, apiUrl: stripeUrl } };
    },
    plans: (doc) => {
      doc.plans.find((plan: { id: string }) => plan.id === 'pro').stripePriceId = PRO_PRICE;
      doc.plans.find((plan: { id: string }) => plan.id === 'max').stripePriceId = MAX_PRICE;
    },
    providers: pointProvidersAt(providerUrls),
  };
}

/** POST a signed event to the router's webhook endpoint, as Stripe delivers it. */
export async function deliverEvent(
  routerUrl: string,
  stripe: StripeFake,
  input: { id: string; type: string; object: Record<string, unknown>; timestampSeconds: number; secret?: string; signature?: string | null },
): Promise<{ status: number; body: { received?: boolean; outcome?: string; error?: { message: string } } }> {
  const signed = stripe.signedEvent(input);
  const headers: Record<string, string> = { 'content-type': 'application/json', 'user-agent': 'Stripe/1.0 (+https://stripe.com/docs/webhooks)' };
  const signature = input.signature === undefined ? signed.signature : input.signature;
  if (signature !== null) headers['stripe-signature'] = signature;
  const response = await fetch(`${routerUrl}/app/billing/webhook`, { method: 'POST', headers, body: signed.body });
  return { status: response.status, body: (await response.json()) as never };
}

/** A person who signed up in the app, made their first key and added a key for each provider; with the SDK on that key. */
export async function billingCustomer(router: AppRouter, email: string) {
  const browser = new AppClient(router.url);
  await browser.signUp(email, 'correct horse battery staple');
  const key = shownKey((await browser.follow(await browser.post('/app/onboarding/key', {}))).html)!;
  await browser.get('/app/provider-keys');
  // One key per provider: router/fusion's panel spans all three and needs two answers.
  await browser.post('/app/provider-keys', { provider: 'openai', key: 'sk-proj-billing-test-1234' });
  await browser.post('/app/provider-keys', { provider: 'anthropic', key: 'sk-ant-billing-test-1234' });
  await browser.post('/app/provider-keys', { provider: 'gemini', key: 'AIzaBillingTest1234' });
  const accountId = (await router.server.runtime.store.findLoginByEmail(email))!.account.id;
  return { browser, key, accountId, sdk: sdkClient(router, key) };
}

/** The route profiles the account's key may use now (the catalog's concrete models, listed beside them, left out). */
export async function listedModels(sdk: ReturnType<typeof sdkClient>): Promise<string[]> {
  return (await sdk.models.list()).data.map((model) => model.id).filter((id) => id.startsWith('router/'));
}
