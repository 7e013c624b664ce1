import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { RecordedRequest } from '../fakes/fake-provider.js';
import {
  PROVIDER_KEYS,
  frontierOrder,
  json,
  pointProvidersAt,
  postV1,
  sdkClient,
  silentLogger,
  startFakes,
  startTestRouter,
  type Fakes,
  type ProviderId,
  type TestRouter,
} from './router-harness.js';

const HELLO = { model: 'router/frontier', messages: [{ role: 'user', content: 'Say hello' }] };
/** The operator's own OpenAI key, handed to the router through the environment. */
const OPERATOR_KEY = 'sk-operator-openai-9999';
/** How each provider receives its credential. */
const CREDENTIAL_HEADER: Record<ProviderId, (key: string) => [string, string]> = {
  openai: (key) => ['authorization', `Bearer ${key}`],
  anthropic: (key) => ['x-api-key', key],
  gemini: (key) => ['x-goog-api-key', key],
};
const CREDENTIAL_HEADERS = ['authorization', 'x-api-key', 'x-goog-api-key'];
const enableManagedAccess = (doc: any) => void (doc.managedAccess = { enabled: true });
const capPro = (doc: any) => void (doc.plans.find((plan: { id: string }) => plan.id === 'pro').managedSpendCapUsd = 50);

/** The credential headers a fake received, nothing else (the router's own key must never travel upstream). */
function credentialsOf(request: RecordedRequest): Record<string, unknown> {
  return Object.fromEntries(CREDENTIAL_HEADERS.filter((name) => request.headers[name] !== undefined).map((name) => [name, request.headers[name]]));
}

function chat(router: TestRouter, key: string): Promise<Response> {
  return postV1(router, key, '/chat/completions', HELLO);
}

async function managedAccessOf(router: TestRouter): Promise<any> {
  const pricing = await json(await fetch(`${router.url}/pricing`, { headers: { 'user-agent': 'router-tests/1.0' } }));
  return pricing.launchBoundary.managedProviderAccess;
}

describe('bring-your-own provider keys, with managed access off (the default)', () => {
  let fakes: Fakes;
  let router: TestRouter;

  beforeAll(async () => {
    fakes = await startFakes();
    router = await startTestRouter({ env: { OPENAI_API_KEY: OPERATOR_KEY }, patch: { providers: pointProvidersAt(fakes.urls), routes: frontierOrder(['openai', 'anthropic', 'gemini']) } });
  });
  afterEach(() => fakes.reset());
  afterAll(async () => {
    await router.close();
    await fakes.close();
  });

  it.each(['openai', 'anthropic', 'gemini'] as const)('sends the account’s own %s key, and routes only to the provider it has a key for', async (provider) => {
    const { key } = await router.createAccount('pro', { providerKeys: { [provider]: PROVIDER_KEYS[provider] } });
    const { response } = await sdkClient(router, key).chat.completions.create({ model: 'router/frontier', messages: [{ role: 'user', content: 'hi' }] }).withResponse();
    expect(response.headers.get('x-router-upstream')).toBe(provider);
    expect(response.headers.get('x-router-retry-count')).toBe('0');
    const [name, value] = CREDENTIAL_HEADER[provider](PROVIDER_KEYS[provider]);
    expect(fakes[provider].requests).toHaveLength(1);
    expect(credentialsOf(fakes[provider].requests[0]!)).toEqual({ [name]: value });
    for (const other of (['openai', 'anthropic', 'gemini'] as const).filter((id) => id !== provider)) expect(fakes[other].requests).toHaveLength(0);
  });

  it('never fails over to a provider the account has no key for', async () => {
    const { key } = await router.createAccount('pro', { providerKeys: { anthropic: PROVIDER_KEYS.anthropic } });
    fakes.anthropic.failNext({ kind: 'status', status: 503 });
    const response = await chat(router, key);
    expect(response.status).toBe(502);
    expect((await json(response)).error.attempts.map((attempt: { provider: string }) => attempt.provider)).toEqual(['anthropic']);
    expect(fakes.openai.requests).toHaveLength(0);
    expect(fakes.gemini.requests).toHaveLength(0);
  });

  it('answers 403 no_provider_access with the provider-keys page when the account has no key, and counts nothing', async () => {
    const { key } = await router.createAccount('pro');
    const response = await chat(router, key);
    expect(response.status).toBe(403);
    expect(response.headers.get('x-quota-used')).toBe('0');
    const { error } = await json(response);
    expect(error).toMatchObject({ type: 'permission_error', code: 'no_provider_access', accountUrl: 'http://localhost:8787/app/provider-keys' });
    expect(error.message).not.toContain(OPERATOR_KEY);
    expect(fakes.openai.requests).toHaveLength(0);
  });
});

describe('managed access requested while a readiness check fails', () => {
  let fakes: Fakes;
  let router: TestRouter;
  const logger = silentLogger();

  beforeAll(async () => {
    fakes = await startFakes();
    // Enabled in config, operator key set, but no plan has managedSpendCapUsd: resale controls are missing.
    router = await startTestRouter({
      env: { OPENAI_API_KEY: OPERATOR_KEY },
      build: { logger },
      patch: { providers: pointProvidersAt(fakes.urls, enableManagedAccess) },
    });
  });
  afterAll(async () => {
    await router.close();
    await fakes.close();
  });

  it('stays off and says why in /pricing', async () => {
    const managed = await managedAccessOf(router);
    expect(managed.requested).toBe(true);
    expect(managed.active).toBe(false);
    expect(managed.readinessChecks.find((check: { name: string }) => check.name === 'resale_controls')).toEqual({
      name: 'resale_controls',
      ok: false,
      detail: 'no plan has both a price and managedSpendCapUsd',
    });
  });

  it('logs why at start, without the operator key', () => {
    expect(logger.lines.filter((line: string) => line.includes('managed provider access stays off'))).toHaveLength(1);
    expect(logger.lines.join('\n')).not.toContain(OPERATOR_KEY);
  });

  it('still refuses an account without its own keys, never using the operator key', async () => {
    const { key } = await router.createAccount('pro');
    const response = await chat(router, key);
    expect(response.status).toBe(403);
    expect((await json(response)).error.code).toBe('no_provider_access');
    expect(fakes.openai.requests).toHaveLength(0);
  });
});

describe('managed access fully ready (priced plan with a spend cap, durable store, operator key)', () => {
  let fakes: Fakes;
  let router: TestRouter;

  beforeAll(async () => {
    fakes = await startFakes();
    router = await startTestRouter({
      env: { OPENAI_API_KEY: OPERATOR_KEY },
      patch: { plans: capPro, providers: pointProvidersAt(fakes.urls, enableManagedAccess), routes: frontierOrder(['openai', 'anthropic', 'gemini']) },
    });
  });
  afterEach(() => fakes.reset());
  afterAll(async () => {
    await router.close();
    await fakes.close();
  });

  it('is published as active with every readiness check passing', async () => {
    const managed = await managedAccessOf(router);
    expect(managed.active).toBe(true);
    expect(managed.readinessChecks.map((check: { name: string; ok: boolean }) => [check.name, check.ok])).toEqual([
      ['resale_controls', true],
      ['durable_quotas', true],
      ['durable_audit_events', true],
      ['usage_ledger', true],
      ['spend_metering', true],
    ]);
  });

  it('serves an account without its own keys with the operator key, only where one is configured', async () => {
    const { key } = await router.createAccount('pro');
    const { data, response } = await sdkClient(router, key).chat.completions.create({ model: 'router/frontier', messages: [{ role: 'user', content: 'hi' }] }).withResponse();
    expect(response.headers.get('x-router-upstream')).toBe('openai');
    expect(data.choices[0]!.message.content).toBe('Hello from openai-fake: héllo 👋 世界');
    expect(credentialsOf(fakes.openai.requests[0]!)).toEqual({ authorization: `Bearer ${OPERATOR_KEY}` });

    // Anthropic and Gemini have no operator key: when openai fails there is nowhere else to go.
    fakes.openai.failNext({ kind: 'status', status: 503 });
    const failed = await chat(router, key);
    expect(failed.status).toBe(502);
    expect((await json(failed)).error.attempts.map((attempt: { provider: string }) => attempt.provider)).toEqual(['openai']);
    expect(fakes.anthropic.requests).toHaveLength(0);
    expect(fakes.gemini.requests).toHaveLength(0);
  });

  it('never serves an account that brought a key for another provider with the operator key', async () => {
    const { key } = await router.createAccount('pro', { providerKeys: { anthropic: PROVIDER_KEYS.anthropic } });
    const served = await chat(router, key);
    expect(served.headers.get('x-router-upstream')).toBe('anthropic');
    expect(fakes.openai.requests).toHaveLength(0);

    fakes.anthropic.failNext({ kind: 'status', status: 401 });
    const failed = await chat(router, key);
    expect(failed.status).toBe(502);
    expect((await json(failed)).error.attempts.map((attempt: { provider: string; status: number }) => [attempt.provider, attempt.status])).toEqual([['anthropic', 401]]);
    expect(fakes.openai.requests).toHaveLength(0);
  });

  it('refuses an account on a plan without a spend cap', async () => {
    const { key } = await router.createAccount('free');
    const response = await chat(router, key);
    expect(response.status).toBe(403);
    expect((await json(response)).error.code).toBe('no_provider_access');
    expect(fakes.openai.requests).toHaveLength(0);
  });
});
