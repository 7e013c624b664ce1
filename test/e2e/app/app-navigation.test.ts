/**
 * Finding one's way: sign-in returns to the page asked for (paths of the app only), a form posted on an
 * ended session says so, browsers get an HTML 404 page for unknown addresses while API clients keep the
 * JSON one, and /favicon.ico answers.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppClient, startAppRouter, type AppRouter } from '../app-harness.js';

const PASSWORD = 'correct horse battery staple';

describe('account app: navigation', () => {
  let router: AppRouter;

  beforeAll(async () => {
    router = await startAppRouter();
  });
  afterAll(() => router?.close());

  it('returns to the requested page after sign-in, and never to another site', async () => {
    const owner = new AppClient(router.url);
    await owner.signUp('return@example.com', PASSWORD);
    const browser = new AppClient(router.url);
    const asked = await browser.get('/app/usage?by=key');
    expect(asked.status).toBe(302);
    expect(asked.location).toBe('/app/signin?next=%2Fapp%2Fusage%3Fby%3Dkey');
    const signin = await browser.get(asked.location!);
    expect(signin.html).toContain('name="next" value="/app/usage?by=key"');
    const signedIn = await browser.post('/app/signin', { email: 'return@example.com', password: PASSWORD, next: '/app/usage?by=key' });
    expect(signedIn.location).toBe('/app/usage?by=key');
    const elsewhere = new AppClient(router.url);
    await elsewhere.get('/app/signin');
    const offsite = await elsewhere.post('/app/signin', { email: 'return@example.com', password: PASSWORD, next: '//evil.example/app/keys' });
    expect(offsite.location).toBe('/app/');
  });

  it('a form posted after the session ended leads to a sign-in page that says so', async () => {
    const browser = new AppClient(router.url);
    await browser.signUp('ended@example.com', PASSWORD);
    await browser.get('/app/keys');
    browser.cookies.delete('router_session');
    const posted = await browser.post('/app/keys', { name: 'laptop' });
    expect(posted.location).toBe('/app/signin?ended=1');
    expect((await browser.follow(posted)).html).toContain('Your session ended');
  });

  it('answers browsers with an HTML 404 page and API clients with the JSON 404, and serves a favicon', async () => {
    const page = await fetch(`${router.url}/no/such/page`, { headers: { accept: 'text/html', 'user-agent': 'Mozilla/5.0 Chrome/130' } });
    expect(page.status).toBe(404);
    expect(page.headers.get('content-type')).toContain('text/html');
    expect(await page.text()).toContain('Page not found');
    const api = await fetch(`${router.url}/no/such/page`, { headers: { accept: 'application/json', 'user-agent': 'tests/1.0' } });
    expect(api.status).toBe(404);
    expect(((await api.json()) as { error: { code: string } }).error.code).toBe('not_found');
    const v1 = await fetch(`${router.url}/v1/nothing`, { headers: { accept: 'text/html', 'user-agent': 'Mozilla/5.0 Chrome/130' } });
    expect(v1.headers.get('content-type')).toContain('application/json');
    const icon = await fetch(`${router.url}/favicon.ico`);
    expect(icon.status).toBe(200);
    expect(icon.headers.get('content-type')).toBe('image/svg+xml');
  });
});
