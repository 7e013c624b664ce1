/**
 * Forms at every address the router answers on: with the default kind of appUrl (http://localhost:PORT)
 * a person who opens the README's http://127.0.0.1:PORT signs up and in; another origin stays refused.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppClient, startAppRouter, type AppRouter } from '../app-harness.js';
import { freePort } from '../router-harness.js';

const PASSWORD = 'correct horse battery staple';

describe('account app: forms at the loopback aliases of appUrl', () => {
  let router: AppRouter;
  let port: number;

  beforeAll(async () => {
    port = await freePort();
    router = await startAppRouter({ env: { ROUTER_PORT: String(port), ROUTER_APP_URL: `http://localhost:${port}/app` } });
  });
  afterAll(() => router?.close());

  it('signs up and in at 127.0.0.1 and at localhost', async () => {
    for (const host of ['127.0.0.1', 'localhost']) {
      const browser = new AppClient(`http://${host}:${port}`);
      const onboarding = await browser.signUp(`${host}@example.com`, PASSWORD);
      expect(onboarding.status, host).toBe(200);
      expect(onboarding.html, host).toContain('Generate my first key');
    }
  });

  it('still refuses a form posted from another origin, or marked cross-site', async () => {
    const browser = new AppClient(`http://127.0.0.1:${port}`);
    await browser.get('/app/signup');
    const refusals: Array<Record<string, string>> = [{ origin: `http://127.0.0.1:${port + 1}` }, { origin: 'http://localhost.evil.example' }, { 'sec-fetch-site': 'cross-site' }];
    for (const headers of refusals) {
      const refused = await browser.post('/app/signup', { email: 'x@example.com', password: PASSWORD }, headers);
      expect(refused.status, JSON.stringify(headers)).toBe(403);
    }
    expect(await router.server.runtime.store.findLoginByEmail('x@example.com')).toBeNull();
  });
});
