import type OpenAI from 'openai';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  PROVIDER_KEYS,
  frontierOrder,
  json,
  manualClock,
  pointProvidersAt,
  postV1,
  sdkClient,
  startFakes,
  startTestRouter,
  type Fakes,
  waitFor,
  type TestRouter,
} from './router-harness.js';

const HELLO = { model: 'router/frontier', messages: [{ role: 'user' as const, content: 'Say hello' }] };
const COOLDOWN_MS = 500;

describe('circuit breakers per provider (threshold 2, cool-down 500 ms)', () => {
  let fakes: Fakes;
  let router: TestRouter;
  let client: OpenAI;
  let key: string;
  let clock: ReturnType<typeof manualClock>;

  const servedBy = async (): Promise<[upstream: string | null, retries: string | null]> => {
    const { response } = await client.chat.completions.create(HELLO).withResponse();
    return [response.headers.get('x-router-upstream'), response.headers.get('x-router-retry-count')];
  };
  const circuitOf = async (provider: string): Promise<string> => {
    const status = await json(await fetch(`${router.url}/status`, { headers: { 'user-agent': 'router-tests/1.0' } }));
    return status.providers.find((entry: { provider: string }) => entry.provider === provider).state;
  };
  /** Two failed attempts in a row open openai's circuit; anthropic serves both requests. */
  const openOpenAICircuit = async () => {
    fakes.openai.failNext({ kind: 'status', status: 503 }, 2);
    expect(await servedBy()).toEqual(['anthropic', '1']);
    expect(await circuitOf('openai')).toBe('closed');
    expect(await servedBy()).toEqual(['anthropic', '1']);
    expect(await circuitOf('openai')).toBe('open');
    expect(fakes.openai.requests).toHaveLength(2);
  };

  beforeAll(async () => {
    fakes = await startFakes();
  });
  beforeEach(async () => {
    // A fresh router per test: circuit state lives in the instance.
    clock = manualClock();
    router = await startTestRouter({
      clock,
      patch: {
        providers: pointProvidersAt(fakes.urls, (doc) => void (doc.circuitBreaker = { failureThreshold: 2, cooldownMs: COOLDOWN_MS })),
        routes: frontierOrder(['openai', 'anthropic', 'gemini']),
      },
    });
    key = (await router.createAccount('pro', { providerKeys: { ...PROVIDER_KEYS } })).key;
    client = sdkClient(router, key);
  });
  afterEach(async () => {
    await router.close();
    fakes.reset();
  });
  afterAll(async () => {
    await fakes.close();
  });

  it('opens after two failures in a row and skips the provider without a retry', async () => {
    await openOpenAICircuit();
    // Skipped, not tried: no request reaches openai and nothing counts as a retry.
    expect(await servedBy()).toEqual(['anthropic', '0']);
    expect(fakes.openai.requests).toHaveLength(2);
    expect(await circuitOf('anthropic')).toBe('closed');
  });

  it('lets one probe through after the cool-down; its success closes the circuit', async () => {
    await openOpenAICircuit();
    clock.advance(COOLDOWN_MS - 1);
    expect(await servedBy()).toEqual(['anthropic', '0']);
    clock.advance(1);
    expect(await circuitOf('openai')).toBe('half_open');
    expect(await servedBy()).toEqual(['openai', '0']);
    expect(fakes.openai.requests).toHaveLength(3);
    expect(await circuitOf('openai')).toBe('closed');
  });

  it('lets only one probe through at a time: a concurrent request skips the half-open provider', async () => {
    await openOpenAICircuit();
    clock.advance(COOLDOWN_MS);
    fakes.openai.failNext({ kind: 'slow-first-byte', delayMs: 300 });
    const probe = servedBy();
    await waitFor(() => fakes.openai.requests.length === 3);
    expect(await servedBy()).toEqual(['anthropic', '0']);
    expect(await probe).toEqual(['openai', '0']);
    expect(fakes.openai.requests).toHaveLength(3);
    expect(await circuitOf('openai')).toBe('closed');
  });

  it('opens again at once when the probe fails', async () => {
    await openOpenAICircuit();
    clock.advance(COOLDOWN_MS);
    fakes.openai.failNext({ kind: 'status', status: 500 });
    expect(await servedBy()).toEqual(['anthropic', '1']);
    expect(await circuitOf('openai')).toBe('open');
    expect(await servedBy()).toEqual(['anthropic', '0']);
    expect(fakes.openai.requests).toHaveLength(3);
  });

  it('does not count a 400 (the client fault) as a provider failure', async () => {
    fakes.openai.failNext({ kind: 'status', status: 400 }, 3);
    for (let i = 0; i < 3; i++) {
      expect((await postV1(router, key, '/chat/completions', HELLO)).status).toBe(400);
    }
    expect(await circuitOf('openai')).toBe('closed');
    expect(await servedBy()).toEqual(['openai', '0']);
  });

  it('answers 502 with circuit_open attempts when every usable provider is open, sending nothing upstream', async () => {
    const { key: openaiOnly } = await router.createAccount('pro', { providerKeys: { openai: PROVIDER_KEYS.openai } });
    await openOpenAICircuit();
    const response = await postV1(router, openaiOnly, '/chat/completions', HELLO);
    expect(response.status).toBe(502);
    expect(response.headers.get('x-router-retry-count')).toBe('0');
    const { error } = await json(response);
    expect(error.code).toBe('all_upstreams_failed');
    expect(error.attempts).toEqual([{ provider: 'openai', model: 'gpt-4.1', status: null, error: 'circuit_open', latencyMs: 0, skipped: true }]);
    expect(fakes.openai.requests).toHaveLength(2);
  });
});
