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
});
