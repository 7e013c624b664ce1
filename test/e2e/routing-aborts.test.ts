import OpenAI from 'openai';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  PROVIDER_KEYS,
  frontierOrder,
  pointProvidersAt,
  sdkClient,
  startFakes,
  startTestRouter,
  waitFor,
  type Fakes,
  type ProviderId,
  type TestRouter,
} from './router-harness.js';

const ORDER: Record<ProviderId, ProviderId[]> = {
  openai: ['openai', 'anthropic', 'gemini'],
  anthropic: ['anthropic', 'gemini', 'openai'],
  gemini: ['gemini', 'openai', 'anthropic'],
};
const TEXT: Record<ProviderId, string> = {
  openai: 'Hello from openai-fake: héllo 👋 世界',
  anthropic: 'Hello from the Anthropic fake: héllo 👋 世界',
  gemini: 'Hello from gemini-fake: héllo 👋 世界',
};
/** Long enough, sent a few bytes at a time, that the upstream is still streaming when the client leaves. */
const LONG_TEXT = Array.from({ length: 2000 }, (_, i) => `word${i}`).join(' ');
/** Shorter than the first-byte timeout (1500 ms), far longer than the client waits. */
const SLOW_FIRST_BYTE = { kind: 'slow-first-byte', delayMs: 1400 } as const;

describe.each(['openai', 'anthropic', 'gemini'] as const)('a client that goes away from a %s request', (provider) => {
  let fakes: Fakes;
  let router: TestRouter;
  let client: OpenAI;

  beforeAll(async () => {
    fakes = await startFakes();
    router = await startTestRouter({ patch: { providers: pointProvidersAt(fakes.urls), routes: frontierOrder(ORDER[provider]) } });
    client = sdkClient(router, (await router.createAccount('pro', { providerKeys: { ...PROVIDER_KEYS } })).key);
  });
  afterEach(async () => {
    // Leaving is not an upstream failure: no other candidate was tried.
    for (const other of ORDER[provider].slice(1)) expect(fakes[other].requests).toHaveLength(0);
    fakes.reset();
    // The router stays healthy: the next request is served at once by the same upstream.
    const { data, response } = await client.chat.completions.create({ model: 'router/frontier', messages: [{ role: 'user', content: 'again' }] }).withResponse();
    expect(response.headers.get('x-router-upstream')).toBe(provider);
    expect(response.headers.get('x-router-retry-count')).toBe('0');
    expect(data.choices[0]!.message.content).toBe(TEXT[provider]);
    fakes.reset();
  });
  afterAll(async () => {
    await router.close();
    await fakes.close();
  });

  it.each([
    ['chat', false],
    ['chat', true],
    ['responses', false],
    ['responses', true],
  ] as const)('cancels the upstream when the client aborts a %s request before the first byte (stream: %s)', async (api, stream) => {
    const fake = fakes[provider];
    fake.failNext(SLOW_FIRST_BYTE);
    const controller = new AbortController();
    const options = { signal: controller.signal };
    const pending =
      api === 'chat'
        ? client.chat.completions.create({ model: 'router/frontier', messages: [{ role: 'user', content: 'hi' }], stream }, options)
        : client.responses.create({ model: 'router/frontier', input: 'hi', stream }, options);
    await waitFor(() => fake.requests.length === 1);
    const abortedAt = Date.now();
    controller.abort();
    await expect(pending).rejects.toBeInstanceOf(OpenAI.APIUserAbortError);
    await waitFor(() => fake.abortedRequests === 1, 1000);
    // The upstream learned of it at once, not when its own delay ran out.
    expect(Date.now() - abortedAt).toBeLessThan(SLOW_FIRST_BYTE.delayMs);
  });
});

describe.each(['openai', 'anthropic', 'gemini'] as const)('a client that leaves a %s stream half-way', (provider) => {
  let fakes: Fakes;
  let router: TestRouter;
  let client: OpenAI;

  beforeAll(async () => {
    fakes = await startFakes();
    router = await startTestRouter({ patch: { providers: pointProvidersAt(fakes.urls), routes: frontierOrder(ORDER[provider]) } });
    client = sdkClient(router, (await router.createAccount('pro', { providerKeys: { ...PROVIDER_KEYS } })).key);
  });
  afterEach(() => fakes.reset());
  afterAll(async () => {
    await router.close();
    await fakes.close();
  });

  it('cancels the upstream of a chat stream', async () => {
    fakes[provider].setReply({ text: LONG_TEXT, splitBytes: 4 });
    const controller = new AbortController();
    const stream = await client.chat.completions.create(
      { model: 'router/frontier', messages: [{ role: 'user', content: 'hi' }], stream: true },
      { signal: controller.signal },
    );
    let received = '';
    // The SDK ends the iteration quietly when its own signal aborts it.
    for await (const chunk of stream) {
      received += chunk.choices[0]?.delta.content ?? '';
      if (received.length > 0) controller.abort();
    }
    expect(received.length).toBeGreaterThan(0);
    expect(LONG_TEXT.startsWith(received)).toBe(true);
    expect(received).not.toBe(LONG_TEXT);
    await waitFor(() => fakes[provider].abortedRequests === 1, 1000);
  });

  it('cancels the upstream of a /v1/responses stream', async () => {
    fakes[provider].setReply({ text: LONG_TEXT, splitBytes: 4 });
    const controller = new AbortController();
    const stream = await client.responses.create({ model: 'router/frontier', input: 'hi', stream: true }, { signal: controller.signal });
    let received = '';
    for await (const event of stream) {
      if (event.type === 'response.output_text.delta') received += event.delta;
      if (received.length > 0) controller.abort();
    }
    expect(received.length).toBeGreaterThan(0);
    expect(received).not.toBe(LONG_TEXT);
    await waitFor(() => fakes[provider].abortedRequests === 1, 1000);
    fakes.reset();
    const next = await client.responses.create({ model: 'router/frontier', input: 'again' });
    expect(next.output_text).toBe(TEXT[provider]);
  });
});
