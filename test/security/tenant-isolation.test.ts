/**
 * A free account cannot change what another account observes. Bodies that pass the request schema but
 * that no translator could send get the contract's 400 naming the field, cost nothing upstream, and
 * never count against a provider's circuit, so the next account is still served by that provider. Nor
 * does an account's own provider key that the provider rejects: that key's circuit opens, not the provider's.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  PROVIDER_KEYS,
  frontierOrder,
  json,
  pointProvidersAt,
  postV1,
  sdkClient,
  startFakes,
  startTestRouter,
  waitFor,
  type Fakes,
  type ProviderId,
  type TestRouter,
} from '../e2e/router-harness.js';
import { createUpstreamClient, type UpstreamClient } from '../../src/upstream/upstream-client.js';

/** `{"a":{"a":…}}` nested `depth` levels, built as text (JSON.stringify itself would overflow the stack). */
function deeplyNested(depth: number): string {
  return '{"a":'.repeat(depth) + '1' + '}'.repeat(depth);
}

const HI = [{ role: 'user', content: 'hi' }];

interface Hostile {
  name: string;
  provider: ProviderId;
  /** The raw body text (some are not expressible as a JS object literal). */
  body: string;
  /** The field the 400 names; null when the body is fine after all and must simply be served. */
  param: string | null;
  endpoint?: string;
}

const HOSTILE: Hostile[] = [
  {
    name: 'metadata nested 100 000 levels deep',
    provider: 'gemini',
    body: `{"model":"router/frontier","messages":${JSON.stringify(HI)},"metadata":${deeplyNested(100_000)}}`,
    param: 'metadata',
  },
  {
    name: 'a function tool without its function, to Gemini',
    provider: 'gemini',
    body: JSON.stringify({ model: 'router/frontier', messages: HI, tools: [{ type: 'function' }] }),
    param: 'tools[0].function',
  },
  {
    name: 'tool_choice null with a tool, to Anthropic',
    provider: 'anthropic',
    body: JSON.stringify({ model: 'router/frontier', messages: HI, tools: [{ type: 'function', function: { name: 'f' } }], tool_choice: null }),
    param: null,
  },
  {
    name: 'tool_choice naming no function, to Anthropic',
    provider: 'anthropic',
    body: JSON.stringify({ model: 'router/frontier', messages: HI, tools: [{ type: 'function', function: { name: 'f' } }], tool_choice: { type: 'function' } }),
    param: 'tool_choice.function',
  },
  {
    name: 'response_format null, to Gemini',
    provider: 'gemini',
    body: JSON.stringify({ model: 'router/frontier', messages: HI, response_format: null }),
    param: null,
  },
  {
    name: 'an image part without its image_url, to Anthropic',
    provider: 'anthropic',
    body: JSON.stringify({ model: 'router/frontier', messages: [{ role: 'user', content: [{ type: 'image_url' }] }] }),
    param: 'messages[0].content[0].image_url',
  },
  {
    name: 'a Responses function_call without arguments, to Anthropic',
    provider: 'anthropic',
    endpoint: '/responses',
    body: JSON.stringify({ model: 'router/frontier', input: [{ type: 'function_call', call_id: 'c1', name: 'f' }] }),
    param: 'input[0].arguments',
  },
  {
    name: 'allowed_tools whose tools are not a list, to Gemini',
    provider: 'gemini',
    endpoint: '/responses',
    body: JSON.stringify({
      model: 'router/frontier',
      input: 'hi',
      tools: [{ type: 'function', name: 'f' }],
      tool_choice: { type: 'allowed_tools', mode: 'auto', tools: 'f' },
    }),
    param: 'tool_choice.tools',
  },
];

for (const provider of ['anthropic', 'gemini'] as const) {
  describe(`hostile bodies on a route that goes to ${provider}`, () => {
    let fakes: Fakes;
    let router: TestRouter;
    let attacker: { key: string };
    let bystander: { key: string };
    const logLines = (): string[] => (router.server.runtime.logger as unknown as { lines: string[] }).lines;

    beforeAll(async () => {
      fakes = await startFakes();
      router = await startTestRouter({ patch: { providers: pointProvidersAt(fakes.urls), routes: frontierOrder([provider]) } });
      attacker = await router.createAccount('free', { providerKeys: { ...PROVIDER_KEYS } });
      bystander = await router.createAccount('pro', { providerKeys: { ...PROVIDER_KEYS } });
    });
    afterEach(() => fakes.reset());
    afterAll(async () => {
      await router.close();
      await fakes.close();
    });

    for (const hostile of HOSTILE.filter((h) => h.provider === provider)) {
      const outcome = hostile.param === null ? 'served' : `a 400 naming ${hostile.param}`;
      it(`${hostile.name}: ${outcome}, six times over, and the next account is still served by ${provider}`, async () => {
        for (let i = 0; i < 6; i++) {
          const response = await fetch(`${router.baseURL}${hostile.endpoint ?? '/chat/completions'}`, {
            method: 'POST',
            headers: { authorization: `Bearer ${attacker.key}`, 'content-type': 'application/json', 'user-agent': 'router-tests/1.0' },
            body: hostile.body,
          });
          const body = await json(response);
          if (hostile.param === null) {
            expect(response.status, JSON.stringify(body)).toBe(200);
          } else {
            expect(response.status).toBe(400);
            expect(body.error).toMatchObject({ type: 'invalid_request_error', param: hostile.param });
          }
        }
        // A refused body never reached the provider; whatever happened, the circuit did not move.
        if (hostile.param !== null) expect(fakes[provider].requests).toHaveLength(0);
        const status = await json(await fetch(`${router.url}/status`));
        expect(status.providers.find((p: { provider: string }) => p.provider === provider)).toMatchObject({ state: 'closed' });

        const served = await postV1(router, bystander.key, '/chat/completions', { model: 'router/frontier', messages: HI });
        expect(served.status).toBe(200);
        expect(served.headers.get('x-router-upstream')).toBe(provider);
        expect(logLines().filter((line) => /unexpected error|\n\s+at /.test(line))).toEqual([]);
      });
    }
  });
}

describe("an account's own provider key that the provider rejects", () => {
  // The shipped breaker: five failures in a row open a circuit for 30 s.
  const BAD_KEY = 'sk-test-openai-revoked-0000';
  let fakes: Fakes;
  let router: TestRouter;
  let attacker: { key: string };
  let bystander: { key: string };
  const usedKey = (request: { headers: Record<string, unknown> }) => String(request.headers.authorization).replace(/^Bearer /, '');

  beforeAll(async () => {
    fakes = await startFakes();
    router = await startTestRouter({ patch: { providers: pointProvidersAt(fakes.urls), routes: frontierOrder(['openai', 'anthropic']) } });
    fakes.openai.rejectKey(BAD_KEY);
    attacker = await router.createAccount('free', { providerKeys: { openai: BAD_KEY } });
    // Only an OpenAI key: before circuits were keyed by credential, the attacker's 401s left it nothing.
    bystander = await router.createAccount('pro', { providerKeys: { openai: PROVIDER_KEYS.openai } });
  });
  afterAll(async () => {
    await router.close();
    await fakes.close();
  });

  it("fails that account only: another account's valid key is served every time, and /status never shows the provider down", async () => {
    const attackerAnswers: any[] = [];
    for (let round = 0; round < 12; round++) {
      const attacked = await postV1(router, attacker.key, '/chat/completions', { model: 'router/frontier', messages: HI });
      expect(attacked.status).toBe(502);
      attackerAnswers.push((await json(attacked)).error);

      const served = await postV1(router, bystander.key, '/chat/completions', { model: 'router/frontier', messages: HI });
      expect(served.status, `round ${round}`).toBe(200);
      expect(served.headers.get('x-router-upstream')).toBe('openai');
      expect(served.headers.get('x-router-retry-count')).toBe('0');
      const status = await json(await fetch(`${router.url}/status`));
      expect(status.providers.find((p: { provider: string }) => p.provider === 'openai')).toMatchObject({ state: 'closed', recentSuccessRate: 1 });
    }
    const streamed = await sdkClient(router, bystander.key).chat.completions.create({ model: 'router/frontier', messages: [{ role: 'user', content: 'hi' }], stream: true });
    let text = '';
    for await (const chunk of streamed) text += chunk.choices[0]?.delta.content ?? '';
    expect(text).not.toBe('');

    // The rejected key was tried until its own circuit opened, then skipped: it stops costing the provider requests.
    expect(fakes.openai.requests.filter((request) => usedKey(request) === BAD_KEY)).toHaveLength(5);
    expect(attackerAnswers[0].attempts).toEqual([{ provider: 'openai', model: 'gpt-4.1', status: 401, error: 'invalid_api_key', latencyMs: expect.any(Number) }]);
    expect(attackerAnswers[11].attempts).toEqual([{ provider: 'openai', model: 'gpt-4.1', status: null, error: 'credential_rejected', latencyMs: 0, skipped: true }]);
    expect(attackerAnswers[11].skipped).toEqual([
      { provider: 'openai', reason: 'credential_rejected' },
      { provider: 'anthropic', reason: 'no_credential' },
    ]);
    expect(attackerAnswers[11].message).toMatch(/Retrying will not help: the provider rejected the key/);
  });
});

describe('an unexpected exception inside the router', () => {
  let router: TestRouter;
  let account: { key: string };
  let failing = true;
  const logLines = (): string[] => (router.server.runtime.logger as unknown as { lines: string[] }).lines;

  beforeAll(async () => {
    const fakes = await startFakes();
    const real = createUpstreamClient({ connectionsPerProvider: 16 });
    // A router bug on the send path (the fakes are never reached while it is on).
    const buggy: UpstreamClient = {
      send: (provider, request, signal) => (failing ? Promise.reject(new TypeError("Cannot read properties of undefined (reading 'url')")) : real.send(provider, request, signal)),
      close: async () => {
        await real.close();
        await fakes.close();
      },
    };
    router = await startTestRouter({
      patch: {
        providers: pointProvidersAt(fakes.urls, (doc) => void (doc.circuitBreaker = { failureThreshold: 1, cooldownMs: 60_000 })),
        routes: frontierOrder(['openai', 'anthropic']),
      },
      build: { upstreamClient: buggy },
    });
    account = await router.createAccount('free', { providerKeys: { ...PROVIDER_KEYS } });
  });
  afterAll(async () => {
    await router.close();
  });

  it('is a 500 internal_error logged once with the request id, refunded, and never counted against a provider', async () => {
    const response = await postV1(router, account.key, '/chat/completions', { model: 'router/frontier', messages: HI });
    expect(response.status).toBe(500);
    expect((await json(response)).error).toMatchObject({ type: 'server_error', code: 'internal_error' });
    expect(response.headers.get('x-quota-used')).toBe('0');
    const requestId = response.headers.get('x-request-id')!;
    const failures = logLines().filter((line) => line.includes('router failure'));
    expect(failures).toHaveLength(1);
    expect(failures[0]).toContain(requestId);
    expect(failures[0]).toContain("TypeError: Cannot read properties of undefined (reading 'url')");
    const status = await json(await fetch(`${router.url}/status`));
    for (const provider of status.providers) expect(provider).toMatchObject({ state: 'closed', recentRequests: 0 });

    failing = false;
    const served = await postV1(router, account.key, '/chat/completions', { model: 'router/frontier', messages: HI });
    expect(served.status).toBe(200);
    expect(served.headers.get('x-router-upstream')).toBe('openai');
  });
});

describe('a noisy neighbour: one account holding its whole in-flight cap of slow requests', () => {
  const CAP = 5;
  let fakes: Fakes;
  let router: TestRouter;

  beforeAll(async () => {
    fakes = await startFakes();
    router = await startTestRouter({
      patch: {
        plans: (doc) => void doc.plans.forEach((plan: { maxConcurrentRequests: number }) => (plan.maxConcurrentRequests = CAP)),
        providers: pointProvidersAt(fakes.urls),
        routes: frontierOrder(['openai', 'anthropic']),
      },
    });
  });
  afterAll(async () => {
    await router.close();
    await fakes.close();
  });

  it('gets exactly its cap served and the rest refused, while another account of the same plan is answered at once', async () => {
    // The noisy account has only an Anthropic key, whose (fake) answers take a second; the quiet one's go to OpenAI.
    const noisy = await router.createAccount('max', { providerKeys: { anthropic: PROVIDER_KEYS.anthropic } });
    const quiet = await router.createAccount('max', { providerKeys: { openai: PROVIDER_KEYS.openai } });
    fakes.anthropic.setReply({ latencyMs: 1000 });
    const held = Array.from({ length: 3 * CAP }, () => postV1(router, noisy.key, '/chat/completions', { model: 'router/frontier', messages: HI }));
    await waitFor(() => fakes.anthropic.requests.length === CAP);
    const latencies: number[] = [];
    for (let i = 0; i < 10; i++) {
      const started = performance.now();
      const response = await postV1(router, quiet.key, '/chat/completions', { model: 'router/frontier', messages: HI });
      expect(response.status).toBe(200);
      latencies.push(performance.now() - started);
    }
    // Answered while the neighbour's requests were all still running (each takes a whole second).
    expect(fakes.anthropic.requests).toHaveLength(CAP);
    expect(Math.max(...latencies)).toBeLessThan(500);
    const codes = await Promise.all(held.map(async (response) => (await json(await response)).error?.code ?? 'served'));
    expect(codes.filter((code) => code === 'served')).toHaveLength(CAP);
    expect(codes.filter((code) => code === 'concurrency_limit_exceeded')).toHaveLength(2 * CAP);
  });
});

describe('neighbours at their caps on the same provider, together past the 256 connections its pool once had', () => {
  const CAP = 150;
  const HELD = 2 * CAP;
  let fakes: Fakes;
  let router: TestRouter;
  const stop = new AbortController();

  beforeAll(async () => {
    fakes = await startFakes();
    router = await startTestRouter({
      patch: {
        plans: (doc) => void doc.plans.forEach((plan: { maxConcurrentRequests: number }) => (plan.maxConcurrentRequests = CAP)),
        // Held requests must not time out (and open the circuit) while the rest are still being sent on a busy machine.
        providers: pointProvidersAt(fakes.urls, (doc) => doc.providers.forEach((provider: { timeouts: { firstByteMs: number } }) => (provider.timeouts.firstByteMs = 60_000))),
        routes: frontierOrder(['openai']),
      },
    });
  });
  afterAll(async () => {
    stop.abort();
    await router.close();
    await fakes.close();
  });

  it('leaves a third account its latency: the upstream pool is not the queue the accounts share', async () => {
    const noisy = [await router.createAccount('max', { providerKeys: { openai: PROVIDER_KEYS.openai } }), await router.createAccount('max', { providerKeys: { openai: PROVIDER_KEYS.openai } })];
    const quiet = await router.createAccount('max', { providerKeys: { openai: PROVIDER_KEYS.openai } });
    // Every one of the neighbours' requests is held open by the provider, each on its own connection.
    fakes.openai.failNext({ kind: 'hang' }, HELD);
    const held = noisy.flatMap((account) =>
      Array.from({ length: CAP }, () =>
        fetch(`${router.baseURL}/chat/completions`, {
          method: 'POST',
          signal: stop.signal,
          headers: { authorization: `Bearer ${account.key}`, 'content-type': 'application/json', 'user-agent': 'router-tests/1.0' },
          body: JSON.stringify({ model: 'router/frontier', messages: HI }),
        }).catch(() => undefined),
      ),
    );
    await waitFor(() => fakes.openai.requests.length === HELD, 15_000);
    for (let i = 0; i < 5; i++) {
      const started = performance.now();
      const response = await postV1(router, quiet.key, '/chat/completions', { model: 'router/frontier', messages: HI });
      const answer = await response.text();
      expect(response.status, answer).toBe(200);
      expect(performance.now() - started).toBeLessThan(1000);
    }
    stop.abort();
    await Promise.all(held);
  });
});
