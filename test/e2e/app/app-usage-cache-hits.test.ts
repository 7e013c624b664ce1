/**
 * Response cache hits on the usage page and in its CSV (docs/caching.md): an answer replayed from the
 * cache is counted as a hit with the spend it saved, for the account that sent it only.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppClient, shownKey, startAppRouter, type AppRouter } from '../app-harness.js';
import { pointProvidersAt, startFakes, type Fakes } from '../router-harness.js';

const PASSWORD = 'correct horse battery staple';

describe('account app: response cache hits on the usage page and in the CSV', { timeout: 90_000 }, () => {
  let fakes: Fakes;
  let router: AppRouter;

  async function newUser(email: string) {
    const browser = new AppClient(router.url);
    await browser.signUp(email, PASSWORD);
    const key = shownKey((await browser.follow(await browser.post('/app/onboarding/key', {}))).html)!;
    await browser.get('/app/provider-keys');
    await browser.post('/app/provider-keys', { provider: 'openai', key: 'sk-proj-cache-hits-0001' });
    return { browser, key };
  }

  const chat = (key: string, content: string) =>
    fetch(`${router.baseURL}/chat/completions`, {
      method: 'POST',
      headers: { 'user-agent': 'router-tests/1.0', authorization: `Bearer ${key}`, 'content-type': 'application/json', 'x-router-cache': 'true' },
      body: JSON.stringify({ model: 'router/frontier', messages: [{ role: 'user', content }] }),
    });

  /** The value shown beside a `<dt>` label on the usage page. */
  const shown = (html: string, label: string) => new RegExp(`<dt>${label}</dt><dd>([^<]*)</dd>`).exec(html)?.[1];

  beforeAll(async () => {
    fakes = await startFakes();
    router = await startAppRouter({ patch: { providers: pointProvidersAt(fakes.urls) } });
  });
  afterAll(async () => {
    await router?.close();
    await fakes?.close();
  });

  it('counts two hits and the spend they saved for the account that repeated itself, and none for another', async () => {
    const alice = await newUser('alice-cache-hits@example.com');
    const bob = await newUser('bob-cache-hits@example.com');
    const statuses: string[] = [];
    for (let i = 0; i < 3; i++) {
      const response = await chat(alice.key, 'The same question, three times');
      expect(response.status).toBe(200);
      statuses.push(response.headers.get('x-router-cache-status')!);
    }
    expect(statuses).toEqual(['MISS', 'HIT', 'HIT']);
    expect((await chat(bob.key, 'Something else')).status).toBe(200);
    await router.server.runtime.usage.ledger!.flush();

    const page = (await alice.browser.get('/app/usage')).html;
    expect(shown(page, 'Response cache hits')).toBe('2');
    expect(Number(shown(page, 'Saved by cache hits \\(USD\\)'))).toBeGreaterThan(0);
    expect(shown((await bob.browser.get('/app/usage')).html, 'Response cache hits')).toBe('0');

    const csv = (await alice.browser.get('/app/usage.csv?by=day')).html.trim().split('\n');
    const header = csv[0]!.split(',');
    const total = csv.at(-1)!.split(',');
    expect(total[header.indexOf('response_cache_hits')]).toBe('2');
    expect(Number(total[header.indexOf('response_cache_saved_usd')])).toBeGreaterThan(0);
  });
});
