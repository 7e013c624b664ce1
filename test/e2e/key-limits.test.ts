/**
 * A key's spend limit made through the management API (POST/PATCH /v1/keys) and enforced by the router,
 * on SQLite and on PostgreSQL + Redis, two router instances on one database and one clock the test moves
 * (the router's clock seam, router-deps' `clock`): the request that finds the limit used up is refused
 * with 402 budget_exceeded before any provider; a PATCH applies on the next request; `disabled` and an
 * expiry refuse at once; N concurrent requests against a limit that fits k admit exactly k; a daily,
 * weekly and monthly limit starts afresh at 00:00 UTC. Traffic goes through the official openai SDK,
 * the key API through raw HTTP.
 *
 * Every request here costs exactly what the gate holds for it before the call (the fake reports as many
 * prompt tokens as the body has bytes and as many output tokens as `max_tokens`), so "a limit that fits
 * k requests" is exact, and the outcome cannot depend on when the ledger settles a hold.
 */
import OpenAI from 'openai';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startRouterOn, usageBackends, type UsageBackend } from './usage-backends.js';
import { PROVIDER_KEYS, frontierOrder, manualClock, pointProvidersAt, sdkClient, startFakes, type Fakes, type TestRouter } from './router-harness.js';

const UA = { 'user-agent': 'router-tests/1.0' };
const BODY = { model: 'router/frontier', messages: [{ role: 'user' as const, content: 'hi' }], max_tokens: 20 };
const KEY_CACHE_TTL_MS = 5000;

describe.each(usageBackends('keylimits'))('key limits made through /v1/keys on %s', { timeout: 90_000 }, (_name, makeBackend) => {
  let backend: UsageBackend;
  let fakes: Fakes;
  let routers: [TestRouter, TestRouter];
  // A Wednesday.
  const clock = manualClock('2026-11-25T10:00:00.000Z');
  let org: { accountId: string; key: string; keyId: string };
  let admin: string;
  /** What one request costs, and what the gate holds for it: nano-USD. */
  let requestCost: number;

  const first = () => routers[0];
  const call = (router: TestRouter, key: string, method: string, path: string, body?: unknown) =>
    fetch(`${router.url}${path}`, { method, headers: { ...UA, authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) }, body: body === undefined ? undefined : JSON.stringify(body) });
  /** A key made by the management key through POST /v1/keys on the first instance. */
  const createKey = async (fields: Record<string, unknown>): Promise<{ hash: string; key: string; data: Record<string, any> }> => {
    const response = await call(first(), admin, 'POST', '/api/v1/keys', { name: `customer-${Math.random().toString(36).slice(2)}`, include_byok_in_limit: true, ...fields });
    expect(response.status).toBe(201);
    const body = (await response.json()) as { data: Record<string, any>; key: string };
    return { hash: body.data.hash, key: body.key, data: body.data };
  };
  const patchKey = async (hash: string, fields: Record<string, unknown>) => {
    const response = await call(first(), admin, 'PATCH', `/api/v1/keys/${hash}`, fields);
    expect(response.status).toBe(200);
    return ((await response.json()) as { data: Record<string, any> }).data;
  };
  const readKey = async (hash: string) => ((await (await call(first(), admin, 'GET', `/api/v1/keys/${hash}`)).json()) as { data: Record<string, any> }).data;
  /** One chat through the SDK: its status, and the error code when refused. */
  const chat = async (router: TestRouter, key: string): Promise<string> => {
    try {
      await sdkClient(router, key).chat.completions.create(BODY);
      return '200';
    } catch (error) {
      if (!(error instanceof OpenAI.APIError)) throw error;
      return `${error.status} ${error.code}`;
    }
  };
  const flushed = async () => {
    for (const router of routers) await router.server.runtime.usage.ledger!.flush();
  };
  const usd = (nano: number) => nano / 1e9;

  beforeAll(async () => {
    backend = makeBackend();
    fakes = await startFakes();
    const patch = {
      server: (doc: any) => void (doc.keyCacheTtlMs = KEY_CACHE_TTL_MS),
      providers: pointProvidersAt(fakes.urls),
      routes: frontierOrder(['openai']),
    };
    routers = [await startRouterOn(backend, patch, clock), await startRouterOn(backend, patch, clock)];
    org = await first().createAccount('pro', { providerKeys: { openai: PROVIDER_KEYS.openai } });
    admin = (await first().server.runtime.keys.issue(org.accountId, 'provisioning', 'test', { kind: 'management' })).key;
    const { runtime } = first().server;
    requestCost = runtime.spend.estimate({ accountId: org.accountId, plan: runtime.plans.get('pro'), route: runtime.routes.get('router/frontier')!, body: structuredClone(BODY) });
  }, 60_000);
  afterEach(() => fakes.reset());
  afterAll(async () => {
    for (const router of routers ?? []) await router.close();
    await fakes?.close();
    await backend?.cleanUp();
  });

  /** The fake reports the usage the gate's estimate assumes, so a request costs exactly what is held for it. */
  const costAsEstimated = () => fakes.openai.setReply({ usage: { inputTokens: Buffer.byteLength(JSON.stringify(BODY), 'utf8'), outputTokens: BODY.max_tokens } });

  it('refuses the request that finds a POSTed limit used up, before any provider, and applies a PATCH on the next request', async () => {
    costAsEstimated();
    const { hash, key } = await createKey({ limit: usd(2 * requestCost) });
    expect([await chat(first(), key), await chat(routers[1], key)]).toEqual(['200', '200']);
    await flushed();
    // Each request cost what was held for it: the limit is used up to the nano-USD.
    expect(await readKey(hash)).toMatchObject({ limit: usd(2 * requestCost), limit_remaining: 0, byok_usage: usd(2 * requestCost) });
    expect([await chat(first(), key), await chat(routers[1], key)]).toEqual(['402 budget_exceeded', '402 budget_exceeded']);
    expect(fakes.openai.requests).toHaveLength(2);

    // Raised by one request's cost: the next request on the instance that took the PATCH runs, the one after does not.
    expect(await patchKey(hash, { limit: usd(3 * requestCost) })).toMatchObject({ limit: usd(3 * requestCost), limit_remaining: usd(requestCost) });
    expect(await chat(first(), key)).toBe('200');
    expect(await chat(first(), key)).toBe('402 budget_exceeded');
    expect(fakes.openai.requests).toHaveLength(3);

    // Lowered below what was spent: refused at once; removed: no limit at all.
    await patchKey(hash, { limit: 0 });
    await flushed();
    expect(await readKey(hash)).toMatchObject({ limit: 0, limit_remaining: 0 });
    expect(await chat(first(), key)).toBe('402 budget_exceeded');
    expect(await patchKey(hash, { limit: null })).toMatchObject({ limit: null, limit_remaining: null, limit_reset: null });
    expect(await chat(first(), key)).toBe('200');
    // Another instance reads the change once its cache entry is older than keyCacheTtlMs.
    clock.advance(KEY_CACHE_TTL_MS + 1);
    expect(await chat(routers[1], key)).toBe('200');
  });

  it('refuses a key PATCHed to disabled at once, and a key past its expires_at; an expiry in the past is refused at creation', async () => {
    const { hash, key } = await createKey({});
    expect(await chat(first(), key)).toBe('200');
    await patchKey(hash, { disabled: true });
    expect(await chat(first(), key)).toBe('401 disabled_api_key');
    clock.advance(KEY_CACHE_TTL_MS + 1);
    expect(await chat(routers[1], key)).toBe('401 disabled_api_key');
    await patchKey(hash, { disabled: false });
    expect(await chat(first(), key)).toBe('200');

    const past = await call(first(), admin, 'POST', '/v1/keys', { name: 'too-late', expires_at: new Date(clock.now() - 1000).toISOString() });
    expect(past.status).toBe(400);
    expect(((await past.json()) as { error: Record<string, unknown> }).error).toMatchObject({ code: 'invalid_request', param: 'expires_at' });

    const expiresAt = new Date(clock.now() + 60_000).toISOString();
    const expiring = await createKey({ expires_at: expiresAt });
    expect(expiring.data.expires_at).toBe(expiresAt);
    expect(await chat(first(), expiring.key)).toBe('200');
    clock.set(expiresAt);
    const expired = await sdkClient(first(), expiring.key).chat.completions.create(BODY).catch((error: unknown) => error);
    expect(expired).toMatchObject({ status: 401, code: 'revoked_api_key', message: expect.stringContaining(`expired at ${expiresAt}`) });
    expect(await chat(routers[1], expiring.key)).toBe('401 revoked_api_key');
    expect(fakes.openai.requests).toHaveLength(3);
  });

  it('applies a PATCHed requests_per_minute on the next request', async () => {
    const { hash, key } = await createKey({ requests_per_minute: 2 });
    expect([await chat(first(), key), await chat(first(), key), await chat(first(), key)]).toEqual(['200', '200', '429 key_rate_limit_exceeded']);
    expect(await patchKey(hash, { requests_per_minute: 3 })).toMatchObject({ requests_per_minute: 3 });
    expect([await chat(first(), key), await chat(first(), key)]).toEqual(['200', '429 key_rate_limit_exceeded']);
    await patchKey(hash, { requests_per_minute: null });
    expect(await chat(first(), key)).toBe('200');
    expect(fakes.openai.requests).toHaveLength(4);
  });

  it('shows and changes the limits as stored, not as an instance that enforces them has them cached', async () => {
    const { hash, key } = await createKey({ requests_per_minute: 5 });
    // The first instance enforces, so it caches the key's limits: 5 a minute, no monthly count.
    expect(await chat(first(), key)).toBe('200');
    // Another instance (its account app, say) sets a monthly count and 6 a minute.
    await routers[1].server.runtime.keyLimits.set({ keyId: hash, monthlyRequests: 100, requestsPerMinute: 6 }, 'test');
    expect(await readKey(hash)).toMatchObject({ requests_per_minute: 6 });
    // A PATCH of one field on the first instance keeps the other: written from its cached copy, it would undo the monthly count.
    expect(await patchKey(hash, { requests_per_minute: 4 })).toMatchObject({ requests_per_minute: 4 });
    expect(await first().server.runtime.store.getKeyLimits(hash)).toMatchObject({ monthlyRequests: 100, requestsPerMinute: 4 });
  });

  it('keeps a used-up limit through a rotation: the replacement carries the limit and what was spent against it', async () => {
    costAsEstimated();
    const { hash, key } = await createKey({ limit: usd(requestCost), limit_reset: 'monthly' });
    expect(await chat(first(), key)).toBe('200');
    await flushed();
    const rotated = await call(first(), admin, 'POST', `/api/v1/keys/${hash}/rotate`, {});
    expect(rotated.status).toBe(201);
    const replacement = (await rotated.json()) as { key: string; data: Record<string, any> };
    expect(replacement.data).toMatchObject({ limit: usd(requestCost), limit_reset: 'monthly', limit_remaining: 0 });
    expect(await chat(routers[1], replacement.key)).toBe('402 budget_exceeded');
    expect(fakes.openai.requests).toHaveLength(1);
  });

  it('holds a key minted on one instance to its limit on another at once, though that one has the organization’s settings cached', async () => {
    costAsEstimated();
    expect(await chat(routers[1], org.key)).toBe('200');
    const { key } = await createKey({ limit: usd(requestCost) });
    expect(await chat(routers[1], key)).toBe('200');
    expect(await chat(routers[1], key)).toBe('402 budget_exceeded');
    expect(fakes.openai.requests).toHaveLength(2);
  });

  it('admits exactly k of N concurrent requests on two instances against a limit that fits k', async () => {
    costAsEstimated();
    // A slow answer: every request is in flight before any is settled.
    fakes.openai.setReply({ usage: { inputTokens: Buffer.byteLength(JSON.stringify(BODY), 'utf8'), outputTokens: BODY.max_tokens }, latencyMs: 50 });
    const k = 5;
    const n = 16;
    const { hash, key } = await createKey({ limit: usd(k * requestCost) });
    const outcomes = await Promise.all(Array.from({ length: n }, (_, i) => chat(routers[i % 2]!, key)));
    expect(outcomes.filter((outcome) => outcome === '200')).toHaveLength(k);
    expect(outcomes.filter((outcome) => outcome === '402 budget_exceeded')).toHaveLength(n - k);
    expect(fakes.openai.requests).toHaveLength(k);
    await flushed();
    expect(await readKey(hash)).toMatchObject({ limit_remaining: 0, byok_usage: usd(k * requestCost) });
    // And once more after the settlements: nothing more fits.
    expect(await chat(routers[1], key)).toBe('402 budget_exceeded');
  });

  it.each([
    ['daily', '2026-11-26T09:00:00.000Z', '2026-11-26T23:59:59.999Z', '2026-11-27T00:00:00.000Z'],
    // From a Friday: Saturday and Sunday are the same week; Monday starts the next.
    ['weekly', '2026-11-27T09:00:00.000Z', '2026-11-29T23:59:59.999Z', '2026-11-30T00:00:00.000Z'],
    ['monthly', '2026-12-02T09:00:00.000Z', '2026-12-31T23:59:59.999Z', '2027-01-01T00:00:00.000Z'],
  ])('starts a %s limit afresh at 00:00 UTC by the router’s clock', async (reset, start, lastMoment, nextPeriod) => {
    clock.set(start);
    costAsEstimated();
    const { hash, key } = await createKey({ limit: usd(requestCost), limit_reset: reset });
    const self = async () => ((await (await call(first(), key, 'GET', '/v1/key')).json()) as { data: Record<string, any> }).data;
    expect(await chat(first(), key)).toBe('200');
    await flushed();
    expect(await self()).toMatchObject({ limit_reset: reset, limit_remaining: 0 });
    expect(await chat(routers[1], key)).toBe('402 budget_exceeded');
    clock.set(lastMoment);
    expect(await chat(first(), key)).toBe('402 budget_exceeded');
    clock.set(nextPeriod);
    expect(await self()).toMatchObject({ limit_remaining: usd(requestCost), byok_usage: usd(requestCost) });
    expect(await chat(routers[1], key)).toBe('200');
    expect(await chat(first(), key)).toBe('402 budget_exceeded');
    await flushed();
    expect(await readKey(hash)).toMatchObject({ limit_remaining: 0, byok_usage: usd(2 * requestCost) });
    expect(fakes.openai.requests).toHaveLength(2);
  });
});
