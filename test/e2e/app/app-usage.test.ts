/**
 * The usage and support pages over real HTTP, against the ledger a running router writes: this month
 * against the plan (the X-Quota numbers), the last 30 days charted, tabulated and exported as CSV in a
 * chosen time zone with totals equal to `router usage --tz` (the built CLI on the same database), the
 * keys' last use, and the redacted support bundle of one of the account's own requests only.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppClient, listedKeyIds, shownKey, startAppRouter, type AppRouter } from '../app-harness.js';
import { TEST_SECRET, manualClock, pointProvidersAt, postChat, runCli, runCliJson, startFakes, type Fakes } from '../router-harness.js';
import { usageBackends, type UsageBackend } from '../usage-backends.js';

const PASSWORD = 'correct horse battery staple';

describe.each(usageBackends('app_usage'))('account app: usage, CSV export and support bundles on %s', { timeout: 120_000 }, (_name, makeBackend) => {
  // 23:30 UTC: already the next day in Asia/Kathmandu (UTC+5:45), so the zone moves requests across days.
  const clock = manualClock('2026-11-21T23:30:00.000Z');
  let backend: UsageBackend;
  let fakes: Fakes;
  let router: AppRouter;
  let cliEnv: Record<string, string>;
  let alice: { browser: AppClient; key: string; accountId: string; requestIds: string[] };
  let bob: { browser: AppClient; key: string; accountId: string; requestIds: string[] };

  async function newUser(email: string) {
    const browser = new AppClient(router.url);
    await browser.signUp(email, PASSWORD);
    const key = shownKey((await browser.follow(await browser.post('/app/onboarding/key', {}))).html)!;
    await browser.get('/app/provider-keys');
    await browser.post('/app/provider-keys', { provider: 'openai', key: 'sk-proj-usage-test-0001' });
    const accountId = (await router.server.runtime.store.findLoginByEmail(email))!.account.id;
    return { browser, key, accountId, requestIds: [] as string[] };
  }

  /** One chat completion; with `requestId`, under that client-chosen X-Request-Id. */
  async function call(user: { key: string; requestIds: string[] }, requestId?: string): Promise<Response> {
    if (requestId === undefined) {
      const response = await postChat(router.baseURL, user.key, {});
      user.requestIds.push(response.headers.get('x-request-id')!);
      return response;
    }
    const named = await fetch(`${router.baseURL}/chat/completions`, {
      method: 'POST',
      headers: { 'user-agent': 'router-tests/1.0', authorization: `Bearer ${user.key}`, 'content-type': 'application/json', 'x-request-id': requestId },
      body: JSON.stringify({ model: 'router/frontier', messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(named.status).toBe(200);
    return named;
  }

  const flushed = () => router.server.runtime.usage.ledger!.flush();

  beforeAll(async () => {
    backend = makeBackend();
    fakes = await startFakes();
    // Sessions outlive the month the key-hygiene test moves the clock through.
    router = await startAppRouter({
      clock,
      env: backend.env,
      app: { sessionIdleMinutes: 60 * 24 * 60, sessionAbsoluteHours: 24 * 60 },
      patch: { providers: pointProvidersAt(fakes.urls), server: backend.server },
    });
    cliEnv = { ROUTER_CONFIG: router.configDir, ROUTER_SECRET_KEY: TEST_SECRET, ...backend.env };
    alice = await newUser('alice-usage@example.com');
    bob = await newUser('bob-usage@example.com');
    // Alice: two requests late on the 20th (UTC), three now; Bob: one now. Both also send one with the same client-chosen id.
    clock.set('2026-11-20T20:00:00.000Z');
    for (let i = 0; i < 2; i++) expect((await call(alice)).status).toBe(200);
    clock.set('2026-11-21T23:30:00.000Z');
    for (let i = 0; i < 3; i++) expect((await call(alice)).status).toBe(200);
    expect((await call(bob)).status).toBe(200);
    await call(alice, 'shared-client-id');
    await call(bob, 'shared-client-id');
    await flushed();
  });
  afterAll(async () => {
    await router?.close();
    await fakes?.close();
    await backend?.cleanUp();
  });

  it('shows this month against the plan as the X-Quota headers do, and the requests just made', async () => {
    const response = await call(alice);
    await flushed();
    const page = await alice.browser.get('/app/usage');
    expect(page.status).toBe(200);
    expect(page.html).toContain(`<p class="big">${response.headers.get('x-quota-used')} <span class="hint">of ${response.headers.get('x-quota-limit')} requests</span></p>`);
    expect(page.html).toContain(`<dt>Remaining</dt><dd>${response.headers.get('x-quota-remaining')}</dd>`);
    expect(page.html).toContain(`<dt>Per-minute limit</dt><dd>${response.headers.get('x-ratelimit-limit')} requests</dd>`);
    // Each id shown (shortened by CSS), whole in its Copy button's name, and each row with its cost.
    for (const id of alice.requestIds) {
      expect(page.html).toMatch(new RegExp(`<code class="request-id" id="request-id-\\d+">${id}</code>`));
      expect(page.html).toContain(`aria-label="Copy request id ${id}"`);
    }
    expect(page.html).toContain('<th scope="col">Cost (USD)</th>');
    expect(page.html.match(/<td>\d+\.\d+<\/td><td>[^<]*<\/td><\/tr>/g)?.length).toBeGreaterThanOrEqual(alice.requestIds.length);
    for (const id of bob.requestIds) expect(page.html).not.toContain(id);
    expect(page.html).toContain('<svg class="usage-chart"');
    expect(page.html).toMatch(/aria-label="Requests per day from 2026-10-23 to 2026-11-21 \(UTC\): 7 in all, router\/frontier 7\."/);
  });

  it('exports CSV byte for byte as router usage --csv prints it, and shows the same totals, in any zone and split', async () => {
    for (const tz of ['UTC', 'Asia/Kathmandu']) {
      const page = await alice.browser.get(`/app/usage?tz=${encodeURIComponent(tz)}&by=provider`);
      const range = /calendar days in <strong>[^<]+<\/strong>, (\d{4}-\d{2}-\d{2}) to (\d{4}-\d{2}-\d{2})\./.exec(page.html)!;
      const [from, to] = [range[1]!, range[2]!];
      expect(to).toBe(tz === 'UTC' ? '2026-11-21' : '2026-11-22');
      const report = await runCliJson(cliEnv, 'usage', '--account', alice.accountId, '--from', from, '--to', to, '--tz', tz);
      expect(report.totals.requests).toBeGreaterThan(0);
      expect(page.html).toContain(`<dt>Requests</dt><dd>${report.totals.requests}</dd>`);
      expect(page.html).toContain(`<dt>Cost (USD)</dt><dd>${report.totals.costUsd}</dd>`);
      expect(page.html).toContain(`<dt>Prompt tokens</dt><dd>${report.totals.promptTokens.toLocaleString('en-US')}</dd>`);
      // Every grouping in UTC; in the other zone the ones whose rows the zone moves (each CLI run is a process).
      for (const by of tz === 'UTC' ? ['day', 'route', 'provider', 'key', 'model'] : ['day', 'key']) {
        const csv = await alice.browser.get(`/app/usage.csv?${new URLSearchParams({ by, tz, from, to })}`);
        expect(csv.status).toBe(200);
        expect(csv.headers.get('content-type')).toBe('text/csv; charset=utf-8');
        expect(csv.headers.get('content-disposition')).toBe(`attachment; filename="usage-${from}-to-${to}-by-${by}.csv"`);
        const cli = await runCli(cliEnv, 'usage', '--account', alice.accountId, '--by', by, '--from', from, '--to', to, '--tz', tz, '--csv');
        expect(cli.code).toBe(0);
        expect(csv.html, `${tz} by ${by}`).toBe(cli.stdout);
      }
      // The page's own CSV link (the chart's 30 days) is that same export.
      const link = /href="(\/app\/usage\.csv\?by=day[^"]+)"/.exec(page.html)![1]!.replaceAll('&amp;', '&');
      const csv = await alice.browser.get(link);
      expect(csv.html.trim().split('\n').at(-1)!.split(',')[1]).toBe(String(report.totals.requests));
    }
    // The zone moves the 20:00 UTC requests of the 20th to the 21st in Kathmandu, and the 23:30 ones to the 22nd.
    const kathmandu = await alice.browser.get('/app/usage.csv?by=day&tz=Asia%2FKathmandu&from=2026-11-20&to=2026-11-22');
    expect(kathmandu.html.trim().split('\n').slice(1, 4).map((line) => line.split(',').slice(0, 2).join(','))).toEqual(['2026-11-20,0', '2026-11-21,2', '2026-11-22,5']);
  });

  it('refuses an unknown time zone or split with a clear message, never a 500', async () => {
    const badZone = await alice.browser.get('/app/usage?tz=Mars%2FOlympus');
    expect(badZone.status).toBe(400);
    expect(badZone.html).toContain('unknown time zone &quot;Mars/Olympus&quot; (use an IANA name such as UTC, Europe/Berlin, Asia/Kolkata)');
    expect(badZone.html).toContain('value="Mars/Olympus"');
    const badSplit = await alice.browser.get('/app/usage?by=password');
    expect(badSplit.status).toBe(400);
    expect(badSplit.html).toContain('Choose how to split the charts');
    const script = await alice.browser.get('/app/usage?tz=%3Cscript%3Ealert(1)%3C%2Fscript%3E');
    expect(script.status).toBe(400);
    expect(script.html).not.toContain('<script>alert(1)');
    for (const query of ['tz=Nowhere', 'by=week', 'from=yesterday&to=2026-11-21', 'from=2025-01-01&to=2026-11-21']) {
      const csv = await alice.browser.get(`/app/usage.csv?${query}`);
      expect(csv.status, query).toBe(400);
      expect(csv.headers.get('content-type'), query).toContain('text/html');
    }
  });

  it('shows each key’s last use from the ledger and flags keys idle or never used', async () => {
    const created = await alice.browser.follow(await alice.browser.post('/app/keys', { name: 'spare', expiresInDays: '30' }));
    expect(shownKey(created.html)).not.toBeNull();
    // The zone chosen on the usage page above is remembered for every page: back to UTC for these labels.
    const keys = await alice.browser.get('/app/keys?tz=UTC');
    expect(keys.html).toContain('<dt>Last used</dt><dd>2026-11-21 23:30 UTC</dd>');
    expect(keys.html).toContain('<dt>Last used</dt><dd>never</dd>');
    expect(keys.html).not.toContain('has never been used');
    clock.advance(8 * 86_400_000);
    const week = await alice.browser.get('/app/keys');
    expect(week.html).toContain('spare (…');
    expect(week.html).toMatch(/spare \(…[0-9A-Za-z]{4}\) was created 8 days ago and has never been used/);
    clock.advance(23 * 86_400_000);
    const month = await alice.browser.get('/app/keys');
    expect(month.html).toMatch(/first key \(…[0-9A-Za-z]{4}\) has not been used for 31 days/);
    clock.set('2026-11-21T23:30:00.000Z');
    expect(listedKeyIds(month.html)).toHaveLength(2);
  });

  it('gives the support bundle of the account’s own request, and answers another account’s or a made-up id alike', async () => {
    await alice.browser.get('/app/support');
    const own = await alice.browser.post('/app/support/bundle', { requestId: alice.requestIds[0]! });
    expect(own.status).toBe(200);
    expect(own.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(own.headers.get('content-disposition')).toBe(`attachment; filename="support-bundle-${alice.requestIds[0]}.json"`);
    expect(own.headers.get('cache-control')).toBe('no-store');
    const bundle = JSON.parse(own.html);
    expect(bundle).toMatchObject({ object: 'support_bundle', request: { requestId: alice.requestIds[0] } });
    // The customer's own records and the router's version only: nothing of the operator's setup.
    expect(Object.keys(bundle).sort()).toEqual(['createdAt', 'object', 'request', 'versions']);
    expect(Object.keys(bundle.versions)).toEqual(['router']);
    const { server: serverConfig, providers } = router.server.runtime.config;
    for (const operatorDetail of ['configuration', 'readiness', 'managedAccess', serverConfig.storage, serverConfig.listen.host, `:${serverConfig.listen.port}`, ...providers.providers.map((p) => new URL(p.baseUrl).host)]) {
      expect(own.html, operatorDetail).not.toContain(operatorDetail);
    }
    expect(bundle.request.records).toHaveLength(1);
    expect(bundle.request.records[0]).toMatchObject({ accountId: alice.accountId, status: 200, providerId: 'openai' });
    expect(own.html).not.toContain(alice.key);
    expect(own.html).not.toContain('sk-proj-usage-test-0001');
    expect(own.html).not.toContain('alice-usage@example.com');

    // A request id both accounts used: each gets only its own record.
    const shared = JSON.parse((await alice.browser.post('/app/support/bundle', { requestId: 'shared-client-id' })).html);
    expect(shared.request.records.map((record: { accountId: string }) => record.accountId)).toEqual([alice.accountId]);

    // Bob guesses Alice's ids: the same 404 as an id nobody used, and nothing of hers in the answer.
    await bob.browser.get('/app/support');
    for (const guess of [...alice.requestIds, 'req_0000000000000000000000000000000']) {
      const answer = await bob.browser.post('/app/support/bundle', { requestId: guess });
      expect(answer.status, guess).toBe(404);
      expect(answer.html).toContain(`No request ${guess} was recorded for this account.`);
      expect(answer.html).not.toContain(alice.accountId);
    }
    const bobsCsv = await bob.browser.get('/app/usage.csv?by=key');
    expect(bobsCsv.html).not.toContain(alice.accountId);
    expect(bobsCsv.html.trim().split('\n').at(-1)!.split(',')[1]).toBe('2');
    const bobsPage = await bob.browser.get('/app/usage');
    for (const id of alice.requestIds) expect(bobsPage.html).not.toContain(id);

    const malformed = await alice.browser.post('/app/support/bundle', { requestId: 'not an id <b>' });
    expect(malformed.status).toBe(400);
    expect(malformed.html).not.toContain('<b>');
  });

  it('hands out bundles only to a form of its own with the session’s token', async () => {
    await alice.browser.get('/app/support');
    const noToken = await alice.browser.post('/app/support/bundle', { requestId: alice.requestIds[0]!, csrf: '' });
    expect(noToken.status).toBe(403);
    const otherSite = await alice.browser.post('/app/support/bundle', { requestId: alice.requestIds[0]! }, { origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' });
    expect(otherSite.status).toBe(403);
    const anonymous = new AppClient(router.url);
    const page = await anonymous.get('/app/support');
    expect(page.status).toBe(200);
    expect(page.html).not.toContain('name="requestId"');
    const signedOut = await anonymous.post('/app/support/bundle', { requestId: alice.requestIds[0]! });
    expect([302, 303, 403]).toContain(signedOut.status);
    expect(signedOut.html).not.toContain('support_bundle');
    // The page carries the chosen id into the form.
    const chosen = await alice.browser.get(`/app/support?request=${alice.requestIds[1]}`);
    expect(chosen.html).toContain(`value="${alice.requestIds[1]}"`);
  });
});
