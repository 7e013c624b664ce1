/**
 * POST /v1/embeddings and POST /v1/rerank through the whole server, with the clients people use: the
 * official openai SDK (float and base64), LangChain's OpenAIEmbeddings and the AI SDK's embed/embedMany,
 * against the OpenAI-format fake and the Gemini fake (batchEmbedContents). Failover between two hosts of
 * one model and never to another model; the documented bounds; the monthly quota, the ledger and the
 * receipt; a chat model refused on /v1/embeddings and an embedding model on chat.
 */
import { createOpenAI } from '@ai-sdk/openai';
import { OpenAIEmbeddings } from '@langchain/openai';
import { embed, embedMany } from 'ai';
import type OpenAI from 'openai';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { WRONG_DIMENSIONS_MODEL, fakeTokens, fakeVector } from '../fakes/embedding-answers.js';
import type { RecordedRequest } from '../fakes/fake-provider.js';
import { startOpenAIFake, type OpenAIFake } from '../fakes/openai-fake.js';
import { PROVIDER_KEYS, json, ledgerRecordsOf, planLimits, pointProvidersAt, postV1, sdkClient, startFakes, startTestRouter, type Fakes, type TestRouter } from './router-harness.js';

const SMALL = 'openai/text-embedding-3-small';
const GEMINI = 'google/gemini-embedding-001';
const RERANKER = 'jina/reranker-v2';
const MIRROR_KEY = 'sk-test-mirror-3456';
/** text-embedding-3-small at OpenAI's price: USD 0.02 per million tokens, in nano-USD per token. */
const SMALL_NANO_PER_TOKEN = 20;

describe('embeddings and rerank', { timeout: 60_000 }, () => {
  let fakes: Fakes;
  let mirror: OpenAIFake;
  let router: TestRouter;
  let account: { accountId: string; key: string };
  let client: OpenAI;

  const recordsOf = (requestId: string | null) => ledgerRecordsOf(router, requestId);
  const embeddingRequests = (fake: { requests: RecordedRequest[] }) => fake.requests.filter((request) => request.path.includes('embed'));

  beforeAll(async () => {
    fakes = await startFakes();
    mirror = await startOpenAIFake({ name: 'mirror-fake' });
    router = await startTestRouter({
      patch: {
        providers: pointProvidersAt(fakes.urls, (doc: any) => {
          // A second host of the same models (as an Azure deployment or a proxy would be), which also reranks.
          doc.providers.push({
            id: 'mirror',
            name: 'Mirror',
            format: 'openai',
            baseUrl: mirror.baseUrl,
            embeddings: true,
            rerank: true,
            timeouts: { connectMs: 1000, firstByteMs: 1500, idleMs: 1500 },
            prices: { 'text-embedding-3-small': { input: 0.02, output: 0 }, 'jina-reranker-v2': { input: 0.02, output: 0 } },
          });
        }),
        catalog: (doc: any) => {
          const small = doc.concreteModels.find((model: { id: string }) => model.id === SMALL);
          small.endpoints = [{ provider: 'openai', model: 'text-embedding-3-small' }, { provider: 'mirror', model: 'text-embedding-3-small' }];
          doc.concreteModels.push({ id: RERANKER, name: 'Jina Reranker v2', kind: 'rerank', contextLength: 8192, created: 1718841600, endpoints: [{ provider: 'mirror', model: 'jina-reranker-v2' }] });
        },
        server: (doc: any) => void (doc.ledger = { flushIntervalMs: 100 }),
      },
    });
    account = await router.createAccount('pro', { providerKeys: { openai: PROVIDER_KEYS.openai, gemini: PROVIDER_KEYS.gemini, mirror: MIRROR_KEY } });
    client = sdkClient(router, account.key);
  });
  afterEach(() => {
    fakes.reset();
    mirror.reset();
  });
  afterAll(async () => {
    await router?.close();
    await mirror?.close();
    await fakes?.close();
  });

  it('lists embedding and rerank models with their kind and dimensions in /v1/models and /model-catalog', async () => {
    const models = await client.models.list();
    const small = models.data.find((model) => model.id === SMALL) as unknown as Record<string, unknown>;
    expect(small).toMatchObject({ kind: 'embedding', embedding: { dimensions: 1536, shortenable: true, max_input_tokens: 8191 }, pricing: { prompt: '0.00000002', completion: '0' } });
    expect(small.supported_parameters).toEqual(['dimensions', 'encoding_format', 'input_type', 'user']);
    expect(models.data.find((model) => model.id === RERANKER)).toMatchObject({ kind: 'rerank' });
    expect(models.data.find((model) => model.id === 'openai/gpt-4.1')).not.toHaveProperty('kind');
    const catalog = await json(await fetch(`${router.url}/model-catalog`, { headers: { 'user-agent': 'router-tests/1.0', accept: 'application/json' } }));
    expect(catalog.models).toContainEqual(expect.objectContaining({ id: GEMINI, kind: 'embedding', endpoint: '/v1/embeddings', dimensions: 3072 }));
    const page = await (await fetch(`${router.url}/model-catalog`, { headers: { 'user-agent': 'router-tests/1.0', accept: 'text/html' } })).text();
    expect(page).toContain('POST /v1/embeddings');
  });

  describe('the openai SDK', () => {
    it('gets float vectors in input order, with usage and its cost, from the OpenAI-format host', async () => {
      const texts = ['the cat sat', 'on the mat', 'héllo 世界'];
      const { data, response } = await client.embeddings.create({ model: SMALL, input: texts, encoding_format: 'float' }).withResponse();
      expect(data.object).toBe('list');
      expect(data.model).toBe(SMALL);
      expect(data.data.map((item) => item.index)).toEqual([0, 1, 2]);
      texts.forEach((text, i) => expect(data.data[i]!.embedding).toEqual(fakeVector(text, 1536)));
      const tokens = texts.reduce((sum, text) => sum + fakeTokens(text), 0);
      expect(data.usage).toMatchObject({ prompt_tokens: tokens, total_tokens: tokens, cost: (tokens * SMALL_NANO_PER_TOKEN) / 1e9 });
      expect(response.headers.get('x-router-upstream')).toBe('openai');
      const sent = embeddingRequests(fakes.openai)[0]!;
      expect(sent.body).toEqual({ model: 'text-embedding-3-small', input: texts, encoding_format: 'float' });
    });

    it('decodes base64 (the SDK default) to the same float32 values, and shortens vectors on `dimensions`', async () => {
      const asBase64 = await client.embeddings.create({ model: SMALL, input: 'quarterly revenue', dimensions: 256 });
      expect(asBase64.data[0]!.embedding).toEqual(fakeVector('quarterly revenue', 256));
      const raw = await json(await postV1(router, account.key, '/embeddings', { model: SMALL, input: 'quarterly revenue', dimensions: 256, encoding_format: 'base64' }));
      expect(typeof raw.data[0].embedding).toBe('string');
      expect(Buffer.from(raw.data[0].embedding, 'base64').length).toBe(256 * 4);
    });

    it('embeds token arrays on OpenAI-format hosts and refuses them for Gemini, which embeds text only', async () => {
      const one = await client.embeddings.create({ model: SMALL, input: [1, 2, 3], encoding_format: 'float' });
      expect(one.data[0]!.embedding).toEqual(fakeVector([1, 2, 3], 1536));
      const many = await client.embeddings.create({ model: SMALL, input: [[1, 2], [3]], encoding_format: 'float' });
      expect(many.data).toHaveLength(2);
      const refused = await postV1(router, account.key, '/embeddings', { model: GEMINI, input: [[1, 2]] });
      expect(refused.status).toBe(400);
      expect((await json(refused)).error).toMatchObject({ code: 'unsupported_parameter', param: 'input' });
    });

    it('reaches Gemini through batchEmbedContents: dimensions as outputDimensionality, input_type as taskType', async () => {
      const answer = await client.embeddings.create({ model: GEMINI, input: ['what is rag?', 'a doc'], dimensions: 768, encoding_format: 'float', input_type: 'search_query' } as never);
      expect(answer.data.map((item) => item.embedding)).toEqual([fakeVector('what is rag?', 768), fakeVector('a doc', 768)]);
      const sent = embeddingRequests(fakes.gemini)[0]!;
      expect(sent.path).toBe('/v1beta/models/gemini-embedding-001:batchEmbedContents');
      expect(sent.body).toEqual({
        requests: [
          { model: 'models/gemini-embedding-001', content: { parts: [{ text: 'what is rag?' }] }, taskType: 'RETRIEVAL_QUERY', outputDimensionality: 768 },
          { model: 'models/gemini-embedding-001', content: { parts: [{ text: 'a doc' }] }, taskType: 'RETRIEVAL_QUERY', outputDimensionality: 768 },
        ],
      });
      // Gemini reports no token count: usage shows none and no cost; the ledger records it as unknown.
      expect(answer.usage).toEqual({ prompt_tokens: 0, total_tokens: 0 });
    });
  });

  describe('LangChain and the AI SDK', () => {
    it("LangChain's OpenAIEmbeddings embeds documents and a query", async () => {
      const embeddings = new OpenAIEmbeddings({ model: SMALL, apiKey: account.key, configuration: { baseURL: router.baseURL }, maxRetries: 0 });
      const documents = await embeddings.embedDocuments(['first document', 'second document']);
      expect(documents).toEqual([fakeVector('first document', 1536), fakeVector('second document', 1536)]);
      expect(await embeddings.embedQuery('a question')).toEqual(fakeVector('a question', 1536));
    });

    it("the AI SDK's embed and embedMany, on an OpenAI-format host and on Gemini", async () => {
      const provider = createOpenAI({ apiKey: account.key, baseURL: router.baseURL });
      const single = await embed({ model: provider.embedding(SMALL), value: 'sunny day at the beach', maxRetries: 0 });
      expect(single.embedding).toEqual(fakeVector('sunny day at the beach', 1536));
      expect(single.usage.tokens).toBe(fakeTokens('sunny day at the beach'));
      const many = await embedMany({ model: provider.embedding(GEMINI), values: ['rainy day', 'snowy night'], maxRetries: 0 });
      expect(many.embeddings).toEqual([fakeVector('rainy day', 3072), fakeVector('snowy night', 3072)]);
    });
  });

  describe('failover', () => {
    it('goes to the other host of the same model when the first fails, and says so in the receipt', async () => {
      fakes.openai.failNext({ kind: 'status', status: 503 });
      const { data, response } = await client.embeddings.create({ model: SMALL, input: 'fail me over', encoding_format: 'float' }).withResponse();
      expect(data.data[0]!.embedding).toEqual(fakeVector('fail me over', 1536));
      expect(embeddingRequests(mirror)).toHaveLength(1);
      expect(embeddingRequests(mirror)[0]!.headers.authorization).toBe(`Bearer ${MIRROR_KEY}`);
      const id = response.headers.get('x-request-id')!;
      const [record] = await recordsOf(id);
      expect(record).toMatchObject({ endpoint: '/v1/embeddings', routeId: SMALL, providerId: 'mirror', retryCount: 1, usage: { prompt: fakeTokens('fail me over') } });
      const receipt = await json(await fetch(`${router.baseURL}/generation?id=${encodeURIComponent(id)}`, { headers: { authorization: `Bearer ${account.key}`, 'user-agent': 'router-tests/1.0' } }));
      expect(receipt.data).toMatchObject({ id, api_type: 'embeddings', provider_name: 'mirror', model: 'text-embedding-3-small', retries: 1, tokens_prompt: fakeTokens('fail me over') });
    });

    it('never fails over to another model: both hosts of one model down is a 502, and no other model was asked', async () => {
      fakes.openai.failAlways({ kind: 'status', status: 500 });
      mirror.failAlways({ kind: 'status', status: 500 });
      const response = await postV1(router, account.key, '/embeddings', { model: SMALL, input: 'nowhere to go' });
      expect(response.status).toBe(502);
      expect((await json(response)).error.code).toBe('all_upstreams_failed');
      const models = [...embeddingRequests(fakes.openai), ...embeddingRequests(mirror)].map((request) => (request.body as { model: string }).model);
      expect(new Set(models)).toEqual(new Set(['text-embedding-3-small']));
      expect(embeddingRequests(fakes.gemini)).toEqual([]);
    });

    it('does not fail over on a request the host refused as the client’s fault (400)', async () => {
      fakes.openai.failNext({ kind: 'status', status: 400 });
      const response = await postV1(router, account.key, '/embeddings', { model: SMALL, input: 'bad' });
      expect(response.status).toBe(400);
      expect(embeddingRequests(mirror)).toEqual([]);
    });
  });

  describe('bounds and refusals (400 before counting)', () => {
    const refusal = async (body: object) => {
      const response = await postV1(router, account.key, '/embeddings', body);
      return { status: response.status, error: (await json(response)).error };
    };

    it('names the bound: too many inputs, too many bytes, too many tokens in one input', async () => {
      const many = await refusal({ model: SMALL, input: Array.from({ length: 2049 }, () => 'x') });
      expect(many).toMatchObject({ status: 400, error: { code: 'invalid_request', param: 'input' } });
      expect(many.error.message).toContain('2048 (maxInputs)');
      const bytes = await refusal({ model: SMALL, input: ['a'.repeat(3 * 1024 * 1024), 'b'.repeat(2 * 1024 * 1024)] });
      expect(bytes.error.message).toContain('maxTextBytes');
      const tokens = await refusal({ model: SMALL, input: Array.from({ length: 8193 }, () => 1) });
      expect(tokens.error.message).toContain('maxTokensPerInput');
      expect(embeddingRequests(fakes.openai)).toEqual([]);
    });

    it('refuses empty, mixed and unknown inputs and fields, dimensions the model cannot give, and a chat model', async () => {
      expect(await refusal({ model: SMALL, input: [] })).toMatchObject({ status: 400, error: { param: 'input' } });
      expect(await refusal({ model: SMALL, input: ['a', ''] })).toMatchObject({ status: 400, error: { param: 'input[1]' } });
      expect(await refusal({ model: SMALL, input: ['a', [1]] })).toMatchObject({ status: 400, error: { param: 'input' } });
      expect(await refusal({ model: SMALL, input: 'a', temperature: 1 })).toMatchObject({ status: 400, error: { code: 'unsupported_parameter', param: 'temperature' } });
      expect(await refusal({ model: SMALL, input: 'a', dimensions: 4096 })).toMatchObject({ status: 400, error: { param: 'dimensions' } });
      expect(await refusal({ model: SMALL, input: 'a', encoding_format: 'int8' })).toMatchObject({ status: 400, error: { param: 'encoding_format' } });
      expect(await refusal({ model: 'openai/gpt-4.1', input: 'a' })).toMatchObject({ status: 400, error: { code: 'invalid_request', param: 'model' } });
      expect(embeddingRequests(fakes.openai)).toEqual([]);
    });

    it('refuses an embedding model on chat completions, pointing at /v1/embeddings', async () => {
      const response = await postV1(router, account.key, '/chat/completions', { model: SMALL, messages: [{ role: 'user', content: 'hi' }] });
      expect(response.status).toBe(400);
      expect((await json(response)).error.message).toContain('/v1/embeddings');
    });
  });

  describe('rerank', () => {
    it('scores documents best first, top_n of them, with their text when asked, and records its usage', async () => {
      const documents = ['Paris is the capital of France', 'Bananas are yellow', { text: 'France has many capital cities of art' }];
      const response = await postV1(router, account.key, '/rerank', { model: RERANKER, query: 'capital of France', documents, top_n: 2, return_documents: true });
      expect(response.status).toBe(200);
      const answer = await json(response);
      expect(answer).toMatchObject({ object: 'rerank', model: RERANKER });
      expect(answer.results).toEqual([
        { index: 0, relevance_score: 1, document: { text: 'Paris is the capital of France' } },
        { index: 2, relevance_score: 1, document: { text: 'France has many capital cities of art' } },
      ]);
      const sent = mirror.requests.find((request) => request.path === '/v1/rerank')!;
      expect(sent.body).toEqual({ model: 'jina-reranker-v2', query: 'capital of France', documents: documents.map((d) => (typeof d === 'string' ? d : d.text)), top_n: 2, return_documents: false });
      expect(answer.usage.prompt_tokens).toBeGreaterThan(0);
      const [record] = await recordsOf(response.headers.get('x-request-id'));
      expect(record).toMatchObject({ endpoint: '/v1/rerank', routeId: RERANKER, providerId: 'mirror', usage: { prompt: answer.usage.prompt_tokens } });
    });

    it('refuses too many documents and a model that is not a reranker; a provider without rerank is never a candidate', async () => {
      const tooMany = await postV1(router, account.key, '/rerank', { model: RERANKER, query: 'q', documents: Array.from({ length: 1001 }, () => 'd') });
      expect(tooMany.status).toBe(400);
      expect((await json(tooMany)).error.message).toContain('maxDocuments');
      const wrongKind = await postV1(router, account.key, '/rerank', { model: SMALL, query: 'q', documents: ['d'] });
      expect((await json(wrongKind)).error).toMatchObject({ code: 'invalid_request', param: 'model' });
      expect(fakes.openai.requests.filter((request) => request.path === '/v1/rerank')).toEqual([]);
    });
  });
});

describe('embeddings against the monthly quota', { timeout: 60_000 }, () => {
  let fakes: Fakes;
  let router: TestRouter;

  beforeAll(async () => {
    fakes = await startFakes();
    router = await startTestRouter({ patch: { providers: pointProvidersAt(fakes.urls), plans: planLimits({ pro: { monthlyRequests: 2 } }) } });
  });
  afterAll(async () => {
    await router?.close();
    await fakes?.close();
  });

  it('counts each embeddings request as one model request, refunds a refused one, and answers 429 past the quota', async () => {
    const { key } = await router.createAccount('pro', { providerKeys: { openai: PROVIDER_KEYS.openai } });
    const client = sdkClient(router, key);
    // Refused before counting (a bound), then refused after admission (a chat model: refunded).
    expect((await postV1(router, key, '/embeddings', { model: SMALL, input: [] })).status).toBe(400);
    expect((await postV1(router, key, '/embeddings', { model: 'openai/gpt-4.1', input: 'a' })).status).toBe(400);
    await client.embeddings.create({ model: SMALL, input: 'one' });
    await client.embeddings.create({ model: SMALL, input: 'two' });
    const over = await postV1(router, key, '/embeddings', { model: SMALL, input: 'three' });
    expect(over.status).toBe(429);
    expect((await json(over)).error.code).toBe('monthly_quota_exceeded');
  });
});

describe("embeddings on the operator's keys (managed access)", { timeout: 60_000 }, () => {
  const OPERATOR_KEY = 'sk-operator-embeddings-7777';
  let fakes: Fakes;
  let router: TestRouter;

  beforeAll(async () => {
    fakes = await startFakes();
    router = await startTestRouter({
      env: { OPENAI_API_KEY: OPERATOR_KEY },
      patch: {
        providers: pointProvidersAt(fakes.urls, (doc: any) => void (doc.managedAccess = { enabled: true })),
        plans: (doc: any) => {
          Object.assign(doc.plans.find((plan: { id: string }) => plan.id === 'pro'), { managedSpendCapUsd: 1 });
          // A cap one small request uses up (the gate may overshoot by one request's estimate, never more).
          Object.assign(doc.plans.find((plan: { id: string }) => plan.id === 'max'), { managedSpendCapUsd: 0.0000001 });
        },
        server: (doc: any) => void (doc.ledger = { flushIntervalMs: 100 }),
      },
    });
  });
  afterAll(async () => {
    await router?.close();
    await fakes?.close();
  });

  it('meters the call on the operator key, and refuses with 402 spend_cap_reached once the cap is used', async () => {
    expect(router.server.runtime.managedAccess.active).toBe(true);
    const metered = await router.createAccount('pro');
    const { response } = await sdkClient(router, metered.key).embeddings.create({ model: SMALL, input: 'on the house' }).withResponse();
    expect(fakes.openai.requests.at(-1)!.headers.authorization).toBe(`Bearer ${OPERATOR_KEY}`);
    const [record] = await ledgerRecordsOf(router, response.headers.get('x-request-id'));
    expect(record).toMatchObject({ endpoint: '/v1/embeddings', credentialSource: 'managed', costNanoUsd: fakeTokens('on the house') * SMALL_NANO_PER_TOKEN });
    expect(record!.meteredNanoUsd).toBe(record!.costNanoUsd);

    const capped = await router.createAccount('max');
    await sdkClient(router, capped.key).embeddings.create({ model: SMALL, input: 'forty bytes of text use up the whole cap.' });
    const sent = fakes.openai.requests.length;
    const refused = await postV1(router, capped.key, '/embeddings', { model: SMALL, input: 'this costs more than the whole cap' });
    expect(refused.status).toBe(402);
    expect((await json(refused)).error.code).toBe('spend_cap_reached');
    expect(fakes.openai.requests.length).toBe(sent);
  });
});

describe('a host answering vectors of another length', { timeout: 60_000 }, () => {
  let fakes: Fakes;
  let mirror: OpenAIFake;
  let router: TestRouter;

  beforeAll(async () => {
    fakes = await startFakes();
    mirror = await startOpenAIFake({ name: 'mirror-fake' });
    router = await startTestRouter({
      patch: {
        providers: pointProvidersAt(fakes.urls, (doc: any) => {
          doc.providers.push({ id: 'mirror', name: 'Mirror', format: 'openai', baseUrl: mirror.baseUrl, embeddings: true, prices: { 'text-embedding-3-small': { input: 0.02, output: 0 } } });
        }),
        // The first host is misconfigured: its deployment answers 3-long vectors for a 1536-dimension model.
        catalog: (doc: any) =>
          void (doc.concreteModels.find((model: { id: string }) => model.id === SMALL).endpoints = [
            { provider: 'openai', model: WRONG_DIMENSIONS_MODEL },
            { provider: 'mirror', model: 'text-embedding-3-small' },
          ]),
      },
    });
  });
  afterAll(async () => {
    await router?.close();
    await mirror?.close();
    await fakes?.close();
  });

  it('is unfit: the next host of the model answers, and the client never sees the wrong vectors', async () => {
    const { key } = await router.createAccount('pro', { providerKeys: { openai: PROVIDER_KEYS.openai, mirror: MIRROR_KEY } });
    const { data, response } = await sdkClient(router, key).embeddings.create({ model: SMALL, input: 'right length', encoding_format: 'float' }).withResponse();
    expect(data.data[0]!.embedding).toHaveLength(1536);
    expect(response.headers.get('x-router-upstream')).toBe('mirror');
    expect(response.headers.get('x-router-retry-count')).toBe('1');
  });
});
