/**
 * Sign-in throttling that no account can turn against another: a shared address that keeps failing
 * never stops another account's owner from signing in; behind a reverse proxy listed in
 * server.trustedProxies each client is counted under its own address (X-Forwarded-For through trusted
 * hops only, never the header of an untrusted peer); and the counts are shared by a cluster's workers.
 */
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FAILURES_PER_ADDRESS, FAILURES_PER_EMAIL } from '../../../src/app/signin-throttle.js';
import { startSpawnedRouter, type SpawnedRouter } from '../../security/process-harness.js';
import { AppClient, startAppRouter, type AppRouter } from '../app-harness.js';

const PASSWORD = 'correct horse battery staple';

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

  it('an address that keeps failing is answered 429 for wrong passwords, yet the owner of another account signs in from it', async () => {
    const owner = new AppClient(router.url);
    await owner.get('/app/signup');
    expect((await owner.post('/app/signup', { email: 'owner@example.com', password: PASSWORD })).status).toBe(200);

    // One office address sprays a wrong password at many accounts (one failure each: no account is under attack).
    const sprayer = new AppClient(router.url);
    for (let i = 0; i < FAILURES_PER_ADDRESS; i++) expect((await signInFrom(sprayer, '203.0.113.50', `victim${i}@example.com`, 'Password1!')).status).toBe(401);
    expect((await signInFrom(sprayer, '203.0.113.50', 'victim-next@example.com', 'Password1!')).status).toBe(429);
    // Another client behind the same proxy is counted on its own.
    expect((await signInFrom(new AppClient(router.url), '203.0.113.51', 'victim-next@example.com', 'Password1!')).status).toBe(401);

    // The owner, at that same address, signs in with the right password.
    const signedIn = await signInFrom(owner, '203.0.113.50', 'owner@example.com', PASSWORD);
    expect(signedIn.status).toBe(303);
    expect(owner.cookies.has('router_session')).toBe(true);
    const { account } = (await store().findLoginByEmail('owner@example.com'))!;
    const success = (await store().listAuditEvents({ accountId: account.id })).find((event) => event.action === 'signin.success');
    expect(success?.details).toMatchObject({ ip: '203.0.113.50' });
    expect((await store().listSessions(account.id))[0]).toMatchObject({ ip: '203.0.113.50' });
  }, 120_000);

  it('believes only the hops the proxy vouches for: what a client writes in front is ignored', async () => {
    const client = new AppClient(router.url);
    await client.get('/app/signin');
    // The client wrote "192.0.2.1"; the proxy appended the address it saw.
    await client.post('/app/signin', { email: 'spoof@example.com', password: 'Password1!' }, from('192.0.2.1, 198.51.100.77'));
    const failure = (await store().listAuditEvents({ limit: 50 })).find((event) => event.action === 'signin.failure' && event.details.email === 'spoof@example.com');
    expect(failure?.details).toMatchObject({ ip: '198.51.100.77' });
  });

  it('an account under attack is refused before its password is checked, from every address', async () => {
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
  async function post(path: string, fields: Record<string, string>) {
    if (!form) {
      const page = await freshConnection(`${router.url}/app/signin`, 'GET', {});
      form = { cookie: page.setCookie.map((line) => line.split(';')[0]).join('; '), csrf: /name="csrf" value="([^"]+)"/.exec(page.text)![1]! };
    }
    const body = new URLSearchParams({ csrf: form.csrf, ...fields }).toString();
    return freshConnection(`${router.url}${path}`, 'POST', { cookie: form.cookie, 'content-type': 'application/x-www-form-urlencoded' }, body);
  }

  it('counts failures for every worker: the attempt after the limit is refused whichever worker answers', async () => {
    expect((await post('/app/signup', { email: 'shared@example.com', password: PASSWORD })).status).toBe(200);
    const answers: number[] = [];
    for (let i = 0; i < FAILURES_PER_EMAIL; i++) answers.push((await post('/app/signin', { email: 'shared@example.com', password: `wrong ${i}` })).status);
    expect(answers).toEqual(Array(FAILURES_PER_EMAIL).fill(401));
    // Each worker alone saw at most three of the five failures.
    expect((await post('/app/signin', { email: 'shared@example.com', password: PASSWORD })).status).toBe(429);
  });
});
