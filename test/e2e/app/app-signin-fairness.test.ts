/**
 * Sign-in throttling with device cookies that no stranger can turn against an account's owner: a browser
 * that signed in to an account before (its signed device cookie) is stopped by its own failures only, so
 * neither a stranger's failures on the owner's email nor a shared address's spraying locks the owner out
 * there; from an unknown device an email or an address over its limit is refused for every attempt, the
 * correct password included, pointing at the reset link. Behind a reverse proxy listed in
 * server.trustedProxies each client is counted under its own address (an IPv6 one by its /64;
 * X-Forwarded-For through trusted hops only), and the counts are shared by a cluster's workers.
 */
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueLink } from '../../../src/accounts/link-tokens.js';
import { systemClock } from '../../../src/core/clock.js';
import { FAILURES_PER_ADDRESS, FAILURES_PER_EMAIL } from '../../../src/app/signin-throttle.js';
import { startSpawnedRouter, type SpawnedRouter } from '../../security/process-harness.js';
import { AppClient, startAppRouter, type AppRouter } from '../app-harness.js';

const PASSWORD = 'correct horse battery staple';
const DEVICE = 'router_device';

describe('sign-in behind a trusted reverse proxy', () => {
  let router: AppRouter;
  beforeAll(async () => {
    // The tests connect from 127.0.0.1: that is the proxy.
    router = await startAppRouter({ patch: { server: (doc) => void (doc.trustedProxies = ['127.0.0.1/32', '::1']) } });
  });
  afterAll(() => router.close());

  const store = () => router.server.runtime.store;
  const from = (address: string) => ({ 'x-forwarded-for': address });
  async function signInFrom(client: AppClient, address: string, email: string, password: string) {
    await client.get('/app/signin', from(address));
    return client.post('/app/signin', { email, password }, from(address));
  }
  /** An owner who signed in once from this browser and whose session has since ended: the device cookie stays. */
  async function ownerWithDevice(email: string) {
    const owner = new AppClient(router.url);
    await owner.signUp(email, PASSWORD);
    expect(owner.cookies.has(DEVICE)).toBe(true);
    owner.cookies.delete('router_session');
    return owner;
  }
  const pausedMessage = (html: string) => expect(html).toMatch(/sign-in from this browser is paused[\s\S]*reset link[\s\S]*href="\/app\/forgot"/);

  it('an address that keeps failing is refused for every unknown device, correct password included, yet an owner with a device cookie signs in from it', async () => {
    const owner = await ownerWithDevice('owner@example.com');
    const newcomer = new AppClient(router.url);
    await newcomer.get('/app/signup');
    expect((await newcomer.post('/app/signup', { email: 'newcomer@example.com', password: PASSWORD })).status).toBe(200);

    // One office address sprays a wrong password at many accounts (one failure each: no email is over its limit).
    const sprayer = new AppClient(router.url);
    for (let i = 0; i < FAILURES_PER_ADDRESS; i++) expect((await signInFrom(sprayer, '203.0.113.50', `victim${i}@example.com`, 'Password1!')).status).toBe(401);
    expect((await signInFrom(sprayer, '203.0.113.50', 'victim-next@example.com', 'Password1!')).status).toBe(429);
    // Spraying stops: the address is refused even where the password is right, on a device that never signed in.
    const refused = await signInFrom(newcomer, '203.0.113.50', 'newcomer@example.com', PASSWORD);
    expect(refused.status).toBe(429);
    pausedMessage(refused.html);
    expect(newcomer.cookies.has('router_session')).toBe(false);
    // Another client behind the same proxy is counted on its own.
    expect((await signInFrom(new AppClient(router.url), '203.0.113.51', 'victim-next@example.com', 'Password1!')).status).toBe(401);

    // The owner, at that same address, on the browser that signed in before.
    const signedIn = await signInFrom(owner, '203.0.113.50', 'owner@example.com', PASSWORD);
    expect(signedIn.status).toBe(303);
    expect(owner.cookies.has('router_session')).toBe(true);
    const { account } = (await store().findLoginByEmail('owner@example.com'))!;
    const success = (await store().listAuditEvents({ accountId: account.id })).find((event) => event.action === 'signin.success' && event.details.ip === '203.0.113.50');
    expect(success).toBeDefined();
    expect((await store().listSessions(account.id))[0]).toMatchObject({ ip: '203.0.113.50' });
  }, 120_000);

  it('counts IPv6 clients per /64: two addresses of one /64 share a count, another /64 has its own', async () => {
    const sprayer = new AppClient(router.url);
    for (let i = 0; i < FAILURES_PER_ADDRESS; i++) {
      expect((await signInFrom(sprayer, `2001:db8:aa:1::${(i + 1).toString(16)}`, `v6victim${i}@example.com`, 'Password1!')).status).toBe(401);
    }
    expect((await signInFrom(new AppClient(router.url), '2001:db8:aa:1:ffff:1234:5678:9abc', 'v6-next@example.com', 'Password1!')).status).toBe(429);
    expect((await signInFrom(new AppClient(router.url), '2001:db8:aa:2::1', 'v6-next@example.com', 'Password1!')).status).toBe(401);
  }, 120_000);

  it('a stranger’s failures on an email never lock its owner out of the browser they signed in on; every unknown device is refused, correct password included', async () => {
    const owner = await ownerWithDevice('target@example.com');
    for (let i = 0; i < FAILURES_PER_EMAIL; i++) expect((await signInFrom(new AppClient(router.url), `198.51.100.${i + 1}`, 'target@example.com', `guess ${i}`)).status).toBe(401);
    expect((await signInFrom(new AppClient(router.url), '198.51.100.100', 'target@example.com', 'guess again')).status).toBe(429);

    // The right password from a browser that never signed in to this account: refused, and told of the reset link.
    const elsewhere = await signInFrom(new AppClient(router.url), '198.51.100.200', 'target@example.com', PASSWORD);
    expect(elsewhere.status).toBe(429);
    pausedMessage(elsewhere.html);

    // The owner's own browser, from any address, five more stranger failures later.
    for (let i = 0; i < 5; i++) await signInFrom(new AppClient(router.url), `198.51.100.${i + 50}`, 'target@example.com', `more ${i}`);
    const signedIn = await signInFrom(owner, '198.51.100.201', 'target@example.com', PASSWORD);
    expect(signedIn.status).toBe(303);
    expect(owner.cookies.has('router_session')).toBe(true);
    // A wrong password there is a plain failure (counted against that browser only), not a refusal.
    owner.cookies.delete('router_session');
    expect((await signInFrom(owner, '198.51.100.201', 'target@example.com', 'typo')).status).toBe(401);
  }, 120_000);

  it('a device cookie vouches for its own account only: another account’s, or one forged, exempts nothing', async () => {
    const victim = await ownerWithDevice('victim@example.com');
    // The stranger has an account of their own, so a genuine device cookie for it.
    const stranger = await ownerWithDevice('stranger@example.com');
    const strangerCookie = stranger.cookies.get(DEVICE)!;
    const [strangerDevice, strangerMac] = strangerCookie.split('.') as [string, string];
    const [victimDevice] = victim.cookies.get(DEVICE)!.split('.') as [string];
    const withCookie = (value: string) => {
      const client = new AppClient(router.url);
      client.cookies.set(DEVICE, value);
      return client;
    };

    // Its failures on the victim's email count as an unknown device's: the email reaches its limit.
    for (let i = 0; i < FAILURES_PER_EMAIL; i++) expect((await signInFrom(stranger, '192.0.2.10', 'victim@example.com', `guess ${i}`)).status).toBe(401);
    expect((await signInFrom(stranger, '192.0.2.10', 'victim@example.com', PASSWORD)).status).toBe(429);
    // Forged: the victim's device id with the stranger's MAC, a made-up MAC, a bare id.
    for (const forged of [`${victimDevice}.${strangerMac}`, `${strangerDevice}.${'A'.repeat(22)}`, victimDevice]) {
      expect((await signInFrom(withCookie(forged), '192.0.2.11', 'victim@example.com', PASSWORD)).status).toBe(429);
    }
    // The genuine cookie still works, and the stranger's own account is not locked by failures on another email.
    expect((await signInFrom(victim, '192.0.2.12', 'victim@example.com', PASSWORD)).status).toBe(303);
    expect((await signInFrom(withCookie(strangerCookie), '192.0.2.13', 'stranger@example.com', PASSWORD)).status).toBe(303);
  }, 120_000);

  it('a reset link signs in and leaves a device cookie, so the owner refused elsewhere gets back in and stays in', async () => {
    const owner = new AppClient(router.url);
    await owner.get('/app/signup');
    await owner.post('/app/signup', { email: 'reset.me@example.com', password: PASSWORD });
    for (let i = 0; i < FAILURES_PER_EMAIL; i++) await signInFrom(new AppClient(router.url), `192.0.2.${i + 20}`, 'reset.me@example.com', `guess ${i}`);
    expect((await signInFrom(owner, '192.0.2.99', 'reset.me@example.com', PASSWORD)).status).toBe(429);

    // The link the forgot page would mail.
    const link = new URL((await issueLink({ store: store(), clock: systemClock, server: router.server.runtime.config.server }, 'reset', 'reset.me@example.com', 'test')).url);
    await owner.get(link.pathname + link.search, from('192.0.2.99'));
    const NEW_PASSWORD = 'a brand new passphrase';
    expect((await owner.post('/app/link', { token: link.searchParams.get('token')!, password: NEW_PASSWORD }, from('192.0.2.99'))).status).toBe(303);
    expect(owner.cookies.has(DEVICE)).toBe(true);
    owner.cookies.delete('router_session');
    expect((await signInFrom(owner, '192.0.2.99', 'reset.me@example.com', NEW_PASSWORD)).status).toBe(303);
  }, 120_000);

  it('believes only the hops the proxy vouches for: what a client writes in front is ignored', async () => {
    const client = new AppClient(router.url);
    await client.get('/app/signin');
    // The client wrote "192.0.2.1"; the proxy appended the address it saw.
    await client.post('/app/signin', { email: 'spoof@example.com', password: 'Password1!' }, from('192.0.2.1, 198.51.100.77'));
    const failure = (await store().listAuditEvents({ limit: 50 })).find((event) => event.action === 'signin.failure' && event.details.email === 'spoof@example.com');
    expect(failure?.details).toMatchObject({ ip: '198.51.100.77' });
  });

  it('an email under attack is refused before its password is checked, from every address, for a device that never signed in to it', async () => {
    const owner = new AppClient(router.url);
    await owner.get('/app/signup');
    await owner.post('/app/signup', { email: 'target@example.com', password: PASSWORD });
    for (let i = 0; i < FAILURES_PER_EMAIL; i++) await signInFrom(new AppClient(router.url), `198.51.100.${i + 1}`, 'target@example.com', `guess ${i}`);
    expect((await signInFrom(owner, '198.51.100.200', 'target@example.com', PASSWORD)).status).toBe(429);
  }, 60_000);
});

describe('sign-in with no trusted proxies', () => {
  let router: AppRouter;
  beforeAll(async () => {
    router = await startAppRouter();
  });
  afterAll(() => router.close());

  it('never reads X-Forwarded-For: the address is the connection’s', async () => {
    const client = new AppClient(router.url);
    await client.get('/app/signin');
    await client.post('/app/signin', { email: 'direct@example.com', password: 'Password1!' }, { 'x-forwarded-for': '198.51.100.9' });
    const failure = (await router.server.runtime.store.listAuditEvents({ limit: 20 })).find((event) => event.details.email === 'direct@example.com');
    expect(failure?.details.ip).toMatch(/^(127\.0\.0\.1|::1)$/);
  });
});

/** One request on a connection of its own, so a cluster hands successive requests to different workers. */
function freshConnection(url: string, method: 'GET' | 'POST', headers: Record<string, string>, body?: string): Promise<{ status: number; setCookie: string[]; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method, headers: { 'user-agent': 'Mozilla/5.0 (X11; Linux x86_64) Chrome/130.0', accept: 'text/html', ...headers }, agent: false }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => void (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, setCookie: res.headers['set-cookie'] ?? [], text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

describe('sign-in throttle in cluster mode (two workers, a spawned router)', { timeout: 120_000 }, () => {
  let router: SpawnedRouter;
  beforeAll(async () => {
    router = await startSpawnedRouter({ readyTimeoutMs: 40_000, env: { ROUTER_WORKERS: '2' } });
  }, 60_000);
  afterAll(() => router?.close());

  // One form token for every post: the posts alone then alternate between the workers (round-robin per connection).
  let form: { cookie: string; csrf: string } | undefined;
  async function post(path: string, fields: Record<string, string>, deviceCookie?: string) {
    if (!form) {
      const page = await freshConnection(`${router.url}/app/signin`, 'GET', {});
      form = { cookie: page.setCookie.map((line) => line.split(';')[0]).join('; '), csrf: /name="csrf" value="([^"]+)"/.exec(page.text)![1]! };
    }
    const body = new URLSearchParams({ csrf: form.csrf, ...fields }).toString();
    const cookie = deviceCookie ? `${form.cookie}; ${deviceCookie}` : form.cookie;
    return freshConnection(`${router.url}${path}`, 'POST', { cookie, 'content-type': 'application/x-www-form-urlencoded' }, body);
  }

  it('counts failures for every worker: the attempt after the limit is refused whichever worker answers', async () => {
    expect((await post('/app/signup', { email: 'shared@example.com', password: PASSWORD })).status).toBe(200);
    const answers: number[] = [];
    for (let i = 0; i < FAILURES_PER_EMAIL; i++) answers.push((await post('/app/signin', { email: 'shared@example.com', password: `wrong ${i}` })).status);
    expect(answers).toEqual(Array(FAILURES_PER_EMAIL).fill(401));
    // Each worker alone saw at most three of the five failures.
    expect((await post('/app/signin', { email: 'shared@example.com', password: PASSWORD })).status).toBe(429);
  });

  it('a device cookie one worker set exempts its browser on every worker (the secret is shared)', async () => {
    expect((await post('/app/signup', { email: 'cluster.owner@example.com', password: PASSWORD })).status).toBe(200);
    const first = await post('/app/signin', { email: 'cluster.owner@example.com', password: PASSWORD });
    expect(first.status).toBe(303);
    const device = first.setCookie.find((line) => line.startsWith('router_device='))!.split(';')[0]!;
    for (let i = 0; i < FAILURES_PER_EMAIL; i++) expect((await post('/app/signin', { email: 'cluster.owner@example.com', password: `wrong ${i}` })).status).toBe(401);
    expect((await post('/app/signin', { email: 'cluster.owner@example.com', password: PASSWORD })).status).toBe(429);
    // Two posts on fresh connections: one per worker.
    for (let i = 0; i < 2; i++) expect((await post('/app/signin', { email: 'cluster.owner@example.com', password: PASSWORD }, device)).status).toBe(303);
  });
});
