/**
 * Sign-up tells no one which emails have accounts: a new email and one that already has an account get
 * the same page, with no session either way, in the same time; the existing account is untouched and
 * the operator gets an audit note.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppClient, startAppRouter, type AppRouter, type Page } from '../app-harness.js';
import { owaspPasswordHashes } from '../../support/cheap-password-hashing.js';

// The timing test compares two paths that both hash at production cost (not test/support/vitest-setup.ts's cheap one).
owaspPasswordHashes();

const PASSWORD = 'correct horse battery staple';

describe('sign-up that reveals nothing', () => {
  let router: AppRouter;
  beforeAll(async () => {
    router = await startAppRouter();
  });
  afterAll(() => router.close());

  const store = () => router.server.runtime.store;

  async function signUp(email: string, password: string): Promise<{ page: Page; ms: number; client: AppClient }> {
    const client = new AppClient(router.url);
    await client.get('/app/signup');
    const started = performance.now();
    const page = await client.post('/app/signup', { email, password });
    return { page, ms: performance.now() - started, client };
  }

  /** The page with what differs by request alone (the form token, the email typed) blanked out. */
  const shape = (page: Page, email: string) => page.html.replace(/name="csrf" value="[^"]+"/g, 'name="csrf" value=""').replaceAll(email, 'EMAIL');

  it('answers an email that has an account exactly as a new one, signs no one in, and leaves the account as it was', async () => {
    const owner = await signUp('known@example.com', PASSWORD);
    expect(owner.page.status).toBe(200);
    const { account } = (await store().findLoginByEmail('known@example.com'))!;
    const hashBefore = (await store().getLogin(account.id))!.passwordHash;

    const taken = await signUp('known@example.com', 'attacker chosen passphrase');
    const fresh = await signUp('fresh@example.com', 'attacker chosen passphrase');
    expect(taken.page.status).toBe(fresh.page.status);
    expect(shape(taken.page, 'known@example.com')).toBe(shape(fresh.page, 'fresh@example.com'));
    expect(taken.page.html).not.toMatch(/already exists/i);
    for (const { page, client } of [taken, fresh]) {
      expect(page.headers.getSetCookie().some((line) => line.startsWith('router_session='))).toBe(false);
      expect(client.cookies.has('router_session')).toBe(false);
    }

    expect((await store().getLogin(account.id))!.passwordHash).toBe(hashBefore);
    expect(await store().listSessions(account.id)).toHaveLength(0);
    const attacker = new AppClient(router.url);
    expect((await attacker.signIn('known@example.com', 'attacker chosen passphrase')).status).toBe(401);
    expect((await new AppClient(router.url).signIn('known@example.com', PASSWORD)).status).toBe(200);

    const notes = (await store().listAuditEvents({ limit: 100 })).filter((event) => event.action === 'signup.existing_email');
    expect(notes).toHaveLength(1);
    expect(notes[0]).toMatchObject({ accountId: null, details: { email: 'known@example.com' } });
    expect(JSON.stringify(notes[0])).not.toContain('attacker chosen passphrase');
  }, 60_000);

  it('takes as long for an email that has an account as for a new one (both hash the password)', async () => {
    const times = { taken: [] as number[], fresh: [] as number[] };
    await signUp('timed@example.com', PASSWORD);
    for (let i = 0; i < 5; i++) {
      times.taken.push((await signUp('timed@example.com', PASSWORD)).ms);
      times.fresh.push((await signUp(`timed-${i}@example.com`, PASSWORD)).ms);
    }
    const median = (list: number[]) => [...list].sort((a, b) => a - b)[Math.floor(list.length / 2)]!;
    const ratio = median(times.taken) / median(times.fresh);
    // scrypt at OWASP cost dominates either path; skipping it would answer in a few milliseconds.
    expect(ratio).toBeGreaterThan(0.6);
    expect(ratio).toBeLessThan(1.6);
  }, 90_000);
});
