/**
 * What anyone can see: public metadata, the guided 401 with every field the contract gives it, and the
 * edge rule (1010) for clients that do not say who they are. Returns the documents the link check reads.
 */
import { API_KEY_PREFIX } from '../../core/api-key.js';
import { probeFetch } from './probe-http.js';
import type { ProbeResponse } from './probe-response.js';
import { expectThat, type ProbeSession } from './probe-session.js';

const isUrl = (value: unknown): value is string => typeof value === 'string' && /^https?:\/\/\S+$/.test(value);

export interface PublicDocuments {
  pricing?: unknown;
  guidedErrors: unknown[];
}

export async function runPublicChecks(session: ProbeSession, origin: string): Promise<PublicDocuments> {
  const found: PublicDocuments = { guidedErrors: [] };
  await session.check('public', 'GET /pricing lists plans, the API base and checkout links', async () => {
    const r = await probeFetch({ url: `${origin}/pricing` });
    expectThat(r.status === 200 && Array.isArray(r.json?.plans) && r.json.plans.length > 0, 'a 200 pricing document with plans', r);
    expectThat(typeof r.json.apiBaseUrl === 'string' && r.json.apiBaseUrl.endsWith('/v1'), 'apiBaseUrl ending in /v1', r);
    // A plan sold online has its checkout link; with billing off none has one (the operator sets plans).
    const plans = r.json.plans as Array<{ checkoutUrl?: unknown; purchasableOnline?: unknown }>;
    const linked = plans.every((plan) => (plan.purchasableOnline === true ? isUrl(plan.checkoutUrl) : plan.checkoutUrl === null));
    expectThat(linked, 'a checkoutUrl on every plan sold online and none on the others', r);
    expectThat(r.json.onlineCheckout === plans.some((plan) => plan.purchasableOnline === true), 'onlineCheckout true exactly when a plan is sold online', r);
    expectThat(r.headers.get('cache-control')?.includes('public'), 'Cache-Control: public', r);
    found.pricing = r.json;
    return `${r.json.plans.length} plans, API base ${r.json.apiBaseUrl}`;
  });
  await session.check('public', 'GET /model-catalog lists route families', async () => {
    const r = await probeFetch({ url: `${origin}/model-catalog` });
    expectThat(r.status === 200 && Array.isArray(r.json?.families) && r.json.families.length > 0, 'a 200 catalog with families', r);
    return r.json.families.map((family: { profile: string }) => family.profile).join(', ');
  });
  for (const [name, request] of [
    ['anonymous GET /v1/models gets the guided 401', { url: `${origin}/v1/models` }],
    ['anonymous POST /v1/chat/completions gets the guided 401', { method: 'POST' as const, url: `${origin}/v1/chat/completions`, body: { model: 'router/frontier', messages: [] } }],
  ] as const) {
    await session.check('public', name, async () => {
      const r = await probeFetch(request);
      expectGuided401(r);
      found.guidedErrors.push(r.json);
      return `${r.json.error.code}, onboarding in ${r.json.error.onboarding.length} steps`;
    });
  }
  await session.check('public', 'edge rule: a request without a User-Agent is rejected with 1010', async () => {
    const r = await probeFetch({ url: `${origin}/v1/models`, userAgent: '' });
    expectThat(r.status === 403 && r.json?.error?.code === '1010' && r.json.error.type === 'edge_rejected', 'a 403 edge_rejected with code 1010', r);
    return 'code 1010';
  });
  await session.check('public', 'edge rule: a bare library User-Agent is rejected with 1010', async () => {
    const r = await probeFetch({ url: `${origin}/v1/models`, userAgent: 'python-requests/2.32.3' });
    expectThat(r.status === 403 && r.json?.error?.code === '1010', 'a 403 with code 1010', r);
    return 'code 1010';
  });
  return found;
}

/** The contract's guided 401: challenge, request id, and every guidance field. */
function expectGuided401(r: ProbeResponse): void {
  expectThat(r.status === 401, 'status 401', r);
  expectThat(r.headers.get('www-authenticate') === 'Bearer realm="router"', 'WWW-Authenticate: Bearer realm="router"', r);
  expectThat(r.headers.get('x-request-id'), 'an X-Request-Id header', r);
  const error = r.json?.error;
  expectThat(error?.type === 'authentication_error' && error.code === 'missing_api_key', 'type authentication_error, code missing_api_key', r);
  expectThat(typeof error.message === 'string' && error.message.length > 0, 'a message', r);
  expectThat(error.apiKeyPrefix === API_KEY_PREFIX, `apiKeyPrefix "${API_KEY_PREFIX}"`, r);
  expectThat(isUrl(error.accountUrl) && isUrl(error.docsUrl), 'accountUrl and docsUrl as URLs', r);
  const steps = error.onboarding;
  expectThat(Array.isArray(steps) && steps.length === 3, 'onboarding in 3 steps', r);
  expectThat(
    steps.every((step: { step?: unknown; action?: unknown }, index: number) => step.step === index + 1 && typeof step.action === 'string'),
    'numbered onboarding steps with actions',
    r,
  );
  expectThat(steps.some((step: { baseUrl?: unknown }) => typeof step.baseUrl === 'string' && step.baseUrl.endsWith('/v1')), 'an onboarding step with the base URL ending in /v1', r);
}
