/**
 * Keys and provider keys through the account app over real HTTP, with the official openai SDK calling
 * /v1 against fake upstreams: the first key, rotation with grace (idempotent), revocation, per-key
 * limits enforced by the pipeline, provider keys with their test button, and two accounts that can
 * never reach each other's keys.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { manualClock, pointProvidersAt, sdkClient, startFakes, postChat, type Fakes, json } from '../router-harness.js';
import { AppClient, keyIdByLast4, listedKeyIds, shownKey, startAppRouter, type AppRouter } from '../app-harness.js';

/** The route profiles a key's account may call, from the SDK's model list (the catalog's concrete models listed beside them are left out). */
async function routeProfilesOf(client: { models: { list(): Promise<{ data: Array<{ id: string }> }> } }): Promise<string[]> {
  return (await client.models.list()).data.map((model) => model.id).filter((id) => id.startsWith('router/'));
}

const PASSWORD = 'correct horse battery staple';
const OPENAI_KEY = 'sk-proj-test-abcdefgh1234';

describe('account app: keys and provider keys', () => {
  let fakes: Fakes;
  let router: AppRouter;
  const clock = manualClock('2026-11-21T10:00:00.000Z');

  beforeAll(async () => {
    fakes = await startFakes();
    router = await startAppRouter({ clock, patch: { providers: pointProvidersAt(fakes.urls) } });
  });
  afterAll(async () => {
    await router.close();
    await fakes.close();
  });

  async function newUser(email: string) {
    const browser = new AppClient(router.url);
    await browser.signUp(email, PASSWORD);
    const first = await browser.follow(await browser.post('/app/onboarding/key', {}));
    const key = shownKey(first.html)!;
    await browser.get('/app/provider-keys');
    await browser.post('/app/provider-keys', { provider: 'openai', key: OPENAI_KEY });
    return { browser, key };
  }

  it('generates the first key on the first screen, once, with the base URL, curl line and SDK snippet filled in', async () => {
    const browser = new AppClient(router.url);
    const onboarding = await browser.signUp('first@example.com', PASSWORD);
    expect(onboarding.html).toContain('Generate my first key');
    // Post-redirect-get: the key is shown on the page the POST redirects to, once.
    const posted = await browser.post('/app/onboarding/key', {});
    expect(posted).toMatchObject({ status: 303, location: '/app/onboarding' });
    expect(shownKey(posted.html)).toBeNull();
    const shown = await browser.follow(posted);
    const key = shownKey(shown.html)!;
    expect(key).toMatch(/^sk_router_[0-9A-Za-z]{38}$/);
    expect(shown.html).toContain(`${router.baseURL}`);
    expect(shown.html).toContain(`curl ${router.baseURL}/models -H "Authorization: Bearer ${key}"`);
    expect(shown.html).toContain(`apiKey: '${key}'`);
    expect(shown.html).toContain(`baseURL: '${router.baseURL}'`);
    // A reload of the page shows no key again; the flash cookie holds the key sealed, never in clear.
    expect(shownKey((await browser.get('/app/onboarding')).html)).toBeNull();
    expect(posted.headers.getSetCookie().join('\n')).not.toContain(key);
    const again = await browser.post('/app/onboarding/key', {});
    expect(again.location).toBe('/app/keys');
    const keys = await browser.get('/app/keys');
    expect(listedKeyIds(keys.html)).toHaveLength(1);
    expect(keys.html).not.toContain(key);
    expect(keys.html).toContain(`sk_router_…${key.slice(-4)}`);
    expect(await routeProfilesOf(sdkClient(router, key))).toEqual(['router/frontier']);
  });

  it('rotates with a grace period: both keys work, a second click makes no third key, and the old key is revoked when the grace ends', async () => {
    const { browser, key: oldKey } = await newUser('rotate@example.com');
    const keysPage = await browser.get('/app/keys');
    const [oldId] = listedKeyIds(keysPage.html);
    // A double click: two submissions of the same form at once make one replacement only.
    const pages = await Promise.all([
      browser.post(`/app/keys/${oldId}/rotate`, { graceSeconds: '3600' }),
      browser.post(`/app/keys/${oldId}/rotate`, { graceSeconds: '3600' }),
    ]);
    const redirected = pages.find((page) => page.status === 303)!;
    const repeat = pages.find((page) => page !== redirected)!;
    const rotated = await browser.follow(redirected);
    const newKey = shownKey(rotated.html)!;
    expect(newKey).toMatch(/^sk_router_/);
    expect(newKey).not.toBe(oldKey);
    expect(rotated.html).toContain('The old key keeps working until 2026-11-21 11:00 UTC');
    expect(shownKey(repeat.html)).toBeNull();
    expect(repeat.html).toContain('already rotated');
    const later = await browser.post(`/app/keys/${oldId}/rotate`, { graceSeconds: '0' });
    expect(shownKey(later.html)).toBeNull();
    expect(listedKeyIds(later.html)).toHaveLength(2);
    for (const key of [oldKey, newKey]) {
      const reply = await sdkClient(router, key).chat.completions.create({ model: 'router/frontier', messages: [{ role: 'user', content: 'hi' }] });
      expect(reply.model).toBe('router/frontier');
    }
    clock.advance(3600_000 + 1);
    const refused = await fetch(`${router.baseURL}/models`, { headers: { authorization: `Bearer ${oldKey}`, 'user-agent': 'tests/1.0' } });
    expect(refused.status).toBe(401);
    expect((await json(refused)).error.code).toBe('revoked_api_key');
    expect(await routeProfilesOf(sdkClient(router, newKey))).toEqual(['router/frontier']);
  });

  it('a rotated key keeps its name, expiry and own limits, and a key in its grace can be revoked at once', async () => {
    const { browser } = await newUser('keep@example.com');
    await browser.get('/app/keys');
    const created = await browser.follow(await browser.post('/app/keys', { name: 'ci', expiresInDays: '30', monthlyRequests: '7', requestsPerMinute: '3' }));
    const first = shownKey(created.html)!;
    const firstId = keyIdByLast4(created.html, first.slice(-4));
    const rotated = await browser.follow(await browser.post(`/app/keys/${firstId}/rotate`, { graceSeconds: '86400' }));
    const second = shownKey(rotated.html)!;
    const secondId = keyIdByLast4(rotated.html, second.slice(-4));
    const card = rotated.html.split(`id="${secondId}"`)[1]!.split('</li>')[0]!;
    expect(card).toContain('<strong>ci</strong>');
    expect(card).toContain('<dt>Expires</dt><dd>2026-12-21');
    expect(card).toContain('7 / month, 3 / minute');
    // The old key, in its day of grace, offers "Revoke now"; revoking it stops it at once.
    const oldCard = rotated.html.split(`id="${firstId}"`)[1]!.split('</li>')[0]!;
    expect(oldCard).toContain('Revoke now…');
    expect(await routeProfilesOf(sdkClient(router, first))).toEqual(['router/frontier']);
    await browser.get(`/app/keys/${firstId}/revoke`);
    const done = await browser.post(`/app/keys/${firstId}/revoke`, {});
    expect(done.status).toBe(200);
    expect(await sdkClient(router, first).models.list().catch((error: unknown) => error)).toMatchObject({ status: 401, code: 'revoked_api_key' });
    expect(await routeProfilesOf(sdkClient(router, second))).toEqual(['router/frontier']);
  });

  it('revokes only after a confirmation page, and the key stops working at once', async () => {
    const { browser, key } = await newUser('revoke@example.com');
    const [id] = listedKeyIds((await browser.get('/app/keys')).html);
    const confirm = await browser.get(`/app/keys/${id}/revoke`);
    expect(confirm.status).toBe(200);
    expect(confirm.html).toContain('Revoke this key?');
    expect(await routeProfilesOf(sdkClient(router, key))).toEqual(['router/frontier']);
    const done = await browser.post(`/app/keys/${id}/revoke`, {});
    expect(done.html).toContain('revoked');
    const refused = await postChat(router.baseURL, key);
    expect(refused.status).toBe(401);
    expect((await json(refused)).error.code).toBe('revoked_api_key');
  });

  it('creates keys with a name, an expiry and own limits that the /v1 pipeline enforces below the plan', async () => {
    const { browser } = await newUser('limits@example.com');
    await browser.get('/app/keys');
    const badCap = await browser.post('/app/keys', { name: 'too big', expiresInDays: '30', monthlyRequests: '5000000' });
    expect(badCap.status).toBe(400);
    const created = await browser.follow(await browser.post('/app/keys', { name: 'ci <bot>', expiresInDays: '30', monthlyRequests: '2', requestsPerMinute: '' }));
    const capped = shownKey(created.html)!;
    expect(created.html).toContain('ci &lt;bot&gt;');
    expect(created.html).not.toContain('ci <bot>');
    expect(created.html).toContain('2 / month');
    expect(created.html).toContain('expires 2026-12-21');
    const statuses = [];
    for (let i = 0; i < 3; i++) statuses.push(await postChat(router.baseURL, capped));
    expect(statuses.map((response) => response.status)).toEqual([200, 200, 429]);
    const over = await json(statuses[2]!);
    expect(over.error).toMatchObject({ code: 'key_quota_exceeded', type: 'insufficient_quota', accountUrl: `${router.appUrl}/keys`, docsUrl: `${router.url}/docs/errors#key_quota_exceeded` });
    // The refused request gave the account's count back.
    expect(statuses[2]!.headers.get('x-quota-used')).toBe(statuses[1]!.headers.get('x-quota-used'));

    const rpmKeyId = keyIdByLast4(created.html, capped.slice(-4));
    const saved = await browser.post(`/app/keys/${rpmKeyId}/limits`, { monthlyRequests: '', requestsPerMinute: '1' });
    expect(saved.status).toBe(200);
    expect(saved.html.match(/Own limits<\/dt><dd>[^<]*/g), rpmKeyId).toContain('Own limits</dt><dd>1 / minute');
    const fast = shownKey(created.html)!;
    expect(fast).toBe(capped);
    const first = await postChat(router.baseURL, capped);
    const second = await postChat(router.baseURL, capped);
    expect([first.status, second.status]).toEqual([200, 429]);
    expect((await json(second)).error.code).toBe('key_rate_limit_exceeded');
    expect(Number(second.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
  });

  it('stores provider keys showing only the last four, tests them with one cheap call through the adapters, replaces and removes them', async () => {
    const browser = new AppClient(router.url);
    await browser.signUp('byok@example.com', PASSWORD);
    await browser.get('/app/provider-keys');
    const saved = await browser.post('/app/provider-keys', { provider: 'openai', key: 'sk-live-secret-value-9876' });
    expect(saved.html).toContain('…9876');
    expect(saved.html).not.toContain('sk-live-secret-value-9876');
    fakes.reset();
    const posted = await browser.post('/app/provider-keys/openai/test', {});
    // Post-redirect-get: the result is shown once on the page the POST leads to; a reload calls nobody.
    expect(posted).toMatchObject({ status: 303, location: '/app/provider-keys' });
    const tested = await browser.follow(posted);
    expect(tested.html).toContain('OpenAI accepted the key');
    expect((await browser.get('/app/provider-keys')).html).not.toContain('OpenAI accepted the key');
    expect(fakes.openai.requests).toHaveLength(1);
    expect(fakes.openai.requests[0]!.headers.authorization).toBe('Bearer sk-live-secret-value-9876');
    expect(fakes.openai.requests[0]!.body).toMatchObject({ model: 'gpt-4.1', max_completion_tokens: 1 });
    clock.advance(10_000);
    fakes.openai.failNext({ kind: 'status', status: 401 });
    const failing = await browser.follow(await browser.post('/app/provider-keys/openai/test', {}));
    expect(failing.html).toContain('OpenAI rejected this key (HTTP 401');
    expect(failing.html).not.toContain('Incorrect API key');
    const statusPage = await new AppClient(router.url).get('/status');
    expect(statusPage.html).toContain('<span class="badge closed">operational</span>');
    expect(statusPage.html).not.toContain('badge open');
    const replaced = await browser.post('/app/provider-keys', { provider: 'openai', key: 'sk-live-other-value-5555' });
    expect(replaced.html).toContain('…5555');
    const removed = await browser.post('/app/provider-keys/openai/remove', {});
    expect(removed.html).not.toContain('…5555');
    expect(await router.server.runtime.store.listProviderKeys((await router.server.runtime.store.findLoginByEmail('byok@example.com'))!.account.id)).toEqual([]);
  });

  it('shows a provider key the provider rejected on live traffic as rejected, until a test call or a new key proves otherwise', async () => {
    const { browser, key } = await newUser('rejected-key@example.com');
    fakes.openai.rejectKey(OPENAI_KEY);
    const refused = await postChat(router.baseURL, key);
    expect(refused.status).toBe(502);
    const rejectedAt = new Date(clock.now()).toISOString();
    const page = await browser.get('/app/provider-keys');
    expect(page.html).toContain(`<span class="badge rejected">failing since <time datetime="${rejectedAt}">${rejectedAt.slice(0, 10)} ${rejectedAt.slice(11, 16)} UTC</time> (HTTP 401)</span>`);
    // In the person's own zone once chosen (Kathmandu is UTC+5:45).
    const zoned = await browser.get('/app/provider-keys?tz=Asia/Kathmandu');
    const kathmandu = new Date(Date.parse(rejectedAt) + (5 * 60 + 45) * 60_000).toISOString();
    expect(zoned.html).toContain(`failing since <time datetime="${rejectedAt}">${kathmandu.slice(0, 10)} ${kathmandu.slice(11, 16)} Asia/Kathmandu</time> (HTTP 401)`);
    await browser.get('/app/provider-keys?tz=UTC');
    expect(page.html).not.toContain('badge live');

    fakes.reset();
    clock.advance(60_000);
    const tested = await browser.follow(await browser.post('/app/provider-keys/openai/test', {}));
    expect(tested.html).toContain('OpenAI accepted the key');
    expect(tested.html).not.toContain('badge rejected');
    expect(tested.html).toContain('badge live');

    fakes.openai.rejectKey(OPENAI_KEY);
    expect((await postChat(router.baseURL, key)).status).toBe(502);
    expect((await browser.get('/app/provider-keys')).html).toContain('badge rejected');
    const replaced = await browser.post('/app/provider-keys', { provider: 'openai', key: 'sk-proj-test-replaced-7777' });
    expect(replaced.html).not.toContain('badge rejected');
    clock.advance(60_000); // past the cache of decrypted provider keys
    expect((await postChat(router.baseURL, key)).status).toBe(200);
    fakes.reset();
  });

  it('never lets one account see or touch another account’s keys, provider keys or sessions, whatever ids it guesses', async () => {
    const alice = await newUser('alice@example.com');
    const mallory = await newUser('mallory@example.com');
    const aliceKeys = await alice.browser.get('/app/keys');
    const [aliceKeyId] = listedKeyIds(aliceKeys.html);
    const store = router.server.runtime.store;
    const aliceAccount = (await store.findLoginByEmail('alice@example.com'))!.account;
    const [aliceSession] = await store.listSessions(aliceAccount.id);

    await mallory.browser.get('/app/keys');
    const attempts = [
      await mallory.browser.get(`/app/keys/${aliceKeyId}/revoke`),
      await mallory.browser.post(`/app/keys/${aliceKeyId}/revoke`, {}),
      await mallory.browser.post(`/app/keys/${aliceKeyId}/rotate`, { graceSeconds: '0' }),
      await mallory.browser.post(`/app/keys/${aliceKeyId}/limits`, { monthlyRequests: '1' }),
      await mallory.browser.post('/app/keys/key_000000000000000000000000/rotate', { graceSeconds: '0' }),
    ];
    expect(attempts.map((page) => page.status)).toEqual([404, 404, 404, 404, 404]);
    const endForeign = await mallory.browser.post(`/app/security/sessions/${aliceSession!.id}/end`, {});
    expect(endForeign.status).toBe(404);
    expect(await store.listSessions(aliceAccount.id)).toHaveLength(1);
    await mallory.browser.post('/app/provider-keys/openai/remove', {});
    expect(await store.listProviderKeys(aliceAccount.id)).toHaveLength(1);
    expect(await store.getKeyLimits(aliceKeyId!)).toBeNull();
    expect(await routeProfilesOf(sdkClient(router, alice.key))).toEqual(['router/frontier']);

    const aliceLast4 = alice.key.slice(-4);
    for (const path of ['/app/keys', '/app/provider-keys', '/app/security', '/app/usage', '/app/onboarding', '/app/billing', '/app/support']) {
      const page = await mallory.browser.get(path);
      expect(page.status, path).toBe(200);
      expect(page.html, path).not.toContain(aliceKeyId);
      expect(page.html, path).not.toContain('alice@example.com');
      expect(page.html, path).not.toContain(`…${aliceLast4}`);
      expect(page.html, path).not.toContain(aliceSession!.id);
    }
  });

  it('shows the month’s requests against the plan from the same source as the X-Quota headers', async () => {
    const { browser, key } = await newUser('usage@example.com');
    const response = await postChat(router.baseURL, key);
    const used = response.headers.get('x-quota-used');
    const limit = response.headers.get('x-quota-limit');
    const usage = await browser.get('/app/usage');
    expect(usage.html).toContain(`<p class="big">${used} <span class="hint">of ${limit} requests</span></p>`);
    expect(usage.html).toContain(`${response.headers.get('x-ratelimit-limit')} requests`);
  });
});
