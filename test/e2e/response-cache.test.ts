/**
 * The response cache on one process (docs/caching.md), through the official openai SDK and raw HTTP:
 * a repeat is answered from the cache for chat (JSON and stream), Responses and Messages, with a new
 * request id, cost 0, the original's event stream, and a receipt that points at the original; two
 * accounts never share an entry; a zdr request, an account that forbids retention and a body naming
 * an end user on a no_user_data account are never stored; a plan may leave hits off the monthly count.
 */
import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { PROVIDER_KEYS, frontierOrder, planLimits, pointProvidersAt, readSse, startFakes, startTestRouter, type Fakes, type TestRouter } from './router-harness.js';

const CACHE = { 'X-Router-Cache': 'true' };
const OPENROUTER_CACHE = { 'X-OpenRouter-Cache': 'true' };

describe('response cache on one process', { timeout: 60_000 }, () => {
  let fakes: Fakes;
  let router: TestRouter;
  let alice: { accountId: string; key: string; client: OpenAI };
  let bob: { accountId: string; key: string; client: OpenAI };

  const client = (key: string, headers: Record<string, string> = CACHE) => new OpenAI({ apiKey: key, baseURL: router.baseURL, maxRetries: 0, defaultHeaders: headers });
  const upstreamCalls = () => fakes.openai.requests.length;
  const post = (key: string, path: string, body: object, headers: Record<string, string> = CACHE) =>
    fetch(`${router.baseURL}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'user-agent': 'router-tests/1.0', 'anthropic-version': '2023-06-01', ...headers },
      body: JSON.stringify(body),
    });
  const receipt = async (key: string, id: string) =>
    (await (await fetch(`${router.baseURL}/generation?id=${encodeURIComponent(id)}`, { headers: { 'user-agent': 'router-tests/1.0', authorization: `Bearer ${key}` } })).json()) as { data: any };
  let n = 0;
  const unique = (text: string) => `${text} #${(n += 1)}`;

  beforeAll(async () => {
    fakes = await startFakes();
    router = await startTestRouter({
      patch: {
        providers: pointProvidersAt(fakes.urls, (doc: any) => {
          const openai = doc.providers.find((p: { id: string }) => p.id === 'openai');
          openai.prices['gpt-4.1'] = { input: 2, output: 8 };
          openai.policy = { trainsOnPrompts: false, retentionDays: 0, region: 'us' };
        }),
        routes: frontierOrder(['openai']),
        plans: (doc: any) => {
          planLimits({ pro: { monthlyRequests: 1000, requestsPerMinute: 1000 } })(doc);
          const free = doc.plans.find((plan: { id: string }) => plan.id === 'pro');
          doc.plans.push({ ...free, id: 'hits-free', name: 'Hits free', cacheHitsCountAgainstQuota: false, stripePriceId: undefined });
        },
      },
    });
    const providerKeys = { openai: PROVIDER_KEYS.openai };
    const a = await router.createAccount('pro', { providerKeys });
    const b = await router.createAccount('pro', { providerKeys });
    alice = { ...a, client: client(a.key) };
    bob = { ...b, client: client(b.key) };
  });
  beforeEach(() => fakes.reset());
  afterAll(async () => {
    await router.close();
    await fakes.close();
  });

  it('chat: a repeat is a HIT with a new request id, cost 0, the same answer, and a receipt that points at the original', async () => {
    const body = { model: 'router/frontier', messages: [{ role: 'user' as const, content: unique('What is 2+2?') }], temperature: 0 };
    const first = await alice.client.chat.completions.create(body).withResponse();
    expect(first.response.headers.get('x-router-cache-status')).toBe('MISS');
    expect(first.response.headers.get('x-openrouter-cache-status')).toBe('MISS');
    expect(first.response.headers.get('x-openrouter-cache-ttl')).toBe('300');
    expect(first.data.usage).toMatchObject({ cost: expect.any(Number) });
    expect((first.data.usage as any).cost).toBeGreaterThan(0);
    // The same body with its fields in another order, through OpenRouter's header: one entry.
    const reordered = { temperature: 0, messages: body.messages, model: body.model };
    const second = await client(alice.key, OPENROUTER_CACHE).chat.completions.create(reordered).withResponse();
    expect(upstreamCalls()).toBe(1);
    expect(second.response.headers.get('x-router-cache-status')).toBe('HIT');
    expect(second.response.headers.get('x-openrouter-cache-status')).toBe('HIT');
    expect(Number(second.response.headers.get('x-router-cache-age'))).toBeGreaterThanOrEqual(0);
    expect(second.response.headers.get('x-openrouter-cache-age')).toBe(second.response.headers.get('x-router-cache-age'));
    const firstId = first.response.headers.get('x-request-id')!;
    const hitId = second.response.headers.get('x-request-id')!;
    expect(hitId).not.toBe(firstId);
    expect(second.response.headers.get('x-router-cache-original-request-id')).toBe(firstId);
    expect(second.data.choices).toEqual(first.data.choices);
    expect((second.data.usage as any).cost).toBe(0);
    expect(Object.values((second.data.usage as any).cost_details).every((value) => value === 0)).toBe(true);
    const { data } = await receipt(alice.key, hitId);
    expect(data).toMatchObject({ id: hitId, total_cost: 0, provider_name: null, response_cache: { hit: true, original_id: firstId, saved_cost: (first.data.usage as any).cost } });
    expect((await receipt(alice.key, firstId)).data.response_cache).toBeNull();
  });

  it('chat streams: a repeat replays the same chunks as a stream; stream and whole answers are separate entries', async () => {
    const body = { model: 'router/frontier', messages: [{ role: 'user' as const, content: unique('Stream me') }], stream_options: { include_usage: true } };
    const read = async () => {
      const { data: stream, response } = await alice.client.chat.completions.create({ ...body, stream: true }).withResponse();
      const chunks = [];
      for await (const chunk of stream) chunks.push(chunk);
      return { chunks, status: response.headers.get('x-router-cache-status') };
    };
    const first = await read();
    const second = await read();
    expect([first.status, second.status]).toEqual(['MISS', 'HIT']);
    expect(upstreamCalls()).toBe(1);
    const text = (chunks: typeof first.chunks) => chunks.map((chunk) => chunk.choices[0]?.delta?.content ?? '').join('');
    expect(text(second.chunks)).toBe(text(first.chunks));
    expect(second.chunks.length).toBe(first.chunks.length);
    expect((second.chunks.at(-1)!.usage as any).cost).toBe(0);
    const whole = await alice.client.chat.completions.create(body).withResponse();
    expect(whole.response.headers.get('x-router-cache-status')).toBe('MISS');
  });

  it('Responses and Messages, whole and streamed: the repeat is a HIT in the endpoint\'s own event grammar', async () => {
    const cases: [string, object][] = [
      ['/responses', { model: 'router/frontier', input: unique('Say hello') }],
      ['/responses', { model: 'router/frontier', input: unique('Say hello'), stream: true }],
      ['/messages', { model: 'router/frontier', max_tokens: 64, messages: [{ role: 'user', content: unique('Hi') }] }],
      ['/messages', { model: 'router/frontier', max_tokens: 64, messages: [{ role: 'user', content: unique('Hi') }], stream: true }],
    ];
    for (const [path, body] of cases) {
      const before = upstreamCalls();
      const first = await post(alice.key, path, body);
      const second = await post(alice.key, path, body);
      expect([first.status, second.status], path).toEqual([200, 200]);
      expect([first.headers.get('x-router-cache-status'), second.headers.get('x-router-cache-status')], path).toEqual(['MISS', 'HIT']);
      expect(upstreamCalls() - before, path).toBe(1);
      expect(second.headers.get('content-type')).toBe(first.headers.get('content-type'));
      if ((body as { stream?: boolean }).stream) {
        const [a, b] = [await readSse(first), await readSse(second)];
        expect(b.map((event) => event.event ?? JSON.parse(event.data === '[DONE]' ? '{}' : event.data).type)).toEqual(a.map((event) => event.event ?? JSON.parse(event.data === '[DONE]' ? '{}' : event.data).type));
        // Byte for byte but for the cost, which a hit shows as 0.
        const costless = (data: string) => data.replace(/"cost":[0-9.e-]+/g, '"cost":0').replace(/"cost_details":\{[^}]*\}/g, '"cost_details":{}');
        expect(b.map((event) => costless(event.data))).toEqual(a.map((event) => costless(event.data)));
      } else {
        const [a, b] = [(await first.json()) as any, (await second.json()) as any];
        expect(b.output ?? b.content).toEqual(a.output ?? a.content);
      }
    }
  });

  it('embeddings: a repeat is a HIT with the same vectors at cost 0; another input or dimensions is a MISS', async () => {
    const body = { model: 'openai/text-embedding-3-small', input: [unique('vector me'), 'and me'], encoding_format: 'float' as const };
    const embeddingCalls = () => fakes.openai.requests.filter((request) => request.path.includes('embeddings')).length;
    const first = await alice.client.embeddings.create(body).withResponse();
    const second = await alice.client.embeddings.create(body).withResponse();
    expect([first.response.headers.get('x-router-cache-status'), second.response.headers.get('x-router-cache-status')]).toEqual(['MISS', 'HIT']);
    expect(embeddingCalls()).toBe(1);
    expect(second.data.data).toEqual(first.data.data);
    expect((first.data.usage as any).cost).toBeGreaterThan(0);
    expect((second.data.usage as any).cost).toBe(0);
    const hitId = second.response.headers.get('x-request-id')!;
    expect((await receipt(alice.key, hitId)).data.response_cache).toMatchObject({ hit: true, original_id: first.response.headers.get('x-request-id') });
    const shorter = await alice.client.embeddings.create({ ...body, dimensions: 256 }).withResponse();
    expect(shorter.response.headers.get('x-router-cache-status')).toBe('MISS');
    expect(embeddingCalls()).toBe(2);
  });

  it('two accounts sending the same body never share an entry', async () => {
    const body = { model: 'router/frontier', messages: [{ role: 'user' as const, content: unique('Shared question') }] };
    const a = await alice.client.chat.completions.create(body).withResponse();
    const b = await bob.client.chat.completions.create(body).withResponse();
    expect([a.response.headers.get('x-router-cache-status'), b.response.headers.get('x-router-cache-status')]).toEqual(['MISS', 'MISS']);
    expect(upstreamCalls()).toBe(2);
    const again = await bob.client.chat.completions.create(body).withResponse();
    expect(again.response.headers.get('x-router-cache-status')).toBe('HIT');
  });

  it('a zdr request is never stored, and says BYPASS', async () => {
    const body = { model: 'router/frontier', messages: [{ role: 'user' as const, content: unique('Secret') }], provider: { zdr: true } };
    const first = await post(alice.key, '/chat/completions', body);
    const second = await post(alice.key, '/chat/completions', body);
    expect([first.status, second.status]).toEqual([200, 200]);
    expect([first.headers.get('x-router-cache-status'), second.headers.get('x-router-cache-status')]).toEqual(['BYPASS', 'BYPASS']);
    expect(upstreamCalls()).toBe(2);
  });

  it("follows the account's rule: never stores for `never`, skips bodies naming an end user for `no_user_data`", async () => {
    const carol = await router.createAccount('pro', { providerKeys: { openai: PROVIDER_KEYS.openai } });
    const store = router.server.runtime.store;
    await store.setResponseCachePolicy(carol.accountId, 'no_user_data', 'test');
    const named = { model: 'router/frontier', messages: [{ role: 'user', content: unique('Mine') }], user: 'user-42' };
    const anonymous = { model: 'router/frontier', messages: [{ role: 'user', content: unique('Anyone') }] };
    const statuses = async (body: object) => [(await post(carol.key, '/chat/completions', body)).headers.get('x-router-cache-status'), (await post(carol.key, '/chat/completions', body)).headers.get('x-router-cache-status')];
    expect(await statuses(named)).toEqual(['BYPASS', 'BYPASS']);
    expect(await statuses(anonymous)).toEqual(['MISS', 'HIT']);
    await store.setResponseCachePolicy(carol.accountId, 'never', 'test');
    expect(await statuses(anonymous)).toEqual(['BYPASS', 'BYPASS']);
    expect(upstreamCalls()).toBe(5);
  });

  it('X-OpenRouter-Cache-Clear drops the entry; a bad TTL is a 400 naming the header; errors are never stored', async () => {
    const body = { model: 'router/frontier', messages: [{ role: 'user', content: unique('Clear me') }] };
    expect((await post(alice.key, '/chat/completions', body)).headers.get('x-router-cache-status')).toBe('MISS');
    const cleared = await post(alice.key, '/chat/completions', body, { ...OPENROUTER_CACHE, 'X-OpenRouter-Cache-Clear': 'true', 'X-OpenRouter-Cache-TTL': '60' });
    expect(cleared.headers.get('x-router-cache-status')).toBe('MISS');
    expect(cleared.headers.get('x-openrouter-cache-ttl')).toBe('60');
    expect(upstreamCalls()).toBe(2);
    const bad = await post(alice.key, '/chat/completions', body, { ...CACHE, 'X-Router-Cache-TTL': '999999' });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as any).error).toMatchObject({ code: 'invalid_request', param: 'x-router-cache-ttl' });
    const failing = { model: 'router/frontier', messages: [{ role: 'user', content: unique('Fail once') }] };
    fakes.openai.failNext({ kind: 'status', status: 400 });
    expect((await post(alice.key, '/chat/completions', failing)).status).toBe(400);
    expect((await post(alice.key, '/chat/completions', failing)).headers.get('x-router-cache-status')).toBe('MISS');
  });

  it('hits count against the monthly quota unless the plan says otherwise; the per-minute window counts them always', async () => {
    const counted = async (key: string) => {
      const body = { model: 'router/frontier', messages: [{ role: 'user', content: unique('Count me') }] };
      const miss = await post(key, '/chat/completions', body);
      const hit = await post(key, '/chat/completions', body);
      expect(hit.headers.get('x-router-cache-status')).toBe('HIT');
      return {
        quota: Number(hit.headers.get('x-quota-used')) - Number(miss.headers.get('x-quota-used')),
        window: Number(miss.headers.get('x-ratelimit-remaining')) - Number(hit.headers.get('x-ratelimit-remaining')),
      };
    };
    expect(await counted(alice.key)).toEqual({ quota: 1, window: 1 });
    const dave = await router.createAccount('hits-free', { providerKeys: { openai: PROVIDER_KEYS.openai } });
    expect(await counted(dave.key)).toEqual({ quota: 0, window: 1 });
  });
});
