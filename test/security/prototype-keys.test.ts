/**
 * Every lookup keyed by what a caller sends is a Map or a null-prototype object: each name
 * Object.prototype has (`constructor`, `__proto__`, `toString`, `hasOwnProperty`, …) is sent wherever a
 * caller names something (a model, a suffix, a provider preference, a generation id, a route family, an
 * app page's id, a form field) and is answered with the contract's 4xx, never 200 and never a 500.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { AppClient, startAppRouter, type AppRouter, type Page } from '../e2e/app-harness.js';
import { PROVIDER_KEYS, frontierOrder, planLimits, pointProvidersAt, startFakes, type Fakes } from '../e2e/router-harness.js';

const NAMES = [...new Set([...Object.getOwnPropertyNames(Object.prototype), '__proto__'])];
const UA = 'router-tests/1.0';
const MESSAGES = [{ role: 'user', content: 'Say hello' }];

describe('names of Object.prototype sent wherever a caller names something', () => {
  let fakes: Fakes;
  let router: AppRouter;
  let key: string;
  let app: AppClient;
  const logLines = (): string[] => (router.server.runtime.logger as unknown as { lines: string[] }).lines;

  beforeAll(async () => {
    fakes = await startFakes();
    router = await startAppRouter({
      app: { requireEmailVerification: false },
      patch: {
        providers: pointProvidersAt(fakes.urls),
        routes: frontierOrder(['openai', 'anthropic', 'gemini']),
        plans: planLimits({ pro: { requestsPerMinute: 100_000, monthlyRequests: 1_000_000, maxConcurrentRequests: 50 } }),
      },
    });
    key = (await router.createAccount('pro', { providerKeys: { ...PROVIDER_KEYS } })).key;
    app = new AppClient(router.url);
    expect((await app.signUp('walker@example.com', 'correct horse battery staple')).status).toBe(200);
  }, 60_000);
  afterEach(() => {
    expect(logLines().filter((line) => /unexpected error|unhandled|\n\s+at /.test(line))).toEqual([]);
  });
  afterAll(async () => {
    await router?.close();
    await fakes?.close();
  });

  /** The JSON as written, so a `__proto__` key reaches the router as an own property, as any client can send it. */
  const post = (path: string, body: string) =>
    fetch(`${router.url}${path}`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'user-agent': UA, 'content-type': 'application/json', 'anthropic-version': '2023-06-01' }, body });
  const get = (path: string, headers: Record<string, string> = {}) => fetch(`${router.url}${path}`, { headers: { authorization: `Bearer ${key}`, 'user-agent': UA, ...headers } });
  const expectRefused = async (response: Response | Page, what: string) => {
    const text = response instanceof Response ? await response.text() : response.html;
    expect({ what, status: response.status }).toEqual({ what, status: expect.toSatisfy((status: number) => status >= 400 && status < 500 && status !== 429) });
    return text;
  };

  it('the same requests with names the router knows are served (so each refusal below is the name’s doing)', async () => {
    const ok = async (response: Response | Page, what: string) => expect({ what, status: response.status, body: response.status === 200 ? '' : response instanceof Response ? await response.text() : response.html.slice(0, 300) }).toEqual({ what, status: 200, body: '' });
    await ok(await post('/v1/chat/completions', JSON.stringify({ model: 'router/frontier:floor', messages: MESSAGES })), 'suffix');
    await ok(await post('/v1/messages', JSON.stringify({ model: 'router/frontier', max_tokens: 16, messages: MESSAGES, provider: { ignore: ['gemini'] } })), 'messages ignore');
    for (const provider of ['{"order":["anthropic"]}', '{"only":["openai"]}', '{"ignore":["gemini"]}', '{"sort":"price"}', '{"max_price":{"prompt":100}}']) {
      await ok(await post('/v1/chat/completions', `{"model":"router/frontier","messages":${JSON.stringify(MESSAGES)},"provider":${provider}}`), provider);
    }
    await ok(await get('/v1/models/router%2Ffrontier'), 'model');
    await ok(await app.get('/model-catalog/frontier'), 'family');
    await ok(await app.get('/app/static/app.css'), 'static');
    await ok(await app.get('/app/keys'), 'keys page');
  });

  it.each(NAMES)('model %s, alone or as a suffix, prefix or concrete name, on every API', async (name) => {
    const models = [name, `router/frontier:${name}`, `${name}:nitro`, `router/${name}`, `openai/${name}`, `${name}/${name}`];
    for (const model of models) {
      for (const [path, body] of [
        ['/v1/chat/completions', { model, messages: MESSAGES }],
        ['/v1/responses', { model, input: 'Say hello' }],
        ['/v1/messages', { model, max_tokens: 16, messages: MESSAGES }],
        ['/v1/messages/count_tokens', { model, messages: MESSAGES }],
      ] as const) {
        const text = await expectRefused(await post(path, JSON.stringify(body)), `${path} ${model}`);
        expect(text).not.toMatch(/function|\[native code\]/);
      }
      await expectRefused(await get(`/v1/models/${encodeURIComponent(model)}`), `GET /v1/models/${model}`);
    }
  });

  it.each(NAMES)('provider preference %s as a provider id, a sort, a preference and a price field', async (name) => {
    const quoted = JSON.stringify(name);
    const preferences = [
      `{"order":[${quoted}]}`,
      `{"only":[${quoted}]}`,
      `{"ignore":[${quoted}]}`,
      `{"order":[${quoted}],"allow_fallbacks":false}`,
      `{"sort":${quoted}}`,
      `{${quoted}:["openai"]}`,
      `{"max_price":{${quoted}:1}}`,
    ];
    for (const provider of preferences) {
      for (const path of ['/v1/chat/completions', '/v1/messages']) {
        await expectRefused(await post(path, `{"model":"router/frontier","max_tokens":16,"messages":${JSON.stringify(MESSAGES)},"provider":${provider}}`), `${path} provider ${provider}`);
      }
    }
  });

  it.each(NAMES)('generation id, route family and page names %s', async (name) => {
    const segment = encodeURIComponent(name);
    await expectRefused(await get(`/v1/generation?id=${segment}`), 'generation');
    await expectRefused(await get(`/v1/generation?${segment}=1`), 'generation without id');
    for (const path of [`/model-catalog/${segment}`, `/app/static/${segment}`, `/docs/${segment}`, `/app/keys/${segment}/usage`]) {
      await expectRefused(await app.get(path), path);
    }
    await expectRefused(await get(`/model-catalog/${segment}`, { accept: 'application/json' }), 'catalog family as JSON');
    // Query parameters that name a choice from a list: refused, or the page served without Object's members.
    for (const path of [`/app/usage?by=${segment}`, `/app/usage?tz=${segment}`, `/app/usage.csv?by=${segment}`, `/app/usage.csv?tz=${segment}`]) {
      const page = await app.get(path);
      expect({ path, status: page.status }).toEqual({ path, status: expect.toSatisfy((status: number) => status === 200 || (status >= 400 && status < 500)) });
      expect(page.html).not.toMatch(/native code|function \w*\(/);
    }
    // A page whose query names a notice: the page is served, with no notice taken from Object.prototype.
    const billing = await app.get(`/app/billing?checkout=${segment}`);
    expect(billing.status).toBe(200);
    expect(billing.html).not.toMatch(/function|native code/);
  });

  it.each(NAMES)('an app id or provider %s in a form action, and as a form field name', async (name) => {
    const segment = encodeURIComponent(name);
    await app.get('/app/keys');
    for (const path of [`/app/keys/${segment}/rotate`, `/app/keys/${segment}/revoke`, `/app/keys/${segment}/limits`, `/app/provider-keys/${segment}/test`, `/app/provider-keys/${segment}/remove`, `/app/security/sessions/${segment}/end`]) {
      await expectRefused(await app.post(path, { [name]: 'x', name: 'x' }), path);
    }
    // A form field of that name changes nothing else: the sign-in still reads its own fields.
    const stranger = new AppClient(router.url);
    await stranger.get('/app/signin');
    expect((await stranger.post('/app/signin', { [name]: 'x', email: `${name}@example.com`, password: 'not the password' })).status).toBe(401);
  });
});
