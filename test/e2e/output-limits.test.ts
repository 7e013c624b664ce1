/**
 * Output caps above the served model's published limit (catalog.yaml `models`) are lowered for each
 * candidate, on every API: Claude Code's max_tokens of 128000 reaches an OpenAI-format, Anthropic and
 * Gemini upstream as that model's own limit; a cap within the limit is sent as asked.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROVIDER_KEYS, frontierOrder, pointProvidersAt, postV1, startFakes, startTestRouter, type Fakes, type ProviderId, type TestRouter } from './router-harness.js';

/** The shipped catalog's limits of the models frontierOrder routes to. */
const LIMIT: Record<ProviderId, number> = { openai: 32768, anthropic: 64000, gemini: 65536 };

/** The output cap an upstream request carried, in its own format's field. */
function sentCap(provider: ProviderId, body: any): unknown {
  if (provider === 'gemini') return body.generationConfig?.maxOutputTokens;
  if (provider === 'anthropic') return body.max_tokens;
  return body.max_completion_tokens ?? body.max_output_tokens;
}

describe.each(['openai', 'anthropic', 'gemini'] as const)('output caps served by the %s upstream', (provider) => {
  let fakes: Fakes;
  let router: TestRouter;
  let key: string;
  const others = (['openai', 'anthropic', 'gemini'] as const).filter((other) => other !== provider);

  beforeAll(async () => {
    fakes = await startFakes();
    router = await startTestRouter({ patch: { providers: pointProvidersAt(fakes.urls), routes: frontierOrder([provider, ...others]) } });
    key = (await router.createAccount('pro', { providerKeys: { ...PROVIDER_KEYS } })).key;
  });
  afterAll(async () => {
    await router.close();
    await fakes.close();
  });

  const lastSent = () => fakes[provider].requests.at(-1)?.body;

  it.each([
    ['/messages', { max_tokens: 128000, messages: [{ role: 'user', content: 'hi' }] }],
    ['/messages', { max_tokens: 128000, stream: true, messages: [{ role: 'user', content: 'hi' }] }],
    ['/chat/completions', { max_tokens: 200000, messages: [{ role: 'user', content: 'hi' }] }],
    ['/chat/completions', { max_completion_tokens: 200000, stream: true, messages: [{ role: 'user', content: 'hi' }] }],
    ['/responses', { max_output_tokens: 200000, input: 'hi' }],
  ])('lowers %s %j to the model’s limit', async (path, body) => {
    const response = await postV1(router, key, path, { model: 'router/frontier', ...body });
    expect(response.status).toBe(200);
    await response.text();
    expect(response.headers.get('x-router-upstream')).toBe(provider);
    expect(sentCap(provider, lastSent())).toBe(LIMIT[provider]);
  });

  it('sends a cap within the limit as asked', async () => {
    const response = await postV1(router, key, '/messages', { model: 'router/frontier', max_tokens: 1000, messages: [{ role: 'user', content: 'hi' }] });
    expect(response.status).toBe(200);
    expect(sentCap(provider, lastSent())).toBe(1000);
  });
});
