/**
 * The playground's own key and output cap, over HTTP with the fake providers: a plan capped below the
 * playground's 400 output tokens still gets an answer, asked for at most its cap; one key per account,
 * reused across requests and a restart on the same store, never listed among the person's keys; revoked
 * by the operator, the next request makes the next one and works.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isPlaygroundKey } from '../../../src/accounts/key-service.js';
import { PLAYGROUND_MAX_TOKENS } from '../../../src/app/playground/loopback-chat.js';
import { AppClient, listedKeyIds, startAppRouter, type AppRouter } from '../app-harness.js';
import { frontierOrder, pointProvidersAt, startFakes, type Fakes } from '../router-harness.js';

const PASSWORD = 'correct horse battery staple';
const MESSAGE = 'Say hello and tell me in one sentence what you can do.';
const CAP = 100;

let fakes: Fakes;
let dataDir: string;
beforeAll(async () => {
  fakes = await startFakes();
  dataDir = mkdtempSync(join(tmpdir(), 'router-playground-'));
});
afterAll(async () => {
  await fakes?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

/** A router on this test's own SQLite file (so a second one is a restart), the Free plan capped at CAP output tokens. */
const start = () =>
  startAppRouter({
    env: { ROUTER_STORAGE: `sqlite:${join(dataDir, 'router.db')}` },
    patch: {
      providers: pointProvidersAt(fakes.urls),
      routes: frontierOrder(['openai']),
      plans: (doc) => void Object.assign(doc.plans.find((plan: { id: string }) => plan.id === 'free'), { maxOutputTokens: CAP }),
    },
  });

describe('the playground’s key and output cap', () => {
  let router: AppRouter;
  afterAll(async () => router?.close());

  const playgroundKeys = async (accountId: string) => (await router.server.runtime.store.listApiKeys(accountId)).filter(isPlaygroundKey);
  async function ask(browser: AppClient) {
    await browser.get('/app/playground');
    const answered = await browser.post('/app/playground', { profile: 'router/frontier', message: MESSAGE });
    expect(answered.status).toBe(200);
    expect(answered.html).toContain('Hello from openai-fake');
    return answered;
  }
  async function signedIn(email: string) {
    const browser = new AppClient(router.url);
    const page = await browser.signIn(email, PASSWORD);
    expect(page.status).toBe(200);
    return browser;
  }

  it('asks for at most the plan’s cap; one key, reused across requests and a restart, not on the keys page', async () => {
    expect(CAP).toBeLessThan(PLAYGROUND_MAX_TOKENS);
    router = await start();
    const first = new AppClient(router.url);
    await first.signUp('playground.key@example.com', PASSWORD);
    await first.get('/app/provider-keys');
    await first.post('/app/provider-keys', { provider: 'openai', key: 'sk-proj-playground-key-1111' });
    const { account } = (await router.server.runtime.store.findLoginByEmail('playground.key@example.com'))!;
    fakes.reset();

    await ask(first);
    await ask(first);
    expect(fakes.openai.requests).toHaveLength(2);
    for (const request of fakes.openai.requests) {
      const body = request.body as { max_tokens?: number; max_completion_tokens?: number };
      expect(body.max_tokens ?? body.max_completion_tokens).toBe(CAP);
    }
    const made = await playgroundKeys(account.id);
    expect(made).toHaveLength(1);
    expect(made[0]!.expiresAt).toBeNull();
    expect(listedKeyIds((await first.get('/app/keys')).html)).toEqual([]);
    expect((await first.get(`/app/keys/${made[0]!.id}/revoke`)).status).toBe(404);

    await router.close();
    router = await start();
    await ask(await signedIn('playground.key@example.com'));
    expect(await playgroundKeys(account.id)).toEqual(made);
  }, 90_000);

  it('revoked by the operator, the next request makes the next key and answers; the revoked one stays revoked', async () => {
    router ??= await start();
    const browser = await signedIn('playground.key@example.com');
    const { account } = (await router.server.runtime.store.findLoginByEmail('playground.key@example.com'))!;
    const [current] = await playgroundKeys(account.id);
    await router.server.runtime.keys.revoke(current!.id, 'cli');
    await ask(browser);
    const after = await playgroundKeys(account.id);
    expect(after).toHaveLength(2);
    expect(after.filter((key) => key.revokedAt === null).map((key) => key.id)).not.toContain(current!.id);
    await ask(browser);
    expect(await playgroundKeys(account.id)).toHaveLength(2);
  }, 60_000);

  it('keeps the playground key’s name for it: a person’s key cannot take it', async () => {
    router ??= await start();
    const browser = await signedIn('playground.key@example.com');
    await browser.get('/app/keys');
    const refused = await browser.post('/app/keys', { name: ' playground (Browser) ', expiresInDays: '30' });
    expect(refused.status).toBe(400);
    expect(refused.html).toContain('kept for the playground');
    expect(refused.html).toContain('id="key-name-error"');
  }, 60_000);
});
