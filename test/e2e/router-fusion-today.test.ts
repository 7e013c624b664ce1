/**
 * What `router/fusion` and the `router:fusion` tool do today, as the catalog, /pricing and
 * docs/routing.md describe them: the profile routes to one strong model with failover like any other
 * profile, and the tool is accepted on Pro and removed before the upstream call.
 */
import type OpenAI from 'openai';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { PROVIDER_KEYS, pointProvidersAt, sdkClient, startFakes, startTestRouter, type Fakes, type TestRouter } from './router-harness.js';

const FUSION_TOOL = { type: 'router:fusion' } as never;
const WEATHER_TOOL = { type: 'function', function: { name: 'get_weather', parameters: { type: 'object', properties: {} } } } as const;

describe('router/fusion and the router:fusion tool on the Pro plan', () => {
  let fakes: Fakes;
  let router: TestRouter;
  let client: OpenAI;

  beforeAll(async () => {
    fakes = await startFakes();
    router = await startTestRouter({ patch: { providers: pointProvidersAt(fakes.urls) } });
    client = sdkClient(router, (await router.createAccount('pro', { providerKeys: { ...PROVIDER_KEYS } })).key);
  });
  afterEach(() => fakes.reset());
  afterAll(async () => {
    await router.close();
    await fakes.close();
  });

  it('answers router/fusion from one upstream of its first tier, and fails over to the next tier', async () => {
    const first = await client.chat.completions.create({ model: 'router/fusion', messages: [{ role: 'user', content: 'hi' }] }).withResponse();
    expect(first.data.model).toBe('router/fusion');
    expect(['anthropic', 'openai']).toContain(first.response.headers.get('x-router-upstream'));
    expect(fakes.anthropic.requests.length + fakes.openai.requests.length).toBe(1);

    fakes.reset();
    fakes.anthropic.failAlways({ kind: 'status', status: 503 });
    fakes.openai.failAlways({ kind: 'status', status: 503 });
    const failedOver = await client.chat.completions.create({ model: 'router/fusion', messages: [{ role: 'user', content: 'hi' }] }).withResponse();
    expect(failedOver.response.headers.get('x-router-upstream')).toBe('gemini');
    expect(failedOver.response.headers.get('x-router-retry-count')).toBe('2');
  });

  it.each(['openai', 'anthropic'] as const)('accepts the router:fusion tool and sends the %s upstream only the other tools', async (provider) => {
    const other = provider === 'openai' ? 'anthropic' : 'openai';
    fakes[other].failAlways({ kind: 'status', status: 503 });
    const reply = await client.chat.completions.create({ model: 'router/fusion', messages: [{ role: 'user', content: 'hi' }], tools: [FUSION_TOOL, WEATHER_TOOL] });
    expect(reply.choices[0]?.message.content).toBeTruthy();
    const sent = fakes[provider].requests.at(-1)?.body as { tools?: Array<{ type?: string; name?: string; function?: { name: string } }> };
    expect(sent.tools?.map((tool) => tool.function?.name ?? tool.name)).toEqual(['get_weather']);
    expect(JSON.stringify(sent)).not.toContain('router:fusion');
  });

  it('accepts the router:fusion tool on the native Responses route and does not send it upstream', async () => {
    fakes.anthropic.failAlways({ kind: 'status', status: 503 });
    const response = await client.responses.create({ model: 'router/fusion', input: 'hi', tools: [FUSION_TOOL] });
    expect(response.status).toBe('completed');
    const sent = fakes.openai.requests.at(-1)?.body as Record<string, unknown>;
    expect(sent.input).toBe('hi');
    expect(JSON.stringify(sent)).not.toContain('router:fusion');
  });
});
