/**
 * /v1/messages on the chat pipeline: both ways of sending the key, Anthropic-shaped errors with the
 * contract's headers (so the SDK raises the right class and Claude Code stops retrying what will not
 * clear), limits and their headers, aliases, failover before the first byte and the in-stream error after it.
 */
import Anthropic from '@anthropic-ai/sdk';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  PROVIDER_KEYS,
  frontierOrder,
  json,
  limitHeadersOf,
  planLimits,
  pointProvidersAt,
  readSse,
  startFakes,
  startTestRouter,
  type Fakes,
  type TestRouter,
} from './router-harness.js';

const HELLO = { model: 'router/frontier', max_tokens: 64, messages: [{ role: 'user' as const, content: 'Say hello' }] };

function postMessages(router: TestRouter, headers: Record<string, string>, body: object = HELLO): Promise<Response> {
  return fetch(`${router.url}/v1/messages`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'user-agent': 'router-tests/1.0', 'anthropic-version': '2023-06-01', ...headers },
    body: JSON.stringify(body),
  });
}

describe('the Messages API on the pipeline', () => {
  let fakes: Fakes;
  let router: TestRouter;
  let key: string;

  beforeAll(async () => {
    fakes = await startFakes();
    router = await startTestRouter({
      patch: {
        providers: pointProvidersAt(fakes.urls),
        routes: frontierOrder(['openai', 'anthropic']),
        plans: planLimits({ free: { monthlyRequests: 2, requestsPerMinute: 100 }, pro: { requestsPerMinute: 1000 }, max: { requestsPerMinute: 3 } }),
      },
    });
    key = (await router.createAccount('pro', { providerKeys: { ...PROVIDER_KEYS } })).key;
  });
  afterEach(() => fakes.reset());
  afterAll(async () => {
    await router.close();
    await fakes.close();
  });

  it('accepts the key as x-api-key (ANTHROPIC_API_KEY) and as a bearer token (ANTHROPIC_AUTH_TOKEN)', async () => {
    const byApiKey = new Anthropic({ apiKey: key, baseURL: router.url, maxRetries: 0 });
    const byToken = new Anthropic({ apiKey: null, authToken: key, baseURL: router.url, maxRetries: 0 });
    expect((await byApiKey.messages.create(HELLO)).type).toBe('message');
    expect((await byToken.messages.create(HELLO)).type).toBe('message');
    expect(fakes.openai.requests).toHaveLength(2);
  });

  it('refuses a wrong key with an AuthenticationError in Anthropic shape, the guidance and x-should-retry: false', async () => {
    const client = new Anthropic({ apiKey: 'sk_router_wrongwrongwrongwrongwrongwrongwrong0000', baseURL: router.url, maxRetries: 0 });
    const error = await client.messages.create(HELLO).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(Anthropic.AuthenticationError);
    const response = await postMessages(router, { 'x-api-key': 'sk_router_wrongwrongwrongwrongwrongwrongwrong0000' });
    expect(response.status).toBe(401);
    expect(response.headers.get('x-should-retry')).toBe('false');
    expect(response.headers.get('www-authenticate')).toContain('Bearer');
    const body = await json(response);
    expect(body).toMatchObject({ type: 'error', error: { type: 'authentication_error', apiKeyPrefix: 'sk_router_' } });
    expect(body.request_id).toBe(response.headers.get('x-request-id'));
    expect(body.error.accountUrl).toMatch(/\/keys$/);
  });

  it('answers a request without a key with the guided 401 and its onboarding steps', async () => {
    const response = await postMessages(router, {});
    expect(response.status).toBe(401);
    expect(response.headers.get('x-should-retry')).toBe('false');
    const body = await json(response);
    expect(body.error.type).toBe('authentication_error');
    expect(body.error.onboarding).toHaveLength(3);
  });

  it('serves Claude Code model names through the aliases of routes.yaml and echoes the name asked for', async () => {
    const client = new Anthropic({ apiKey: key, baseURL: router.url, maxRetries: 0 });
    for (const model of ['claude-opus-5-5', 'claude-sonnet-5-5', 'claude-haiku-5-5']) {
      const message = await client.messages.create({ ...HELLO, model });
      expect(message.model).toBe(model);
    }
    expect(fakes.openai.requests.map((request) => (request.body as { model: string }).model)).toEqual(['gpt-4.1', 'gpt-4.1', 'gpt-4.1']);
  });

  it('answers an unknown model with a NotFoundError listing the profiles', async () => {
    const client = new Anthropic({ apiKey: key, baseURL: router.url, maxRetries: 0 });
    const error = (await client.messages.create({ ...HELLO, model: 'gpt-nothing' }).catch((caught: unknown) => caught)) as InstanceType<typeof Anthropic.NotFoundError>;
    expect(error).toBeInstanceOf(Anthropic.NotFoundError);
    expect((error.error as any).error).toMatchObject({ type: 'not_found_error', code: 'unknown_model', profiles: ['router/frontier', 'router/fusion'] });
    expect(fakes.openai.requests).toHaveLength(0);
  });

  it('refuses a body without max_tokens before counting it, naming the field', async () => {
    const response = await postMessages(router, { 'x-api-key': key }, { model: 'router/frontier', messages: [] });
    expect(response.status).toBe(400);
    expect((await json(response)).error).toMatchObject({ type: 'invalid_request_error', param: 'max_tokens' });
  });

  it('fails over before the first byte: an OpenAI 500 is served by Anthropic, and the headers say so', async () => {
    fakes.openai.failNext({ kind: 'status', status: 500 });
    const response = await postMessages(router, { 'x-api-key': key }, { ...HELLO, stream: true });
    expect(response.status).toBe(200);
    expect(response.headers.get('x-router-upstream')).toBe('anthropic');
    expect(response.headers.get('x-router-retry-count')).toBe('1');
    const events = await readSse(response);
    expect(events.at(-1)?.event).toBe('message_stop');
  });

  it('ends a stream cut after the first byte with an in-stream error event, never message_stop', async () => {
    fakes.openai.failNext({ kind: 'mid-stream-error', afterEvents: 3 });
    const response = await postMessages(router, { 'x-api-key': key }, { ...HELLO, stream: true });
    expect(response.status).toBe(200);
    const events = await readSse(response);
    expect(events.map((event) => event.event)).not.toContain('message_stop');
    const last = events.at(-1)!;
    expect(last.event).toBe('error');
    expect(JSON.parse(last.data)).toMatchObject({ type: 'error', error: { type: expect.any(String), message: expect.any(String) } });
    const client = new Anthropic({ apiKey: key, baseURL: router.url, maxRetries: 0 });
    fakes.openai.failNext({ kind: 'mid-stream-error', afterEvents: 3 });
    await expect(client.messages.stream(HELLO).finalMessage()).rejects.toBeInstanceOf(Anthropic.APIError);
  });

  it('raises RateLimitError with retry-after and the limit headers past the per-minute limit', async () => {
    const fresh = (await router.createAccount('max', { providerKeys: { ...PROVIDER_KEYS } })).key;
    for (let i = 0; i < 3; i++) expect((await postMessages(router, { 'x-api-key': fresh })).status).toBe(200);
    const response = await postMessages(router, { 'x-api-key': fresh });
    expect(response.status).toBe(429);
    expect(limitHeadersOf(response)).toMatchObject({ 'x-ratelimit-limit': '3', 'x-ratelimit-remaining': '0', 'retry-after': expect.any(String) });
    expect(response.headers.get('x-should-retry')).toBeNull();
    expect((await json(response)).error.type).toBe('rate_limit_error');
    const client = new Anthropic({ apiKey: fresh, baseURL: router.url, maxRetries: 0 });
    const error = (await client.messages.create(HELLO).catch((caught: unknown) => caught)) as InstanceType<typeof Anthropic.RateLimitError>;
    expect(error).toBeInstanceOf(Anthropic.RateLimitError);
    expect(error.headers.get('retry-after')).toMatch(/^\d+$/);
  });

  it('refuses past the monthly quota with x-should-retry: false and counts only what was served', async () => {
    const free = (await router.createAccount('free')).key;
    // A free account has no provider key of its own: admitted, then refused by the router and given back.
    const refused = await postMessages(router, { 'x-api-key': free });
    expect(refused.headers.get('x-quota-used')).toBe('0');
    const account = await router.createAccount('free', { providerKeys: { ...PROVIDER_KEYS } });
    for (let i = 0; i < 2; i++) expect((await postMessages(router, { 'x-api-key': account.key })).status).toBe(200);
    const response = await postMessages(router, { 'x-api-key': account.key });
    expect(response.status).toBe(429);
    expect(response.headers.get('x-should-retry')).toBe('false');
    expect(limitHeadersOf(response)).toMatchObject({ 'x-quota-limit': '2', 'x-quota-used': '2', 'x-quota-remaining': '0' });
    expect((await json(response)).error).toMatchObject({ type: 'rate_limit_error', code: 'monthly_quota_exceeded', upgradeUrl: expect.any(String) });
  });

  it('answers GET /v1/messages with 405 and Allow: POST', async () => {
    const response = await fetch(`${router.url}/v1/messages`, { headers: { 'x-api-key': key, 'user-agent': 'router-tests/1.0' } });
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('POST');
  });
});
