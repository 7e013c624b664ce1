/**
 * A request no upstream answered is not counted against the monthly quota (docs/limits.md#monthly-quota):
 * no candidate left (no provider key), and an upstream's 404 for an endpoint or model its host lacks,
 * JSON and streamed, through HTTP with the official openai SDK, on SQLite and on PostgreSQL + Redis
 * (whose quota gate holds units in Redis: the refund must reach the store exactly once). A control
 * request served, and an upstream's own 400, stay counted, so each assertion can fail.
 */
import OpenAI from 'openai';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { quotaPeriod } from '../../src/core/quota-period.js';
import { frontierOrder, json, pointProvidersAt, postChat, sdkClient, startFakes, type Fakes, type TestRouter } from './router-harness.js';
import { startRouterOn, usageBackends, type UsageBackend } from './usage-backends.js';

const ASK = [{ role: 'user' as const, content: 'Say hello' }];

describe.each(usageBackends('unanswered'))('requests no upstream answered, on %s', { timeout: 60_000 }, (_name, makeBackend) => {
  let backend: UsageBackend;
  let fakes: Fakes;
  let router: TestRouter;

  beforeAll(async () => {
    backend = makeBackend();
    fakes = await startFakes();
    router = await startRouterOn(backend, {
      providers: pointProvidersAt(fakes.urls, (doc) => void (doc.circuitBreaker = { failureThreshold: 1000, cooldownMs: 0 })),
      routes: frontierOrder(['openai'], 0),
    });
  }, 60_000);
  afterEach(() => fakes.reset());
  afterAll(async () => {
    await router?.close();
    await fakes?.close();
    await backend?.cleanUp();
  });

  /** The account's count in the store, once the quota gate has settled what it admitted and gave back. */
  const stored = async (accountId: string) => {
    await router.server.runtime.quota.settle();
    return router.server.runtime.store.readQuota(accountId, quotaPeriod(Date.now()).key);
  };
  const withKey = () => router.createAccount('pro', { providerKeys: { openai: 'sk-test-openai-unanswered' } });
  const refusal = async (call: Promise<unknown>) => {
    try {
      await call;
    } catch (error) {
      if (error instanceof OpenAI.APIError) return error;
      throw error;
    }
    throw new Error('the request was served');
  };

  it('counts a served request and an upstream’s own 400 (the controls)', async () => {
    const account = await withKey();
    const client = sdkClient(router, account.key);
    await client.chat.completions.create({ model: 'router/frontier', messages: ASK });
    fakes.openai.failNext({ kind: 'status', status: 400 });
    const error = await refusal(client.chat.completions.create({ model: 'router/frontier', messages: ASK }));
    expect(error.status).toBe(400);
    expect(await stored(account.accountId)).toBe(2);
  });

  it('does not count a request with no candidate left (no provider key): 403 no_provider_access', async () => {
    const account = await router.createAccount('pro');
    const client = sdkClient(router, account.key);
    for (let i = 0; i < 3; i++) {
      const error = await refusal(client.chat.completions.create({ model: 'router/frontier', messages: ASK }));
      expect(error.code).toBe('no_provider_access');
    }
    expect(fakes.openai.requests).toHaveLength(0);
    expect(await stored(account.accountId)).toBe(0);
  });

  it('does not count an upstream 404 (the host lacks the endpoint or model), JSON or streamed, and the quota headers say so at once', async () => {
    const account = await withKey();
    const client = sdkClient(router, account.key);
    await client.chat.completions.create({ model: 'router/frontier', messages: ASK });
    fakes.openai.failNext({ kind: 'status', status: 404 }, 3);
    const error = await refusal(client.chat.completions.create({ model: 'router/frontier', messages: ASK }));
    expect(error.status).toBe(404);
    expect(error.headers?.get('x-quota-used')).toBe('1');
    await refusal(client.chat.completions.create({ model: 'router/frontier', messages: ASK, stream: true }));
    const raw = await postChat(router.baseURL, account.key);
    expect(raw.status).toBe(404);
    expect((await json(raw)).error.type).toBeDefined();
    expect(raw.headers.get('x-quota-used')).toBe('1');
    expect(fakes.openai.requests).toHaveLength(4);
    expect(await stored(account.accountId)).toBe(1);
  });

  it('gives back exactly once under concurrency: 20 refused at once leave only the served one counted', async () => {
    const account = await withKey();
    const client = sdkClient(router, account.key);
    await client.chat.completions.create({ model: 'router/frontier', messages: ASK });
    fakes.openai.failNext({ kind: 'status', status: 404 }, 20);
    const answers = await Promise.all(Array.from({ length: 20 }, () => postChat(router.baseURL, account.key)));
    expect(answers.map((answer) => answer.status)).toEqual(Array(20).fill(404));
    expect(await stored(account.accountId)).toBe(1);
  });
});
