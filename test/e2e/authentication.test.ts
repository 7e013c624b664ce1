import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateApiKey } from '../../src/core/api-key.js';
import { json, startTestRouter, type TestRouter } from './router-harness.js';

const UA = { 'user-agent': 'router-tests/1.0' };

describe('authentication and the guided 401s', () => {
  let router: TestRouter;
  beforeAll(async () => {
    router = await startTestRouter();
  });
  afterAll(async () => {
    await router.close();
  });

  it('answers an anonymous model list with the guided onboarding 401', async () => {
    const response = await fetch(`${router.baseURL}/models`, { headers: UA });
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toBe('Bearer realm="router"');
    expect(response.headers.get('x-request-id')).toMatch(/^req_[0-9a-f]{32}$/);
    const { error } = await json(response);
    expect(error.type).toBe('authentication_error');
    expect(error.code).toBe('missing_api_key');
    expect(error.param).toBeNull();
    expect(error.apiKeyPrefix).toBe('sk_router_');
    expect(error.accountUrl).toBe('http://localhost:8787/app/keys');
    expect(error.onboarding.map((step: { step: number }) => step.step)).toEqual([1, 2, 3]);
    expect(error.onboarding[2].baseUrl).toBe('http://localhost:8787/v1');
  });

  it.each([
    ['POST', '/chat/completions'],
    ['POST', '/responses'],
    ['GET', '/anything/else'],
    ['DELETE', '/models'],
  ])('blocks anonymous %s /v1%s with the same guided 401', async (method, path) => {
    const response = await fetch(`${router.baseURL}${path}`, { method, headers: UA });
    expect(response.status).toBe(401);
    expect((await json(response)).error.code).toBe('missing_api_key');
  });

  it.each([
    ['Basic dXNlcjpwYXNz', 'a non-bearer scheme'],
    ['Bearer sk-proj-abcdef', 'a foreign key'],
    ['Bearer sk_router_short', 'a truncated key'],
  ])('rejects %s (%s) as malformed with an invalid_token challenge', async (authorization) => {
    const response = await fetch(`${router.baseURL}/models`, { headers: { ...UA, authorization } });
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toBe('Bearer realm="router", error="invalid_token"');
    const { error } = await json(response);
    expect(error.code).toBe('malformed_api_key');
    expect(error.apiKeyPrefix).toBe('sk_router_');
    expect(error.accountUrl).toBe('http://localhost:8787/app/keys');
  });

  it('rejects a key whose checksum does not match (a typo) without a store look-up', async () => {
    const { key } = await router.createAccount('free');
    const last = key.at(-1) === 'a' ? 'b' : 'a';
    const typo = key.slice(0, -1) + last;
    const response = await fetch(`${router.baseURL}/models`, { headers: { ...UA, authorization: `Bearer ${typo}` } });
    expect((await json(response)).error.code).toBe('malformed_api_key');
  });

  it('rejects a well-formed key nobody issued, and never echoes it', async () => {
    // Same format, valid checksum, never stored.
    const stranger = generateApiKey();
    const response = await fetch(`${router.baseURL}/models`, { headers: { ...UA, authorization: `Bearer ${stranger}` } });
    const text = await response.text();
    expect(response.status).toBe(401);
    expect(JSON.parse(text).error.code).toBe('invalid_api_key');
    expect(text).not.toContain(stranger.slice(10, -4));
    expect(JSON.parse(text).error.message).toContain(stranger.slice(-4));
  });

  it('rejects a revoked key at once on this instance', async () => {
    const { key, keyId } = await router.createAccount('pro');
    const headers = { ...UA, authorization: `Bearer ${key}` };
    expect((await fetch(`${router.baseURL}/models`, { headers })).status).toBe(200);
    await router.server.runtime.keys.revoke(keyId, 'test');
    const response = await fetch(`${router.baseURL}/models`, { headers });
    expect(response.status).toBe(401);
    expect((await json(response)).error.code).toBe('revoked_api_key');
  });

  it('rejects keys of a deactivated account with inactive_account', async () => {
    const { key, accountId } = await router.createAccount('pro');
    const headers = { ...UA, authorization: `Bearer ${key}` };
    expect((await fetch(`${router.baseURL}/models`, { headers })).status).toBe(200);
    await router.server.runtime.store.deactivateAccount(accountId, 'test');
    const response = await fetch(`${router.baseURL}/models`, { headers });
    expect(response.status).toBe(401);
    expect((await json(response)).error.code).toBe('inactive_account');
  });

  it('lists the profiles and concrete models of the plan through the official openai SDK', async () => {
    const pro = await router.createAccount('pro');
    const free = await router.createAccount('free');
    const proModels = await new OpenAI({ apiKey: pro.key, baseURL: router.baseURL }).models.list();
    const proIds = proModels.data.map((model) => model.id);
    expect(proIds.filter((id) => id.startsWith('router/'))).toEqual(['router/frontier', 'router/fusion']);
    expect(proModels.data[0]).toMatchObject({ object: 'model', owned_by: 'router' });
    const freeModels = await new OpenAI({ apiKey: free.key, baseURL: router.baseURL }).models.list();
    const freeIds = freeModels.data.map((model) => model.id);
    expect(freeIds.filter((id) => id.startsWith('router/'))).toEqual(['router/frontier']);
    // The shipped Free plan denies the largest concrete models; Pro lists every one.
    expect(proIds).toContain('anthropic/claude-opus-4.1');
    expect(freeIds).not.toContain('anthropic/claude-opus-4.1');
    expect(freeIds).toContain('anthropic/claude-sonnet-4.5');
  });

  it('makes the openai SDK raise AuthenticationError for a bad key', async () => {
    const client = new OpenAI({ apiKey: 'sk_router_not-a-real-key', baseURL: router.baseURL, maxRetries: 0 });
    const error = await client.models.list().catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OpenAI.AuthenticationError);
    expect((error as InstanceType<typeof OpenAI.AuthenticationError>).status).toBe(401);
    expect((error as InstanceType<typeof OpenAI.AuthenticationError>).code).toBe('malformed_api_key');
    expect((error as InstanceType<typeof OpenAI.AuthenticationError>).requestID).toMatch(/^req_/);
  });

  it('echoes a well-formed X-Request-Id and replaces a hostile one', async () => {
    const echoed = await fetch(`${router.baseURL}/models`, { headers: { ...UA, 'x-request-id': 'client-trace-42' } });
    expect(echoed.headers.get('x-request-id')).toBe('client-trace-42');
    const replaced = await fetch(`${router.baseURL}/models`, { headers: { ...UA, 'x-request-id': 'bad id\twith spaces' } });
    expect(replaced.headers.get('x-request-id')).toMatch(/^req_/);
  });

  it('never writes the authorization header or the key to its logs', async () => {
    const { key } = await router.createAccount('pro');
    await fetch(`${router.baseURL}/models`, { headers: { ...UA, authorization: `Bearer ${key}` } });
    await fetch(`${router.baseURL}/chat/completions`, { method: 'POST', headers: { ...UA, authorization: `Bearer ${key}` }, body: '{not json' });
    const lines: string[] = (router.server.runtime.logger as unknown as { lines: string[] }).lines;
    expect(lines.join('\n')).not.toContain(key);
    expect(lines.join('\n')).not.toContain('{not json');
  });
});

describe('retrieving one model', () => {
  let router: TestRouter;
  beforeAll(async () => {
    router = await startTestRouter();
  });
  afterAll(async () => {
    await router.close();
  });

  it('returns a usable profile by id through the SDK, and 404 unknown_model for one the plan lacks', async () => {
    const free = await router.createAccount('free');
    const client = new OpenAI({ apiKey: free.key, baseURL: router.baseURL, maxRetries: 0 });
    expect(await client.models.retrieve('router/frontier')).toMatchObject({ id: 'router/frontier', object: 'model', owned_by: 'router' });
    const error = await client.models.retrieve('router/fusion').catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OpenAI.NotFoundError);
    expect((error as { code: string }).code).toBe('unknown_model');
  });
});
