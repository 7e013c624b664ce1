/**
 * The key API (issue 33) through the official openai SDK (raw `get`/`post` for the extra paths) and plain
 * HTTP: /v1/key against the app's own numbers after real traffic; /v1/credits for an ordinary key;
 * management keys refused on model routes and ordinary keys on management routes; the /v1/keys CRUD in
 * OpenRouter's shape with changes that apply on the next request, audited with the management key as actor.
 */
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { usageReport } from '../../src/usage/usage-report.js';
import { PROVIDER_KEYS, manualClock, pointProvidersAt, sdkClient, startFakes, startTestRouter, type Fakes, type TestRouter } from './router-harness.js';

const HELLO = { model: 'router/frontier', messages: [{ role: 'user' as const, content: 'hello' }] };
const UA = { 'user-agent': 'router-tests/1.0' };

describe('the key API', { timeout: 60_000 }, () => {
  let fakes: Fakes;
  let router: TestRouter;
  const clock = manualClock('2026-11-25T10:00:00.000Z');
  let org: { accountId: string; key: string; keyId: string };
  let admin: { key: string; id: string };
  let other: { accountId: string; key: string; keyId: string };

  const call = (key: string, method: string, path: string, body?: unknown) =>
    fetch(`${router.url}${path}`, { method, headers: { ...UA, authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) }, body: body === undefined ? undefined : JSON.stringify(body) });

  beforeAll(async () => {
    fakes = await startFakes();
    router = await startTestRouter({ clock, patch: { providers: pointProvidersAt(fakes.urls) } });
    org = await router.createAccount('pro', { providerKeys: { openai: PROVIDER_KEYS.openai, anthropic: PROVIDER_KEYS.anthropic } });
    other = await router.createAccount('pro', { providerKeys: { openai: PROVIDER_KEYS.openai } });
    const issued = await router.server.runtime.keys.issue(org.accountId, 'provisioning', 'test', { kind: 'management' });
    admin = { key: issued.key, id: issued.record.id };
  });
  afterAll(async () => {
    await router?.close();
    await fakes?.close();
  });

  it('GET /v1/key and /api/v1/key: every field equals the app’s numbers after real traffic', async () => {
    const client = sdkClient(router, org.key);
    await client.chat.completions.create(HELLO);
    const { response: last } = await client.chat.completions.create(HELLO).withResponse();
    await router.server.runtime.usage.ledger!.flush();
    const day = '2026-11-25';
    const report = await usageReport(router.server.runtime.usage.store, { accountId: org.accountId, from: day, to: day, by: 'key', tz: 'UTC' });
    const appCost = report.rows.find((row) => row.group === org.keyId)!.costNanoUsd;
    expect(appCost).toBeGreaterThan(0);

    const data = ((await client.get('/key')) as { data: Record<string, any> }).data;
    const plan = router.server.runtime.plans.get('pro')!;
    const record = (await router.server.runtime.store.getApiKey(org.keyId))!;
    expect(data).toMatchObject({
      label: `sk_router_…${record.last4}`,
      limit: null,
      limit_remaining: null,
      limit_reset: null,
      include_byok_in_limit: false,
      // All served on the organization's own provider keys: BYOK usage, no managed usage.
      usage: 0,
      usage_daily: 0,
      usage_weekly: 0,
      usage_monthly: 0,
      is_free_tier: plan.priceUsdMonthly === 0,
      is_management_key: false,
      expires_at: null,
      plan: 'pro',
      // What the quota headers of the last answer said (/v1/key itself counts nothing).
      monthly_requests: { limit: Number(last.headers.get('x-quota-limit')), remaining: Number(last.headers.get('x-quota-remaining')), resets_at: '2026-12-01T00:00:00.000Z' },
      requests_per_minute: plan.requestsPerMinute,
      max_concurrent_requests: plan.maxConcurrentRequests,
      rate_limit: { requests: plan.requestsPerMinute, interval: '60s' },
    });
    expect(data.monthly_requests.used).toBe(2);
    for (const field of ['byok_usage', 'byok_usage_daily', 'byok_usage_weekly', 'byok_usage_monthly']) expect(Math.round(data[field] * 1e9)).toBe(appCost);
    // OpenRouter's path answers the same.
    const viaApi = await call(org.key, 'GET', '/api/v1/key');
    expect(viaApi.status).toBe(200);
    expect(((await viaApi.json()) as { data: unknown }).data).toEqual(data);
  });

  it('GET /v1/credits is readable by an ordinary key', async () => {
    const response = await call(org.key, 'GET', '/api/v1/credits');
    expect(response.status).toBe(200);
    const { data } = (await response.json()) as { data: Record<string, unknown> };
    expect(data).toMatchObject({ total_usage: 0, plan: 'pro', period: '2026-11', resets_at: '2026-12-01T00:00:00.000Z' });
    expect(typeof data.total_credits).toBe('number');
  });

  it('refuses a management key on model routes and an ordinary key on management routes, with their codes', async () => {
    const asAdmin = sdkClient(router, admin.key);
    const refused = await asAdmin.chat.completions.create(HELLO).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(OpenAI.APIError);
    expect(refused).toMatchObject({ status: 403, code: 'management_key_not_allowed' });
    const responses = await call(admin.key, 'POST', '/v1/responses', { model: 'router/frontier', input: 'hi' });
    expect(responses.status).toBe(403);
    const ordinary = await sdkClient(router, org.key).get('/keys').catch((error: unknown) => error);
    expect(ordinary).toMatchObject({ status: 403, code: 'management_key_required' });
    // The management key reads itself.
    const self = (await asAdmin.get('/key')) as { data: Record<string, unknown> };
    expect(self.data.is_management_key).toBe(true);
  });

  it('creates, lists, reads, disables, enables, rotates and deletes keys; each change applies on the next request and is audited as the management key', async () => {
    const asAdmin = sdkClient(router, admin.key);
    const created = (await asAdmin.post('/keys', { body: { name: 'customer-1', limit: 5, limit_reset: 'daily', include_byok_in_limit: true, requests_per_minute: 7 } })) as { data: Record<string, any>; key: string };
    expect(created.key).toMatch(/^sk_router_/);
    expect(created.data).toMatchObject({ name: 'customer-1', limit: 5, limit_remaining: 5, limit_reset: 'daily', include_byok_in_limit: true, disabled: false, requests_per_minute: 7, is_management_key: false });
    const hash = created.data.hash as string;
    expect(hash).toMatch(/^key_/);
    // The secret is shown once: never in a read.
    const read = await call(admin.key, 'GET', `/api/v1/keys/${hash}`);
    expect(JSON.stringify(await read.json())).not.toContain(created.key);

    const customer = sdkClient(router, created.key);
    await expect(customer.chat.completions.create(HELLO)).resolves.toBeDefined();

    const listed = (await asAdmin.get('/keys')) as { data: Array<{ hash: string }> };
    expect(listed.data.map((key) => key.hash)).toEqual(expect.arrayContaining([hash, org.keyId, admin.id]));

    expect((await call(admin.key, 'PATCH', `/v1/keys/${hash}`, { disabled: true })).status).toBe(200);
    await expect(customer.chat.completions.create(HELLO)).rejects.toMatchObject({ status: 401, code: 'disabled_api_key' });
    expect(((await asAdmin.get('/keys')) as { data: Array<{ hash: string }> }).data.map((key) => key.hash)).not.toContain(hash);
    expect(((await asAdmin.get('/keys', { query: { include_disabled: 'true' } })) as { data: Array<{ hash: string }> }).data.map((key) => key.hash)).toContain(hash);
    const enabled = await call(admin.key, 'PATCH', `/v1/keys/${hash}`, { disabled: false, limit: null, name: 'customer-one' });
    expect(((await enabled.json()) as { data: unknown }).data).toMatchObject({ name: 'customer-one', limit: null, limit_reset: null, disabled: false });
    await expect(customer.chat.completions.create(HELLO)).resolves.toBeDefined();

    const rotated = (await asAdmin.post(`/keys/${hash}/rotate`, { body: { grace_seconds: 60 } })) as { data: Record<string, any>; key: string; previous: Record<string, any> };
    expect(rotated.previous).toMatchObject({ hash, expires_at: new Date(clock.now() + 60_000).toISOString() });
    await expect(customer.chat.completions.create(HELLO)).resolves.toBeDefined();
    clock.advance(61_000);
    await expect(customer.chat.completions.create(HELLO)).rejects.toMatchObject({ status: 401, code: 'revoked_api_key' });
    const replacement = sdkClient(router, rotated.key);
    await expect(replacement.chat.completions.create(HELLO)).resolves.toBeDefined();

    expect(await (await call(admin.key, 'DELETE', `/v1/keys/${rotated.data.hash}`)).json()).toEqual({ deleted: true });
    await expect(replacement.chat.completions.create(HELLO)).rejects.toMatchObject({ status: 401, code: 'revoked_api_key' });

    const audit = await router.server.runtime.store.listAuditEvents({ accountId: org.accountId });
    const byAdmin = audit.filter((event) => event.actor === `key:${admin.id}`).map((event) => event.action);
    expect(byAdmin).toEqual(expect.arrayContaining(['key.create', 'key.update', 'key.rotate', 'key.revoke', 'budget.set']));
  });

  it('audits every /v1/keys change with the management key as the actor, one row per change, naming the key', async () => {
    const actor = `key:${admin.id}`;
    const store = router.server.runtime.store;
    /** The audit rows a step added (the newest first in the store: compared as sets). */
    const rowsOf = async (step: () => Promise<Response>, status: number) => {
      const before = new Set((await store.listAuditEvents({ accountId: org.accountId, limit: 10_000 })).map((event) => event.id));
      const response = await step();
      expect(response.status).toBe(status);
      const added = (await store.listAuditEvents({ accountId: org.accountId, limit: 10_000 })).filter((event) => !before.has(event.id));
      return { body: (await response.json()) as any, rows: added.map((event) => ({ actor: event.actor, action: event.action, keyId: event.keyId })) };
    };
    const created = await rowsOf(() => call(admin.key, 'POST', '/v1/keys', { name: 'audited', limit: 2, limit_reset: 'weekly', requests_per_minute: 9 }), 201);
    const hash = created.body.data.hash as string;
    const row = (action: string, keyId = hash) => ({ actor, action, keyId });
    expect(created.rows).toEqual(expect.arrayContaining([row('key.create'), row('budget.set'), row('key.set_limits')]));
    expect(created.rows).toHaveLength(3);
    expect((await rowsOf(() => call(admin.key, 'PATCH', `/v1/keys/${hash}`, { name: 'audited-2' }), 200)).rows).toEqual([row('key.update')]);
    expect((await rowsOf(() => call(admin.key, 'PATCH', `/v1/keys/${hash}`, { disabled: true }), 200)).rows).toEqual([row('key.update')]);
    expect((await rowsOf(() => call(admin.key, 'PATCH', `/v1/keys/${hash}`, { disabled: false, limit: 4 }), 200)).rows).toEqual(expect.arrayContaining([row('key.update'), row('budget.set')]));
    expect((await rowsOf(() => call(admin.key, 'PATCH', `/v1/keys/${hash}`, { limit: null }), 200)).rows).toEqual([row('budget.remove')]);
    expect((await rowsOf(() => call(admin.key, 'PATCH', `/v1/keys/${hash}`, { requests_per_minute: null }), 200)).rows).toEqual([row('key.set_limits')]);
    const rotated = await rowsOf(() => call(admin.key, 'POST', `/v1/keys/${hash}/rotate`, {}), 201);
    expect(rotated.rows.map((entry) => entry.actor)).toEqual(rotated.rows.map(() => actor));
    expect(rotated.rows.map((entry) => entry.action)).toContain('key.rotate');
    expect((await rowsOf(() => call(admin.key, 'DELETE', `/v1/keys/${rotated.body.data.hash}`), 200)).rows).toEqual([row('key.revoke', rotated.body.data.hash)]);
    // Reads are not changes: nothing is written for them.
    expect((await rowsOf(() => call(admin.key, 'GET', '/v1/keys'), 200)).rows).toEqual([]);
  });

  it('scopes every key operation to the management key’s organization, and refuses bad input with the contract’s 400', async () => {
    expect((await call(admin.key, 'GET', `/v1/keys/${other.keyId}`)).status).toBe(404);
    expect((await call(admin.key, 'PATCH', `/v1/keys/${other.keyId}`, { disabled: true })).status).toBe(404);
    expect((await call(admin.key, 'DELETE', `/v1/keys/${other.keyId}`)).status).toBe(404);
    await expect(sdkClient(router, other.key).chat.completions.create(HELLO)).resolves.toBeDefined();
    for (const body of [{}, { name: 'x', limit: -1 }, { name: 'x', limit_reset: 'hourly' }, { name: 'x', expires_at: '2027-01-01T00:00:00+02:00' }, { name: 'x', surprise: true }]) {
      const response = await call(admin.key, 'POST', '/v1/keys', body);
      expect(response.status).toBe(400);
      expect(((await response.json()) as { error: { code: string } }).error.code).toBe('invalid_request');
    }
    expect((await call(admin.key, 'GET', '/v1/keys?offset=-1')).status).toBe(400);
  });

  it('pages the list by 100 with offset', async () => {
    for (let i = 0; i < 101; i++) await router.server.runtime.keys.issue(org.accountId, `bulk-${i}`, 'test');
    const page = async (query: string) => (await (await call(admin.key, 'GET', `/api/v1/keys${query}`)).json()) as { data: Array<{ hash: string }>; total_count: number };
    const first = await page('');
    expect(first.data).toHaveLength(100);
    expect(first.total_count).toBeGreaterThan(101);
    const second = await page('?offset=100');
    expect(second.data).toHaveLength(first.total_count - 100);
    expect(second.total_count).toBe(first.total_count);
    // Two pages are the whole list, each key once: the organization's live keys, the playground's excepted.
    const hashes = [...first.data, ...second.data].map((key) => key.hash);
    expect(new Set(hashes).size).toBe(first.total_count);
    const live = (await router.server.runtime.store.listApiKeys(org.accountId)).filter((key) => key.revokedAt === null && key.disabledAt === null && (key.expiresAt === null || Date.parse(key.expiresAt) > clock.now()));
    expect(hashes.sort()).toEqual(live.map((key) => key.id).sort());
    expect((await page(`?offset=${first.total_count}`)).data).toEqual([]);
    expect((await page('?offset=99')).data.map((key) => key.hash)).toEqual([first.data[99]!.hash, ...second.data.map((key) => key.hash)].slice(0, 100));
  });

  it('starts usage_daily afresh at 00:00 UTC (a clock the test controls), the week on Monday, keeping the totals', async () => {
    const client = sdkClient(router, org.key);
    const before = ((await client.get('/key')) as { data: Record<string, number> }).data;
    expect(before.byok_usage_daily).toBeGreaterThan(0);
    clock.set('2026-11-25T23:59:59.000Z');
    expect(((await client.get('/key')) as { data: Record<string, number> }).data.byok_usage_daily).toBe(before.byok_usage_daily);
    clock.set('2026-11-26T00:00:00.000Z');
    const nextDay = ((await client.get('/key')) as { data: Record<string, number> }).data;
    expect(nextDay).toMatchObject({ byok_usage_daily: 0, byok_usage_weekly: before.byok_usage_weekly, byok_usage: before.byok_usage });
    clock.set('2026-11-30T00:00:00.000Z'); // a Monday
    const nextWeek = ((await client.get('/key')) as { data: Record<string, number> }).data;
    expect(nextWeek).toMatchObject({ byok_usage_weekly: 0, byok_usage_monthly: before.byok_usage_monthly, byok_usage: before.byok_usage });
  });
});
