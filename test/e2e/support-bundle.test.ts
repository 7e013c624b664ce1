/**
 * The support bundle carries what support needs and none of what the specification forbids. Every kind
 * of forbidden secret is planted where a careless bundle would pick it up (configuration, environment,
 * headers, prompt, provider answer, stored keys, account), then the bundle written by the CLI and the
 * one the account app would build are searched for each.
 */
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sealSecret } from '../../src/core/secret-box.js';
import { createLedgerViews } from '../../src/runtime/ledger-views.js';
import { sqliteMigrations } from '../../src/stores/migrations/sqlite-migrations.js';
import { startRouterOn, usageBackends, type UsageBackend } from './usage-backends.js';
import { PROVIDER_KEYS, TEST_SECRET, frontierOrder, pointProvidersAt, runCli, startFakes, waitFor, type Fakes, type TestRouter } from './router-harness.js';

const CANARY = {
  managedKey: 'sk-canaryMANAGEDkey0123456789',
  oauthToken: 'ya29.canaryOAUTHtoken0123456789',
  privateKey: '-----BEGIN PRIVATE KEY-----\nMIIEcanaryPRIVATEkey0123456789\n-----END PRIVATE KEY-----',
  urlPassword: 'canaryURLpassword42',
  urlToken: 'canaryQUERYtoken42',
  headerToken: 'canaryHEADERbearer0123456789',
  metricsToken: 'canaryMETRICStoken0123456789',
  prompt: 'canary-PROMPT-the launch codes are 0000',
  response: 'canary-RESPONSE from the provider',
  cookie: 'canarySESSIONcookie0123456789',
  email: 'canary-customer@example.com',
};

describe.each(usageBackends('bundle'))('support bundles on %s', { timeout: 60_000 }, (_name, makeBackend) => {
  let backend: UsageBackend;
  let fakes: Fakes;
  let router: TestRouter;
  let account: { accountId: string; key: string };
  let requestId: string;
  let forbidden: string[];
  const outDir = mkdtempSync(join(tmpdir(), 'router-bundle-'));

  beforeAll(async () => {
    backend = makeBackend();
    fakes = await startFakes();
    router = await startRouterOn(backend, {
      server: (doc) => {
        doc.supportUrl = `https://ops:${CANARY.urlPassword}@support.example.com/help?token=${CANARY.urlToken}`;
        doc.metrics = { token: CANARY.metricsToken };
      },
      providers: pointProvidersAt(fakes.urls, (doc) => {
        doc.providers.find((p: { id: string }) => p.id === 'openai').managedKey = CANARY.managedKey;
        doc.providers.find((p: { id: string }) => p.id === 'gemini').managedKey = CANARY.oauthToken;
        doc.providers.push({
          id: 'vault',
          name: 'Internal host',
          format: 'openai',
          baseUrl: `https://llm.internal.example/v1?api-key=${CANARY.urlToken}`,
          headers: { authorization: `Bearer ${CANARY.headerToken}`, 'x-client-cert-key': CANARY.privateKey, 'openai-beta': 'assistants=v2' },
        });
      }),
      routes: frontierOrder(['openai', 'anthropic']),
    });
    // The customer's email is customer data: the bundle is about this very account.
    const { store, keys } = router.server.runtime;
    const owner = await store.createAccount({ email: CANARY.email, plan: 'pro' }, 'test');
    const { key } = await keys.issue(owner.id, 'test', 'test');
    for (const [providerId, providerKey] of Object.entries({ openai: PROVIDER_KEYS.openai, anthropic: PROVIDER_KEYS.anthropic })) {
      await store.setProviderKey({ accountId: owner.id, providerId, sealed: sealSecret(providerKey, TEST_SECRET), last4: providerKey.slice(-4) }, 'test');
    }
    account = { accountId: owner.id, key };
    fakes.anthropic.setReply({ text: CANARY.response });
    fakes.openai.failNext({ kind: 'status', status: 503 });
    const response = await fetch(`${router.baseURL}/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${account.key}`, cookie: `__Host-session=${CANARY.cookie}`, 'content-type': 'application/json', 'user-agent': 'router-tests/1.0' },
      body: JSON.stringify({ model: 'router/frontier', messages: [{ role: 'user', content: CANARY.prompt }] }),
    });
    expect(await response.text()).toContain(CANARY.response);
    requestId = response.headers.get('x-request-id')!;
    await waitFor(() => (router.server.runtime.usage.ledger?.status().written ?? 0) >= 1, 5000);
    forbidden = [...Object.values(CANARY), account.key, TEST_SECRET, PROVIDER_KEYS.openai, PROVIDER_KEYS.anthropic];
  }, 60_000);
  afterAll(async () => {
    await router?.close();
    await fakes?.close();
    await backend?.cleanUp();
    rmSync(outDir, { recursive: true, force: true });
  });

  const expectNoSecrets = (text: string) => {
    for (const secret of forbidden) {
      expect(text, `the bundle contains ${secret.slice(0, 12)}…`).not.toContain(secret);
      // PEM bodies and tokens must not survive in part either.
      expect(text).not.toContain(secret.slice(0, 20));
    }
    expect(text).not.toContain('BEGIN PRIVATE KEY');
  };

  it('the CLI writes, readable by its owner only, versions, masked configuration, readiness, errors and the request’s attempts', async () => {
    const out = join(outDir, `cli-${backend.name}.json`);
    const env = { ROUTER_CONFIG: router.configDir, ROUTER_SECRET_KEY: TEST_SECRET, ...backend.env, OPENAI_API_KEY: CANARY.managedKey };
    const result = await runCli(env, 'support-bundle', '--account', account.accountId, '--request-id', requestId, '--out', out, '--json');
    expect(result.code).toBe(0);
    expect(statSync(out).mode & 0o777).toBe(0o600);
    const text = readFileSync(out, 'utf8');
    expectNoSecrets(text);
    const bundle = JSON.parse(text);
    expect(bundle.versions).toMatchObject({ router: '0.1.0', node: process.version, schemaVersion: sqliteMigrations.at(-1)!.version });
    // The CLI's own reading of the configuration: no baseUrl set, so the listen address (127.0.0.1, as the README says).
    expect(bundle.configuration.server.baseUrl).toBe('http://127.0.0.1:8787');
    expect(bundle.configuration.server.supportUrl).toBe('https://ops:%5Bredacted%5D@support.example.com/help?token=%5Bredacted%5D');
    expect(bundle.configuration.providers.providers.find((p: { id: string }) => p.id === 'vault').headers).toEqual({
      authorization: '[redacted]',
      'x-client-cert-key': '[redacted]',
      'openai-beta': 'assistants=v2',
    });
    expect(bundle.readiness).toMatchObject({ store: { ok: true }, ledger: { live: true }, managedAccess: { active: false } });
    expect(bundle.account).toEqual({ id: account.accountId, plan: 'pro', status: 'active', createdAt: expect.any(String) });
    expect(bundle.request.records).toHaveLength(1);
    expect(bundle.request.records[0]).toMatchObject({ requestId, providerId: 'anthropic', retryCount: 1, status: 200 });
    expect(bundle.request.records[0].attempts.map((attempt: { provider: string; status: number }) => [attempt.provider, attempt.status])).toEqual([
      ['openai', 503],
      ['anthropic', 200],
    ]);
    expect(bundle.recentErrors).toMatchObject({ accountId: account.accountId, byCode: [] });
  });

  it('the account app’s bundle holds the customer’s own records and the router’s version only, and another account gets none', async () => {
    const views = createLedgerViews(router.server.runtime);
    const bundle = (await views.supportBundle(account.accountId, requestId))!;
    expectNoSecrets(JSON.stringify(bundle));
    expect(Object.keys(bundle).sort()).toEqual(['createdAt', 'object', 'request', 'versions']);
    expect(Object.keys(bundle.versions)).toEqual(['router']);
    expect(bundle.request.records.map((record) => record.requestId)).toEqual([requestId]);
    // Nothing of the operator's setup: no configuration, storage, upstream hosts, listen address or readiness.
    const text = JSON.stringify(bundle);
    for (const operatorDetail of [router.server.runtime.config.server.storage, 'configDir', 'baseUrl', 'listen', 'managedAccess', 'readiness']) {
      expect(text).not.toContain(operatorDetail);
    }
    for (const provider of router.server.runtime.config.providers.providers) expect(text).not.toContain(new URL(provider.baseUrl).host);
    const other = await router.createAccount('pro');
    expect(await views.supportBundle(other.accountId, requestId)).toBeNull();
  });
});
