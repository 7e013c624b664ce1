/**
 * GET /v1/openapi.json against the served behaviour: the document validates as OpenAPI 3.1 with a
 * standard validator (@seriousme/openapi-schema-validator); every documented path and method answers on
 * a running router with something other than 404/405 (authorized requests with a valid key, minimal
 * valid bodies, fake upstreams); every route the router serves under /v1 (and /api/v1) is documented;
 * each documented request body is the very schema the body stage validates with; and the app's docs
 * render it as the API reference page, linked from the docs index.
 */
import { Validator } from '@seriousme/openapi-schema-validator';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiRouter } from '../../src/http/create-router-app.js';
import { PUBLIC_ENDPOINTS } from '../../src/http/openapi/public-endpoints.js';
import { templateOf } from '../../src/http/openapi/served-routes.js';
import { PROVIDER_KEYS, pointProvidersAt, postV1, startFakes, startTestRouter, type Fakes, type TestRouter } from './router-harness.js';

const ASK = [{ role: 'user', content: 'Say hello' }];
const RERANKER = 'jina/reranker-v2';

/** A minimal valid body for each documented operation that takes one. */
const UA = { 'user-agent': 'router-tests/1.0' };
const BODIES: Readonly<Record<string, object>> = {
  createChatCompletion: { model: 'router/frontier', messages: ASK },
  createResponse: { model: 'router/frontier', input: 'Say hello' },
  createMessage: { model: 'router/frontier', max_tokens: 50, messages: ASK },
  countMessageTokens: { model: 'router/frontier', messages: ASK },
  createEmbeddings: { model: 'openai/text-embedding-3-small', input: 'hello' },
  rerank: { model: RERANKER, query: 'hello', documents: ['hello', 'world'] },
  createKey: { name: 'contract' },
  updateKey: { name: 'contract renamed' },
  rotateKey: { grace_seconds: 0 },
  createPreset: { slug: 'contract-created', config: { model: 'router/frontier', temperature: 0.2 } },
  updatePreset: { name: 'Contract renamed' },
  createPresetFromChat: { model: 'router/frontier', messages: ASK, temperature: 0.3 },
  createPresetFromResponse: { model: 'router/frontier', input: 'Say hello', temperature: 0.3 },
  createPresetFromMessage: { model: 'router/frontier', max_tokens: 50, messages: ASK },
};

describe('the OpenAPI document (GET /v1/openapi.json)', { timeout: 60_000 }, () => {
  let fakes: Fakes;
  let router: TestRouter;
  let key: string;
  let management: string;
  let document: any;

  const call = (method: string, path: string, token: string | undefined, body?: object) =>
    fetch(`${router.url}${path}`, {
      method,
      headers: { 'user-agent': 'router-tests/1.0', ...(token ? { authorization: `Bearer ${token}` } : {}), ...(body ? { 'content-type': 'application/json' } : {}) },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
  /** A fresh key of the organization, made through the key API, for an operation on one key. */
  const freshKeyHash = async (prefix: string): Promise<string> => {
    const response = await call('POST', `${prefix}/keys`, management, { name: 'for-contract' });
    expect(response.status).toBe(201);
    return ((await response.json()) as { data: { hash: string } }).data.hash;
  };

  /** A fresh preset of the organization, made through the preset API, for an operation on one preset. */
  let presets = 0;
  const freshPresetSlug = async (prefix: string): Promise<string> => {
    const slug = `contract-${(presets += 1)}`;
    const response = await call('POST', `${prefix}/presets`, management, { slug, config: { model: 'router/frontier' } });
    expect(response.status).toBe(201);
    return slug;
  };

  beforeAll(async () => {
    fakes = await startFakes();
    router = await startTestRouter({
      patch: {
        providers: pointProvidersAt(fakes.urls, (doc: any) => {
          doc.providers.push({ id: 'mirror', name: 'Mirror', format: 'openai', baseUrl: fakes.openai.baseUrl, embeddings: true, rerank: true, prices: { 'jina-reranker-v2': { input: 0.02, output: 0 } } });
        }),
        catalog: (doc: any) => {
          doc.concreteModels.push({ id: RERANKER, name: 'Jina Reranker v2', kind: 'rerank', contextLength: 8192, created: 1718841600, endpoints: [{ provider: 'mirror', model: 'jina-reranker-v2' }] });
        },
      },
    });
    const account = await router.createAccount('pro', { providerKeys: { ...PROVIDER_KEYS, mirror: 'sk-mirror-0000' } });
    key = account.key;
    management = (await router.server.runtime.keys.issue(account.accountId, 'provisioning', 'test', { kind: 'management' })).key;
    const served = await fetch(`${router.baseURL}/openapi.json`, { headers: UA });
    expect(served.status).toBe(200);
    expect(served.headers.get('content-type')).toContain('application/json');
    document = await served.json();
  });
  afterAll(async () => {
    await router?.close();
    await fakes?.close();
  });

  it('is a valid OpenAPI 3.1 document, served the same at /api/v1/openapi.json without a key', async () => {
    const validator = new Validator();
    const result = await validator.validate(structuredClone(document));
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(validator.version).toBe('3.1');
    expect(await (await fetch(`${router.url}/api/v1/openapi.json`, { headers: UA })).json()).toEqual(document);
  });

  it('documents each request body as the very schema that validates it, and the contract’s error body', () => {
    for (const endpoint of PUBLIC_ENDPOINTS.filter((entry) => entry.requestSchema)) {
      const schema = document.paths[endpoint.path][endpoint.method].requestBody.content['application/json'].schema;
      expect(schema).toEqual(JSON.parse(JSON.stringify(endpoint.requestSchema)));
    }
    const chatErrors = document.paths['/v1/chat/completions'].post.responses;
    expect(chatErrors['401'].description).toContain('invalid_api_key');
    expect(chatErrors['429'].description).toContain('monthly_quota_exceeded');
    expect(chatErrors['401'].content['application/json'].schema).toEqual({ $ref: '#/components/schemas/Error' });
    expect(document.paths['/v1/messages'].post.responses['401'].content['application/json'].schema).toEqual({ $ref: '#/components/schemas/AnthropicError' });
    expect(document.paths['/v1/keys'].post.security).toEqual([{ managementKey: [] }]);
    expect(document.paths['/v1/chat/completions'].post.security).toEqual([{ bearer: [] }]);
  });

  it('answers every documented path and method (never 404 or 405) with a valid key and a minimal body', async () => {
    const answered: string[] = [];
    for (const [path, item] of Object.entries<Record<string, any>>(document.paths)) {
      for (const [method, operation] of Object.entries<any>(item)) {
        const prefix = path.startsWith('/api/v1/') ? '/api/v1' : '/v1';
        const token = operation.security.length === 0 ? undefined : 'managementKey' in (operation.security[0] ?? {}) ? management : key;
        let concrete = path.replace('{id}', 'router/frontier');
        if (concrete.includes('{hash}')) concrete = concrete.replace('{hash}', await freshKeyHash(prefix));
        if (concrete.includes('{slug}')) concrete = concrete.replace('{slug}', await freshPresetSlug(prefix)).replace('{version}', '1');
        if (operation.operationId.startsWith('getGeneration')) {
          const served = await postV1(router, key, '/chat/completions', BODIES.createChatCompletion!);
          concrete += `?id=${encodeURIComponent(served.headers.get('x-request-id')!)}`;
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
        const body = BODIES[operation.operationId.replace(/OpenRouter$/, '')];
        if (operation.requestBody) expect(body, `a body for ${operation.operationId}`).toBeDefined();
        const response = await call(method.toUpperCase(), concrete, token, operation.requestBody ? body : undefined);
        await response.arrayBuffer();
        expect([404, 405], `${method.toUpperCase()} ${concrete} answered ${response.status}`).not.toContain(response.status);
        expect(response.status, `${method.toUpperCase()} ${concrete}`).toBeLessThan(400);
        answered.push(`${method.toUpperCase()} ${path}`);
      }
    }
    expect(answered).toContain('POST /v1/chat/completions');
    expect(answered).toContain('DELETE /api/v1/keys/{hash}');
    expect(answered).toContain('POST /api/v1/presets/{slug}/messages');
  });

  it('documents every route the router serves under /v1 and /api/v1', () => {
    const { routes } = createApiRouter(router.server.runtime);
    const apiRoutes = routes.filter((route) => route.path.startsWith('/v1/') || route.path.startsWith('/api/v1/'));
    // The recording sees the routes (a router change that hid them would make this property vacuous).
    expect(apiRoutes.length).toBeGreaterThanOrEqual(PUBLIC_ENDPOINTS.length);
    fc.assert(
      fc.property(fc.constantFrom(...apiRoutes), (route) => {
        const item = document.paths[templateOf(route.path)];
        expect(item, `${route.method} ${route.path} is served but not documented`).toBeDefined();
        expect(item[route.method.toLowerCase()], `${route.method} ${route.path} is served but not documented`).toBeDefined();
      }),
      { numRuns: apiRoutes.length * 3 },
    );
  });

  it('is rendered by the docs as the API reference page, linked from the docs index', async () => {
    const index = await (await fetch(`${router.url}/docs`, { headers: UA })).text();
    expect(index).toContain('href="/docs/api-reference"');
    const page = await fetch(`${router.url}/docs/api-reference`, { headers: UA });
    expect(page.status).toBe(200);
    const html = await page.text();
    for (const endpoint of PUBLIC_ENDPOINTS) expect(html).toContain(`<code>${endpoint.method.toUpperCase()} ${endpoint.path}</code>`);
    // Parameters and body fields come from the document: the receipt's query id, chat's required messages.
    expect(html).toMatch(/<td><code>id<\/code><\/td><td>query<\/td><td>yes<\/td>/);
    expect(html).toMatch(/<td><code>messages<\/code><\/td><td>array<\/td><td>yes<\/td>/);
    expect(html).toContain('/v1/openapi.json');
  });
});
