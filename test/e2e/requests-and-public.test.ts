import { connect, type Socket } from 'node:net';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { json, startTestRouter, type TestRouter } from './router-harness.js';

const UA = { 'user-agent': 'router-tests/1.0' };

describe('request validation, plan permissions, edge rule and public metadata', () => {
  let router: TestRouter;
  let pro: { key: string };
  let free: { key: string };
  const post = (key: string, path: string, body: string | object, extra: Record<string, string> = {}) =>
    fetch(`${router.baseURL}${path}`, {
      method: 'POST',
      headers: { ...UA, authorization: `Bearer ${key}`, 'content-type': 'application/json', ...extra },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });

  beforeAll(async () => {
    router = await startTestRouter({ patch: { server: (doc) => void (doc.bodyLimitBytes = 4096) } });
    pro = await router.createAccount('pro');
    free = await router.createAccount('free');
  });
  afterAll(async () => {
    await router.close();
  });

  it.each([
    ['/chat/completions', { messages: [{ role: 'user', content: 'hi' }] }, 'model'],
    ['/chat/completions', { model: 'router/frontier' }, 'messages'],
    ['/chat/completions', { model: 'router/frontier', messages: [{ content: 'no role' }] }, 'messages[0].role'],
    ['/chat/completions', { model: 'router/frontier', messages: 'hello' }, 'messages'],
    ['/responses', { model: 'router/frontier' }, 'input'],
    ['/responses', { input: 'hello' }, 'model'],
  ])('answers POST %s %j with 400 naming the field', async (path, body, param) => {
    const response = await post(pro.key, path, body);
    expect(response.status).toBe(400);
    const { error } = await json(response);
    expect(error).toMatchObject({ type: 'invalid_request_error', code: 'invalid_request', param });
    expect(response.headers.get('x-ratelimit-limit')).toBe('300');
    expect(response.headers.get('x-quota-limit')).toBe('50000');
  });

  it('answers a body that is not JSON with invalid_json', async () => {
    const response = await post(pro.key, '/chat/completions', '{"model": ');
    expect(response.status).toBe(400);
    expect((await json(response)).error.code).toBe('invalid_json');
  });

  it('answers a body over the limit with 413 request_too_large', async () => {
    const response = await post(pro.key, '/chat/completions', { model: 'router/frontier', messages: [{ role: 'user', content: 'x'.repeat(5000) }] });
    expect(response.status).toBe(413);
    expect((await json(response)).error).toMatchObject({ type: 'invalid_request_error', code: 'request_too_large' });
  });

  it('answers an unknown route profile with 404 unknown_model, the catalog and the usable profiles', async () => {
    const response = await post(pro.key, '/chat/completions', { model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] });
    expect(response.status).toBe(404);
    const { error } = await json(response);
    expect(error).toMatchObject({ type: 'not_found_error', code: 'unknown_model', param: 'model', catalogUrl: 'http://localhost:8787/model-catalog' });
    expect(error.profiles).toEqual(['router/frontier', 'router/fusion']);
  });

  it('refuses router/fusion on the free plan with 403 plan_upgrade_required and upgrade links', async () => {
    const response = await post(free.key, '/chat/completions', { model: 'router/fusion', messages: [{ role: 'user', content: 'hi' }] });
    expect(response.status).toBe(403);
    const { error } = await json(response);
    expect(error).toMatchObject({ type: 'permission_error', code: 'plan_upgrade_required', param: 'model' });
    expect(error.upgradeUrl).toBe('http://localhost:8787/app/checkout?plan=pro');
    expect(error.billingUrl).toBe('http://localhost:8787/app/billing');
  });

  it('refuses the router:fusion tool on the free plan, through the SDK as PermissionDeniedError', async () => {
    const client = new OpenAI({ apiKey: free.key, baseURL: router.baseURL, maxRetries: 0 });
    const error = await client.chat.completions
      .create({ model: 'router/frontier', messages: [{ role: 'user', content: 'hi' }], tools: [{ type: 'router:fusion' } as never] })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OpenAI.PermissionDeniedError);
    expect((error as { code: string }).code).toBe('plan_upgrade_required');
  });

  it('refuses router/fusion on /v1/responses for the free plan too', async () => {
    const response = await post(free.key, '/responses', { model: 'router/fusion', input: 'hi' });
    expect(response.status).toBe(403);
    expect((await json(response)).error.code).toBe('plan_upgrade_required');
  });

  it('answers an authenticated unknown /v1 path with 404 in the contract shape, with limit headers', async () => {
    const response = await fetch(`${router.baseURL}/images/generations`, { headers: { ...UA, authorization: `Bearer ${pro.key}` } });
    expect(response.status).toBe(404);
    expect((await json(response)).error).toMatchObject({ type: 'not_found_error', code: 'not_found' });
    expect(response.headers.get('x-quota-period')).toBe('monthly');
  });

  it.each([
    [undefined, 'no User-Agent'],
    ['', 'an empty User-Agent'],
    ['python-requests/2.32.3', 'a bare library default'],
    ['Go-http-client/1.1', 'a bare library default'],
  ])('rejects %s (%s) at the edge with 403 code 1010 before authentication', async (userAgent: string | undefined, _why: string) => {
    const headers: Record<string, string> = { authorization: `Bearer ${pro.key}` };
    if (userAgent !== undefined) headers['user-agent'] = userAgent;
    // fetch always sends a User-Agent unless told otherwise; an explicit empty value replaces it.
    const response = await fetch(`${router.baseURL}/models`, { headers: userAgent === undefined ? { ...headers, 'user-agent': '' } : headers });
    expect(response.status).toBe(403);
    const { error } = await json(response);
    expect(error).toMatchObject({ type: 'edge_rejected', code: '1010' });
    expect(error.message).toContain('User-Agent');
  });

  it('serves /pricing publicly with plans, limits, checkout paths and the launch boundary', async () => {
    const response = await fetch(`${router.url}/pricing`, { headers: UA });
    expect(response.status).toBe(200);
    expect(response.headers.get('cache-control')).toBe('public, max-age=300');
    const pricing = await json(response);
    expect(pricing.apiBaseUrl).toBe('http://localhost:8787/v1');
    expect(pricing.plans.map((plan: { id: string }) => plan.id)).toEqual(['free', 'pro', 'max']);
    expect(pricing.plans[0].limits).toEqual({ monthlyRequests: 1000, requestsPerMinute: 20 });
    // Billing is off by default: nothing is sold online (docs/billing.md; test/e2e/app/billing.test.ts has it on).
    expect(pricing.onlineCheckout).toBe(false);
    expect(pricing.plans.map((plan: { checkoutUrl: unknown; purchasableOnline: unknown }) => [plan.checkoutUrl, plan.purchasableOnline])).toEqual([
      [null, false],
      [null, false],
      [null, false],
    ]);
    expect(pricing.launchBoundary.live).toContain('bring_your_own_provider_keys');
    expect(pricing.launchBoundary.notLive).toEqual(['managed_provider_access']);
    expect(pricing.launchBoundary.managedProviderAccess.active).toBe(false);
  });

  it('serves /model-catalog publicly without upstream accounts or keys', async () => {
    const response = await fetch(`${router.url}/model-catalog`, { headers: UA });
    expect(response.status).toBe(200);
    const catalog = await json(response);
    expect(catalog.families.map((family: { profile: string }) => family.profile)).toEqual(['router/frontier', 'router/fusion']);
    expect(catalog.families[1].plans).toEqual(['pro', 'max']);
    expect(catalog.families[0].pageUrl).toBe('http://localhost:8787/model-catalog/frontier');
    const text = JSON.stringify(catalog);
    expect(text).not.toMatch(/api\.openai\.com|api\.anthropic\.com|managedKey|sk_router_/);
  });

  it('serves an HTML catalog page per family and 404 for an unknown one', async () => {
    const page = await fetch(`${router.url}/model-catalog/fusion`, { headers: UA });
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toContain('text/html');
    expect(await page.text()).toContain('<code>router/fusion</code>');
    const missing = await fetch(`${router.url}/model-catalog/nope`, { headers: UA });
    expect(missing.status).toBe(404);
    expect((await json(missing)).error.code).toBe('not_found');
  });

  it('reports liveness and readiness', async () => {
    expect(await json(await fetch(`${router.url}/healthz`))).toEqual({ status: 'ok' });
    const ready = await fetch(`${router.url}/readyz`);
    expect(ready.status).toBe(200);
    expect(await json(ready)).toMatchObject({ status: 'ready', store: 'sqlite', rateLimiter: { backend: 'memory' } });
  });
});

describe('wrong methods on /v1 endpoints', () => {
  let router: TestRouter;
  beforeAll(async () => {
    router = await startTestRouter();
  });
  afterAll(async () => {
    await router.close();
  });

  it.each([
    ['GET', '/chat/completions', 'POST'],
    ['PUT', '/responses', 'POST'],
    ['POST', '/models', 'GET'],
  ])('answers %s /v1%s with 405 and Allow: %s', async (method, path, allow) => {
    const { key } = await router.createAccount('pro');
    const response = await fetch(`${router.baseURL}${path}`, { method, headers: { ...UA, authorization: `Bearer ${key}` } });
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe(allow);
    expect((await json(response)).error).toMatchObject({ type: 'invalid_request_error', code: 'method_not_allowed' });
  });
});

describe('connection bound', () => {
  let router: TestRouter;
  beforeAll(async () => {
    router = await startTestRouter({ patch: { server: (doc) => void (doc.listen = { ...doc.listen, maxConnections: 2 }) } });
  });
  afterAll(async () => {
    await router.close();
  });

  it('refuses connections beyond listen.maxConnections until one closes', async () => {
    const { port } = new URL(router.url);
    const open = () =>
      new Promise<Socket>((resolve, reject) => {
        const socket = connect(Number(port), '127.0.0.1', () => resolve(socket));
        socket.once('error', reject);
      });
    const ask = (socket: Socket) =>
      new Promise<string>((resolve) => {
        let answer = '';
        socket.on('data', (chunk) => (answer += chunk.toString()));
        socket.once('close', () => resolve(answer));
        socket.write('GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
      });
    const first = await open();
    const second = await open();
    const third = await open();
    expect(await ask(third)).toBe('');
    first.destroy();
    second.destroy();
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(await ask(await open())).toContain('HTTP/1.1 200 OK');
  });
});
