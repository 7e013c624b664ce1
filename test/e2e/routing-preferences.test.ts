/**
 * The `provider` object, model suffixes, measured ranking and concrete models, through the official
 * SDK (extra fields ride in the body as `extra_body` does in Python) against one route over three fakes
 * that differ in latency, price and data policy.
 */
import Anthropic from '@anthropic-ai/sdk';
import OpenAI, { type APIError } from 'openai';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startOpenAIFake, type OpenAIFake } from '../fakes/openai-fake.js';
import { json, sdkClient, startTestRouter, type TestRouter } from './router-harness.js';

const IDS = ['p-fast', 'p-cheap', 'p-private'] as const;
type Id = (typeof IDS)[number];
const POLICY: Record<Id, object> = {
  'p-fast': { trainsOnPrompts: true, retentionDays: 30, region: 'us' },
  'p-cheap': { trainsOnPrompts: false, retentionDays: 30, region: 'us' },
  'p-private': { trainsOnPrompts: false, retentionDays: 0, region: 'eu' },
};
const PRICE: Record<Id, { input: number; output: number }> = { 'p-fast': { input: 5, output: 20 }, 'p-cheap': { input: 0.5, output: 1 }, 'p-private': { input: 2, output: 8 } };
/** p-fast serves an open model without tool calling or JSON mode: what provider.require_parameters filters on. */
const UNSUPPORTED: Partial<Record<Id, string[]>> = { 'p-fast': ['tools', 'response_format'] };
const WEATHER = { type: 'function' as const, function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } } };
const HELLO = { model: 'router/frontier', messages: [{ role: 'user' as const, content: 'Say hello' }] };

describe('provider preferences over three fakes of different latency, price and policy', () => {
  const fakes = {} as Record<Id, OpenAIFake>;
  let router: TestRouter;
  let client: OpenAI;
  let key: string;

  beforeAll(async () => {
    for (const id of IDS) fakes[id] = await startOpenAIFake({ name: id });
    router = await startTestRouter({
      patch: {
        providers: (doc) => {
          doc.providers = IDS.map((id) => ({
            id,
            name: id,
            format: 'openai',
            baseUrl: fakes[id].baseUrl,
            streamUsage: true,
            timeouts: { connectMs: 1000, firstByteMs: 3000, idleMs: 3000 },
            prices: { m: PRICE[id], 'm-measured': PRICE[id] },
            policy: POLICY[id],
            ...(UNSUPPORTED[id] ? { unsupportedParameters: UNSUPPORTED[id] } : {}),
          }));
          doc.circuitBreaker = { failureThreshold: 1000, cooldownMs: 1000 };
        },
        routes: (doc) => {
          const frontier = doc.routes.find((route: { id: string }) => route.id === 'router/frontier');
          frontier.tiers = IDS.map((provider) => [{ provider, model: 'm' }]);
          // Its own model name, so its figures hold only the measured-routing test's answers, whatever ran before.
          doc.routes.push({ id: 'router/measured', family: 'frontier', description: 'ranked by TTFB', quotaWeight: 1, retryBudget: 2, order: 'measured', tiers: [IDS.map((provider) => ({ provider, model: 'm-measured' }))] });
          doc.routes = doc.routes.filter((route: { id: string }) => route.id !== 'router/fusion');
          doc.aliases = [];
        },
        plans: (doc) => {
          for (const plan of doc.plans) plan.routeProfiles = ['router/frontier', 'router/measured'];
          doc.plans.find((plan: { id: string }) => plan.id === 'free').models = { allow: ['*'], deny: ['acme/*'] };
        },
        catalog: (doc) => {
          doc.families = doc.families.filter((family: { id: string }) => family.id !== 'fusion');
          doc.models = [];
          doc.concreteModels = [{ id: 'acme/m-1', name: 'M 1', contextLength: 128000, created: 1750000000, endpoints: [{ provider: 'p-cheap', model: 'm' }, { provider: 'p-private', model: 'm' }] }];
        },
      },
    });
    key = (await router.createAccount('pro', { providerKeys: { 'p-fast': 'sk-fast-0001', 'p-cheap': 'sk-cheap-0002', 'p-private': 'sk-private-0003' } })).key;
    client = sdkClient(router, key);
  });
  afterEach(() => IDS.forEach((id) => fakes[id].reset()));
  afterAll(async () => {
    await router.close();
    await Promise.all(IDS.map((id) => fakes[id].close()));
  });

  async function servedBy(provider: object | undefined, model = 'router/frontier', apiClient = client): Promise<string | null> {
    const body = { ...HELLO, model, ...(provider ? { provider } : {}) } as OpenAI.ChatCompletionCreateParamsNonStreaming;
    const { response } = await apiClient.chat.completions.create(body).withResponse();
    return response.headers.get('x-router-upstream');
  }

  it.each([
    ['no preferences: the tier order', undefined, 'p-fast'],
    ['order', { order: ['p-private', 'p-cheap'] }, 'p-private'],
    ['only', { only: ['p-cheap'] }, 'p-cheap'],
    ['ignore', { ignore: ['p-fast'] }, 'p-cheap'],
    ['sort: price', { sort: 'price' }, 'p-cheap'],
    ['max_price below the fast one', { max_price: { prompt: 3, completion: 10 } }, 'p-cheap'],
    ['data_collection: deny', { data_collection: 'deny' }, 'p-cheap'],
    ['zdr', { zdr: true }, 'p-private'],
    ['order + ignore + max_price combined', { order: ['p-private'], ignore: ['p-cheap'], max_price: { completion: 10 } }, 'p-private'],
    ['sort: price with data_collection: deny and no fallbacks', { sort: 'price', data_collection: 'deny', allow_fallbacks: false }, 'p-cheap'],
  ])('%s', async (_name, provider, expected) => {
    expect(await servedBy(provider)).toBe(expected);
    // The provider object never reaches an upstream.
    const sent = IDS.flatMap((id) => fakes[id].requests).map((request) => request.body);
    expect(sent).toHaveLength(1);
    expect(sent[0]).not.toHaveProperty('provider');
  });

  it('allow_fallbacks: false with the only allowed provider failing is a 502, and no other provider is asked', async () => {
    fakes['p-fast'].failNext({ kind: 'status', status: 503 });
    const error = await client.chat.completions.create({ ...HELLO, provider: { order: ['p-fast'], allow_fallbacks: false } } as never).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.APIError);
    expect((error as APIError).status).toBe(502);
    expect([fakes['p-fast'].requests.length, fakes['p-cheap'].requests.length, fakes['p-private'].requests.length]).toEqual([1, 0, 0]);
  });

  it('zdr with no compliant provider is a 400 naming the field, before admission: nothing sent, nothing counted', async () => {
    const before = await client.chat.completions.create(HELLO).withResponse();
    const used = Number(before.response.headers.get('x-quota-used'));
    const error = (await client.chat.completions.create({ ...HELLO, provider: { only: ['p-fast', 'p-cheap'], zdr: true } } as never).catch((e: unknown) => e)) as APIError;
    expect(error.status).toBe(400);
    expect((error.error as { param: string }).param).toBe('provider.zdr');
    expect(error.message).toContain('not sent to any provider that does not meet its data policy');
    const after = await client.chat.completions.create(HELLO).withResponse();
    expect(Number(after.response.headers.get('x-quota-used'))).toBe(used + 1);
    expect(IDS.flatMap((id) => fakes[id].requests)).toHaveLength(2);
  });

  it.each([
    [{ only: ['nobody'] }, 'provider.only'],
    [{ order: ['p-cheap'], ignore: ['p-cheap'] }, 'provider.order'],
    [{ sort: 'fastest' }, 'provider.sort'],
    [{ max_price: { prompt: -1 } }, 'provider.max_price.prompt'],
    [{ quantizations: ['fp8'] }, 'provider.quantizations'],
  ])('refuses %j with a 400 naming %s', async (provider, param) => {
    const error = (await client.chat.completions.create({ ...HELLO, provider } as never).catch((e: unknown) => e)) as APIError;
    expect(error.status).toBe(400);
    expect((error.error as { param: string }).param).toBe(param);
  });

  it(':floor serves the cheapest; :nitro is accepted and the response names the profile', async () => {
    expect(await servedBy(undefined, 'router/frontier:floor')).toBe('p-cheap');
    const completion = await client.chat.completions.create({ ...HELLO, model: 'router/frontier:nitro' });
    expect(completion.model).toBe('router/frontier');
  });

  it('Responses requests take the provider object too', async () => {
    const { response } = await client.responses.create({ model: 'router/frontier', input: 'Say hello', provider: { only: ['p-private'] } } as never).withResponse();
    expect(response.headers.get('x-router-upstream')).toBe('p-private');
  });

  it('sort: latency follows the measured time to first byte, also after the latencies change', async () => {
    // Far apart, so a loaded machine's own delays (a cold first request, a busy core) cannot reorder them.
    fakes['p-fast'].setReply({ latencyMs: 500 });
    fakes['p-cheap'].setReply({ latencyMs: 5 });
    fakes['p-private'].setReply({ latencyMs: 250 });
    const served: Array<string | null> = [];
    for (let i = 0; i < 6; i++) served.push(await servedBy({ sort: 'latency' }, 'router/measured'));
    // Each unmeasured candidate is tried first once; then the fastest leads.
    expect(served.slice(3)).toEqual(['p-cheap', 'p-cheap', 'p-cheap']);
    fakes['p-cheap'].setReply({ latencyMs: 800 });
    // The moving average must cross the 20 % hysteresis; how many slow answers that takes depends on how
    // loaded the machine is, so ask until the order turns, bounded by a count no working router needs.
    const after: Array<string | null> = [];
    while (after.length < 30 && after.at(-1) !== 'p-private') after.push(await servedBy({ sort: 'latency' }, 'router/measured'));
    expect(after.at(-1)).toBe('p-private');
    // /status shows the figures the ranking used: p-cheap's time to first byte now above p-private's.
    const status = await json(await fetch(`${router.url}/status`));
    const figuresOf = (provider: string) => status.measured.find((entry: { provider: string; model: string }) => entry.provider === provider && entry.model === 'm-measured');
    expect(figuresOf('p-private')).toMatchObject({ errorRate: 0 });
    expect(figuresOf('p-private').ttfbMs).toBeGreaterThanOrEqual(100);
    expect(figuresOf('p-cheap').ttfbMs).toBeGreaterThan(figuresOf('p-private').ttfbMs);
  }, 45_000);

  it("one account's preferences never change another's routing", async () => {
    const other = sdkClient(router, (await router.createAccount('pro', { providerKeys: { 'p-fast': 'sk-fast-0101', 'p-cheap': 'sk-cheap-0102', 'p-private': 'sk-private-0103' } })).key);
    for (let i = 0; i < 3; i++) expect(await servedBy({ only: ['p-private'] })).toBe('p-private');
    expect(await servedBy(undefined, 'router/frontier', other)).toBe('p-fast');
  });

  it('a concrete model is served by the providers that serve it, with failover, and listed in /v1/models', async () => {
    fakes['p-cheap'].failNext({ kind: 'status', status: 503 });
    const { data, response } = await client.chat.completions.create({ ...HELLO, model: 'acme/m-1' }).withResponse();
    expect(response.headers.get('x-router-upstream')).toBe('p-private');
    expect(response.headers.get('x-router-retry-count')).toBe('1');
    expect(data.model).toBe('acme/m-1');
    const listed = (await client.models.list()).data.find((model) => model.id === 'acme/m-1') as unknown as Record<string, unknown>;
    expect(listed).toMatchObject({
      object: 'model',
      created: 1750000000,
      owned_by: 'acme',
      context_length: 128000,
      pricing: { prompt: '0.0000005', completion: '0.000001' },
    });
    expect(listed.supported_parameters).toContain('tools');
  });

  it('a plan that denies a concrete model gets 403 and does not list it', async () => {
    const free = sdkClient(router, (await router.createAccount('free', { providerKeys: { 'p-cheap': 'sk-cheap-0202' } })).key);
    const error = (await free.chat.completions.create({ ...HELLO, model: 'acme/m-1' }).catch((e: unknown) => e)) as APIError;
    expect(error.status).toBe(403);
    expect((error.error as { code: string }).code).toBe('plan_upgrade_required');
    expect((await free.models.list()).data.map((model) => model.id)).not.toContain('acme/m-1');
  });

  describe('require_parameters', () => {
    it('with tools skips the provider that cannot honour them; without it the tier order stands', async () => {
      const tools = { ...HELLO, tools: [WEATHER] } as OpenAI.ChatCompletionCreateParamsNonStreaming;
      const pinned = await client.chat.completions.create({ ...tools, provider: { require_parameters: true } } as never).withResponse();
      expect(pinned.response.headers.get('x-router-upstream')).toBe('p-cheap');
      expect(fakes['p-fast'].requests).toHaveLength(0);
      // Another tool list: a different prompt prefix, so prompt caching's stickiness does not carry p-cheap over.
      const other = { ...tools, tools: [{ ...WEATHER, function: { ...WEATHER.function, name: 'get_time' } }] };
      const loose = await client.chat.completions.create(other).withResponse();
      expect(loose.response.headers.get('x-router-upstream')).toBe('p-fast');
    });

    it('with response_format and only the provider that cannot honour it: a 400 naming the field, nothing sent', async () => {
      const error = (await client.chat.completions
        .create({ ...HELLO, response_format: { type: 'json_object' }, provider: { only: ['p-fast'], require_parameters: true } } as never)
        .catch((e: unknown) => e)) as APIError;
      expect(error.status).toBe(400);
      expect((error.error as { param: string }).param).toBe('provider.require_parameters');
      expect(error.message).toContain('p-fast (provider.require_parameters');
      expect(IDS.flatMap((id) => fakes[id].requests)).toHaveLength(0);
    });

    it('a request setting none of the refused parameters still goes to that provider', async () => {
      expect(await servedBy({ only: ['p-fast'], require_parameters: true })).toBe('p-fast');
    });

    it('/v1/models leaves a refused parameter out of supported_parameters only where no endpoint honours it', async () => {
      const listed = (await client.models.list()).data.find((model) => model.id === 'acme/m-1') as unknown as { supported_parameters: string[] };
      expect(listed.supported_parameters).toEqual(expect.arrayContaining(['tools', 'response_format']));
    });
  });

  describe('on /v1/messages through the official Anthropic SDK (the provider object as an extra body field)', () => {
    const anthropic = () => new Anthropic({ apiKey: key, baseURL: router.url, maxRetries: 0 });
    const MESSAGE = { model: 'router/frontier', max_tokens: 64, messages: [{ role: 'user' as const, content: 'Say hello' }] };

    it('only, order and sort: price pick the provider, and the provider object never reaches the upstream', async () => {
      for (const [provider, expected] of [
        [{ only: ['p-private'] }, 'p-private'],
        [{ order: ['p-cheap', 'p-private'] }, 'p-cheap'],
        [{ sort: 'price', ignore: ['p-cheap'] }, 'p-private'],
      ] as const) {
        const { data, response } = await anthropic().messages.create({ ...MESSAGE, provider } as never).withResponse();
        expect(response.headers.get('x-router-upstream')).toBe(expected);
        expect((data as Anthropic.Message).type).toBe('message');
      }
      const sent = IDS.flatMap((id) => fakes[id].requests).map((request) => request.body);
      expect(sent).toHaveLength(3);
      for (const body of sent) expect(body).not.toHaveProperty('provider');
    });

    it('a streamed Message follows the preferences too', async () => {
      const stream = anthropic().messages.stream({ ...MESSAGE, provider: { zdr: true } } as never);
      const message = await stream.finalMessage();
      expect(message.stop_reason).toBe('end_turn');
      expect(fakes['p-private'].requests).toHaveLength(1);
      expect(fakes['p-fast'].requests.length + fakes['p-cheap'].requests.length).toBe(0);
    });

    it.each([
      [{ only: ['p-fast', 'p-cheap'], zdr: true }, 'provider.zdr'],
      [{ sort: 'fastest' }, 'provider.sort'],
      [{ only: ['p-fast'], require_parameters: true }, 'provider.require_parameters'],
    ])('refuses %j with a 400 in Anthropic’s error shape naming %s, nothing sent', async (provider, param) => {
      const body = { ...MESSAGE, provider, tools: [{ name: 'get_weather', input_schema: { type: 'object' as const, properties: {} } }] };
      const error = (await anthropic().messages.create(body as never).catch((e: unknown) => e)) as InstanceType<typeof Anthropic.APIError>;
      expect(error).toBeInstanceOf(Anthropic.BadRequestError);
      expect(error.status).toBe(400);
      const wire = error.error as { type: string; error: { type: string; message: string; param: string } };
      expect(wire.type).toBe('error');
      expect(wire.error.type).toBe('invalid_request_error');
      expect(wire.error.param).toBe(param);
      expect(wire.error.message).toContain(param);
      expect(IDS.flatMap((id) => fakes[id].requests)).toHaveLength(0);
    });
  });
});
