/**
 * The provider-key Test over real HTTP: it tells a provider the router cannot reach (a refused port)
 * from a key the provider rejected (the fake's 401) and from a provider that answered without judging
 * the key (429, 503), and answers post-redirect-get, its result shown once.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, manualClock, pointProvidersAt, startFakes, type Fakes } from '../router-harness.js';
import { AppClient, startAppRouter, type AppRouter } from '../app-harness.js';

const PASSWORD = 'correct horse battery staple';

describe('provider-key Test: unreachable, rejected, or another upstream error', () => {
  let fakes: Fakes;
  let router: AppRouter;
  const clock = manualClock('2026-11-21T10:00:00.000Z');

  beforeAll(async () => {
    fakes = await startFakes();
    // Nothing listens on this port: every connection to "Anthropic" is refused.
    const refused = `http://127.0.0.1:${await freePort()}`;
    router = await startAppRouter({ clock, patch: { providers: pointProvidersAt({ ...fakes.urls, anthropic: refused }) } });
  }, 60_000);
  afterAll(async () => {
    await router?.close();
    await fakes?.close();
  });

  async function signedInWithKeys(email: string): Promise<AppClient> {
    const browser = new AppClient(router.url);
    await browser.signUp(email, PASSWORD);
    await browser.get('/app/provider-keys');
    await browser.post('/app/provider-keys', { provider: 'openai', key: 'sk-proj-verdict-0001' });
    await browser.post('/app/provider-keys', { provider: 'anthropic', key: 'sk-ant-verdict-0002' });
    return browser;
  }

  async function test(browser: AppClient, provider: string) {
    clock.advance(10_000); // past the few seconds between tests
    const posted = await browser.post(`/app/provider-keys/${provider}/test`, {});
    expect(posted).toMatchObject({ status: 303, location: '/app/provider-keys' });
    return browser.follow(posted);
  }

  it('says a refused connection left the key unchecked, and does not mark the key rejected', async () => {
    const browser = await signedInWithKeys('unreached@example.com');
    const page = await test(browser, 'anthropic');
    expect(page.html).toContain('Could not reach Anthropic (the connection was refused), so the key was not checked.');
    expect(page.html).not.toContain('rejected this key');
    expect(page.html).not.toContain('badge rejected');
    // Shown once: a reload neither repeats the message nor calls anybody again.
    expect((await browser.get('/app/provider-keys')).html).not.toContain('Could not reach Anthropic');
  });

  it('says the provider rejected the key on its 401, and marks it failing', async () => {
    const browser = await signedInWithKeys('rejected@example.com');
    fakes.openai.failNext({ kind: 'status', status: 401 });
    const page = await test(browser, 'openai');
    expect(page.html).toContain('OpenAI rejected this key (HTTP 401');
    expect(page.html).not.toContain('Could not reach');
    expect(page.html).toContain('badge rejected');
  });

  it('tells a 429 and a 503 apart from a rejection: the provider answered without judging the key', async () => {
    const browser = await signedInWithKeys('upstream@example.com');
    fakes.openai.failNext({ kind: 'status', status: 429 });
    const limited = await test(browser, 'openai');
    expect(limited.html).toContain('OpenAI answered HTTP 429');
    expect(limited.html).toContain('without judging the key');
    expect(limited.html).not.toContain('rejected this key');
    fakes.openai.failNext({ kind: 'status', status: 503 });
    const down = await test(browser, 'openai');
    expect(down.html).toContain('OpenAI answered HTTP 503');
    expect(down.html).toContain('the provider is having trouble');
    expect(down.html).not.toContain('badge rejected');
    fakes.reset();
  });
});
