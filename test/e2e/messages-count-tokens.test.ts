/**
 * POST /v1/messages/count_tokens through the SDK: Anthropic's count when the route has an Anthropic
 * target with a credential, the documented estimate otherwise, said in a header; never counted.
 */
import Anthropic from '@anthropic-ai/sdk';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { PROVIDER_KEYS, frontierOrder, pointProvidersAt, startFakes, startTestRouter, type Fakes, type TestRouter } from './router-harness.js';

const MESSAGES = [{ role: 'user' as const, content: 'How many tokens is this?' }];

describe('count_tokens', () => {
  let fakes: Fakes;
  let router: TestRouter;

  beforeAll(async () => {
    fakes = await startFakes();
    router = await startTestRouter({ patch: { providers: pointProvidersAt(fakes.urls), routes: frontierOrder(['openai', 'anthropic']) } });
  });
  afterEach(() => fakes.reset());
  afterAll(async () => {
    await router.close();
    await fakes.close();
  });

  it('forwards to the route’s Anthropic target with the account’s key, skipping the others, and counts nothing', async () => {
    const { key } = await router.createAccount('pro', { providerKeys: { ...PROVIDER_KEYS } });
    const client = new Anthropic({ apiKey: key, baseURL: router.url, maxRetries: 0 });
    const { data, response } = await client.messages.countTokens({ model: 'claude-sonnet-5-5', messages: MESSAGES }).withResponse();
    expect(data).toEqual({ input_tokens: JSON.stringify(MESSAGES).length });
    expect(response.headers.get('x-router-token-count')).toBe('anthropic');
    expect(response.headers.get('x-quota-used')).toBe('0');
    expect(fakes.anthropic.requests.map((request) => request.path)).toEqual(['/v1/messages/count_tokens']);
    expect(fakes.anthropic.requests[0]!.headers['x-api-key']).toBe(PROVIDER_KEYS.anthropic);
    expect((fakes.anthropic.requests[0]!.body as { model: string }).model).toBe('claude-sonnet-4-5');
    expect(fakes.openai.requests).toHaveLength(0);
  });

  it('answers the documented estimate, marked as one, when no Anthropic target has a credential', async () => {
    const { key } = await router.createAccount('pro', { providerKeys: { openai: PROVIDER_KEYS.openai } });
    const client = new Anthropic({ apiKey: key, baseURL: router.url, maxRetries: 0 });
    const { data, response } = await client.messages.countTokens({ model: 'router/frontier', messages: MESSAGES }).withResponse();
    expect(response.headers.get('x-router-token-count')).toBe('estimate');
    expect(data.input_tokens).toBe(Math.ceil(JSON.stringify([null, MESSAGES, null]).length / 4));
    expect(fakes.anthropic.requests).toHaveLength(0);
    expect(fakes.openai.requests).toHaveLength(0);
  });

  it('falls back to the estimate when Anthropic cannot answer', async () => {
    const { key } = await router.createAccount('pro', { providerKeys: { ...PROVIDER_KEYS } });
    fakes.anthropic.failAlways({ kind: 'status', status: 503 });
    const client = new Anthropic({ apiKey: key, baseURL: router.url, maxRetries: 0 });
    const { response } = await client.messages.countTokens({ model: 'router/frontier', messages: MESSAGES }).withResponse();
    expect(response.headers.get('x-router-token-count')).toBe('estimate');
  });

  it('never sends the router\'s own provider object upstream, and still applies it to the route', async () => {
    const { key } = await router.createAccount('pro', { providerKeys: { ...PROVIDER_KEYS } });
    const client = new Anthropic({ apiKey: key, baseURL: router.url, maxRetries: 0 });
    const body = { model: 'router/frontier', messages: MESSAGES, provider: { order: ['anthropic'] } } as unknown as Anthropic.MessageCountTokensParams;
    const { response } = await client.messages.countTokens(body).withResponse();
    expect(response.headers.get('x-router-token-count')).toBe('anthropic');
    expect(fakes.anthropic.requests).toHaveLength(1);
    expect(Object.keys(fakes.anthropic.requests[0]!.body as object).sort()).toEqual(['messages', 'model']);
    // The preference is the router's: one that rules out every counting target is refused, never sent.
    const refused = await client.messages.countTokens({ ...body, provider: { only: ['openai'], ignore: ['openai'] } } as unknown as Anthropic.MessageCountTokensParams).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(Anthropic.BadRequestError);
    expect(fakes.anthropic.requests).toHaveLength(1);
  });

  it("applies the key's own limits: a key whose monthly cap is used up is refused, and a count adds nothing to it", async () => {
    const { key, keyId } = await router.createAccount('pro', { providerKeys: { ...PROVIDER_KEYS } });
    const { runtime } = router.server;
    await runtime.store.setKeyLimits({ keyId, monthlyRequests: 1, requestsPerMinute: null }, 'test');
    const client = new Anthropic({ apiKey: key, baseURL: router.url, maxRetries: 0 });
    await client.messages.countTokens({ model: 'router/frontier', messages: MESSAGES });
    await client.messages.countTokens({ model: 'router/frontier', messages: MESSAGES });
    expect(fakes.anthropic.requests).toHaveLength(2);
    await client.messages.create({ model: 'router/frontier', max_tokens: 16, messages: MESSAGES });
    const refused: any = await client.messages.countTokens({ model: 'router/frontier', messages: MESSAGES }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(Anthropic.RateLimitError);
    expect(refused.error.error.code).toBe('key_quota_exceeded');
    expect(fakes.anthropic.requests.filter((request) => request.path.endsWith('/count_tokens'))).toHaveLength(2);
  });

  it("applies the key's own per-minute limit", async () => {
    const { key, keyId } = await router.createAccount('pro', { providerKeys: { ...PROVIDER_KEYS } });
    await router.server.runtime.store.setKeyLimits({ keyId, monthlyRequests: null, requestsPerMinute: 1 }, 'test');
    const client = new Anthropic({ apiKey: key, baseURL: router.url, maxRetries: 0 });
    await client.messages.countTokens({ model: 'router/frontier', messages: MESSAGES });
    const refused: any = await client.messages.countTokens({ model: 'router/frontier', messages: MESSAGES }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(Anthropic.RateLimitError);
    expect(refused.error.error.code).toBe('key_rate_limit_exceeded');
    expect(fakes.anthropic.requests).toHaveLength(1);
  });
});
