/**
 * The account app's sign-in side over real HTTP: sign-up, sign-in, sign-out, cookies, session
 * timeouts, password changes, deactivation, throttling, audit, invite and reset links.
 */
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueLink } from '../../../src/accounts/link-tokens.js';
import { FAILURES_PER_EMAIL } from '../../../src/app/signin-throttle.js';
import { manualClock, json } from '../router-harness.js';
import { AppClient, startAppRouter, type AppRouter } from '../app-harness.js';
import { cheapPasswordHashes, owaspPasswordHashes } from '../../support/cheap-password-hashing.js';

const PASSWORD = 'correct horse battery staple';
const clock = manualClock('2026-11-21T10:00:00.000Z');

describe('account app: signing in and out', () => {
  let router: AppRouter;
  const store = () => router.server.runtime.store;
  const actions = async (accountId: string) => (await store().listAuditEvents({ accountId })).map((event) => event.action);

  beforeAll(async () => {
    router = await startAppRouter({ clock });
  });
  afterAll(() => router.close());

  // This one reads the hash as production writes it; the others hash cheaply (test/support/vitest-setup.ts).
  // Its two OWASP-cost hashes can take more than 20 s while other test files keep both cores busy.
  describe('at the production hashing cost', () => {
    beforeAll(owaspPasswordHashes);
    afterAll(cheapPasswordHashes);

    it('signs up on Free, then signs in to a server-side session: random token in an HttpOnly SameSite=Lax cookie, only its hash stored', async () => {
      const browser = new AppClient(router.url);
      await browser.get('/app/signup');
      const created = await browser.post('/app/signup', { email: 'Ada@Example.com', password: PASSWORD });
      // The same page whether or not the email had an account: sign in next (see the sign-up enumeration test).
      expect(created.status).toBe(200);
      expect(created.html).toContain('Next step: sign in.');
      expect(created.html).toContain('value="ada@example.com"');
      expect(browser.cookies.has('router_session')).toBe(false);
      const signedIn = await browser.post('/app/signin', { email: 'ada@example.com', password: PASSWORD });
      expect(signedIn.status).toBe(303);
      const cookie = signedIn.headers.getSetCookie().find((line) => line.startsWith('router_session='))!;
      expect(cookie).toMatch(/; HttpOnly/i);
      expect(cookie).toMatch(/; SameSite=Lax/i);
      expect(cookie).toMatch(/; Path=\//i);
      expect(cookie).not.toMatch(/Secure/i); // http://127.0.0.1: development
      const token = browser.cookies.get('router_session')!;
      expect(Buffer.from(token, 'base64url').length).toBeGreaterThanOrEqual(16);
      const { account } = (await store().findLoginByEmail('ada@example.com'))!;
      expect(account).toMatchObject({ email: 'ada@example.com', plan: 'free', status: 'active' });
      const [session] = await store().listSessions(account.id);
      expect(session!.tokenHash).toBe(createHash('sha256').update(token).digest('hex'));
      expect(JSON.stringify(await store().listSessions(account.id))).not.toContain(token);
      const onboarding = await browser.follow(signedIn);
      expect(onboarding.status).toBe(200);
      expect(onboarding.html).toContain('Generate my first key');
      const login = await store().getLogin(account.id);
      expect(login!.passwordHash).toMatch(/^scrypt\$131072\$8\$1\$/);
      expect(login!.passwordHash).not.toContain(PASSWORD);
    }, 60_000);
  });

  it('signs in with a new session each time (a planted token is never adopted), and signs out by ending it on the server', async () => {
    const first = new AppClient(router.url);
    await first.signUp('bob@example.com', PASSWORD);
    const planted = 'attacker-chosen-session-token-value-0123456789ab';
    const second = new AppClient(router.url);
    second.cookies.set('router_session', planted);
    const again = await second.signIn('bob@example.com', PASSWORD);
    expect(again.status).toBe(200);
    const issued = second.cookies.get('router_session');
    expect(issued).not.toBe(planted);
    expect(issued).not.toBe(first.cookies.get('router_session'));
    const { account } = (await store().findLoginByEmail('bob@example.com'))!;
    expect(await store().listSessions(account.id)).toHaveLength(2);
    const out = await first.post('/app/signout', {});
    expect(out.status).toBe(303);
    expect(first.cookies.has('router_session')).toBe(false);
    expect(await store().listSessions(account.id)).toHaveLength(1);
    expect((await first.get('/app/keys')).location).toBe('/app/signin?next=%2Fapp%2Fkeys');
    expect(await actions(account.id)).toEqual(expect.arrayContaining(['signin.success', 'signout']));
  });

  it('refuses wrong passwords and unknown emails with one generic message, audits each attempt, and throttles per email for unknown devices', async () => {
    const owner = new AppClient(router.url);
    await owner.signUp('carol@example.com', PASSWORD);
    const { account } = (await store().findLoginByEmail('carol@example.com'))!;
    const attacker = new AppClient(router.url);
    const wrong = await attacker.signIn('carol@example.com', 'not the password at all');
    const unknown = await attacker.signIn('nobody@example.com', 'not the password at all');
    expect(wrong.status).toBe(401);
    expect(unknown.status).toBe(401);
    // The one message sits at the password field (form-state.ts), the email kept.
    const message = (html: string) => /<p class="field-error" id="password-error">([^<]+)<\/p>/.exec(html)?.[1];
    expect(message(wrong.html)).toBeDefined();
    expect(message(wrong.html)).toBe(message(unknown.html));
    for (let i = 1; i < FAILURES_PER_EMAIL; i++) await attacker.signIn('carol@example.com', `guess number ${i} wrong`);
    const throttled = await attacker.signIn('carol@example.com', PASSWORD);
    expect(throttled.status).toBe(429);
    // Refused with the right password: the message says why and where to go instead (the same for any email over its limit).
    expect(message(throttled.html)).toMatch(/paused .*reset link/);
    expect(attacker.cookies.has('router_session')).toBe(false);
    // The owner's own browser (it signed in at sign-up) is not refused.
    owner.cookies.delete('router_session');
    expect((await owner.signIn('carol@example.com', PASSWORD)).status).toBe(200);
    expect(owner.cookies.has('router_session')).toBe(true);
    const events = await store().listAuditEvents({ limit: 200 });
    expect(events.filter((event) => event.action === 'signin.failure' && event.accountId === account.id)).toHaveLength(FAILURES_PER_EMAIL);
    expect(events.some((event) => event.action === 'signin.failure' && event.details.email === 'nobody@example.com' && event.accountId === null)).toBe(true);
    expect(events.some((event) => event.action === 'signin.throttled' && event.details.email === 'carol@example.com')).toBe(true);
    clock.advance(16 * 60_000);
    expect((await attacker.signIn('carol@example.com', PASSWORD)).status).toBe(200);
    // The 60 s allow for a dozen scrypt hashes even at OWASP cost (each up to ~1.2 s on a loaded 2-core CI machine).
  }, 60_000);

  it('ends sessions after the idle timeout and after the absolute timeout', async () => {
    const browser = new AppClient(router.url);
    await browser.signUp('dave@example.com', PASSWORD);
    clock.advance(59 * 60_000);
    expect((await browser.get('/app/security')).status).toBe(200);
    clock.advance(61 * 60_000);
    expect((await browser.get('/app/security')).location).toBe('/app/signin?next=%2Fapp%2Fsecurity');
    await browser.signIn('dave@example.com', PASSWORD);
    for (let step = 0; step < 14; step++) {
      clock.advance(50 * 60_000);
      expect((await browser.get('/app/security')).status).toBe(200);
    }
    clock.advance(50 * 60_000); // 12.5 hours after sign-in, never idle for long
    expect((await browser.get('/app/security')).location).toBe('/app/signin?next=%2Fapp%2Fsecurity');
  });

  it('changes the password only with the current one, and then signs out every other session', async () => {
    const laptop = new AppClient(router.url);
    const phone = new AppClient(router.url);
    await laptop.signUp('erin@example.com', PASSWORD);
    await phone.signIn('erin@example.com', PASSWORD);
    await laptop.get('/app/security');
    const refused = await laptop.post('/app/security/password', { currentPassword: 'wrong wrong wrong', newPassword: 'a brand new password' });
    expect(refused.status).toBe(400);
    expect((await phone.get('/app/security')).status).toBe(200);
    await laptop.get('/app/security');
    const changed = await laptop.post('/app/security/password', { currentPassword: PASSWORD, newPassword: 'a brand new password' });
    expect(changed.status).toBe(200);
    expect(changed.html).toContain('1 other session signed out');
    expect((await phone.get('/app/security')).location).toBe('/app/signin?next=%2Fapp%2Fsecurity');
    expect((await laptop.get('/app/security')).status).toBe(200);
    expect((await new AppClient(router.url).signIn('erin@example.com', PASSWORD)).status).toBe(401);
    expect((await new AppClient(router.url).signIn('erin@example.com', 'a brand new password')).status).toBe(200);
  });

  it('ends every session on deactivation, refuses sign-in, and the inactive_account error links to the page that explains it', async () => {
    const browser = new AppClient(router.url);
    await browser.signUp('frank@example.com', PASSWORD);
    const { account } = (await store().findLoginByEmail('frank@example.com'))!;
    const { key } = await router.server.runtime.keys.issue(account.id, 'k', 'test');
    await store().deactivateAccount(account.id, 'cli');
    expect(await store().listSessions(account.id)).toEqual([]);
    expect((await browser.get('/app/keys')).location).toBe('/app/signin?next=%2Fapp%2Fkeys');
    const signIn = await new AppClient(router.url).post('/app/signin', {}).then(async () => {
      const client = new AppClient(router.url);
      await client.get('/app/signin');
      return client.post('/app/signin', { email: 'frank@example.com', password: PASSWORD });
    });
    expect(signIn.location).toBe('/app/deactivated');
    const refusal = await fetch(`${router.baseURL}/models`, { headers: { authorization: `Bearer ${key}`, 'user-agent': 'tests/1.0' } });
    const body = (await json(refusal)) as { error: { code: string; accountUrl: string } };
    expect(body.error.code).toBe('inactive_account');
    expect(body.error.accountUrl).toBe(`${router.appUrl}/deactivated`);
    const page = await new AppClient(router.url).get(new URL(body.error.accountUrl).pathname);
    expect(page.status).toBe(200);
    expect(page.html).toContain('This account is deactivated');
  });

  it('accepts forms only from its own pages: cross-site, foreign Origin, missing or foreign tokens are refused', async () => {
    const victim = new AppClient(router.url);
    await victim.signUp('gina@example.com', PASSWORD);
    await victim.get('/app/keys');
    const { account } = (await store().findLoginByEmail('gina@example.com'))!;
    const keysBefore = await store().listApiKeys(account.id);
    const attempts = [
      await victim.post('/app/keys', { name: 'evil' }, { 'sec-fetch-site': 'cross-site' }),
      await victim.post('/app/keys', { name: 'evil' }, { origin: 'https://evil.example', 'sec-fetch-site': '' }),
      await victim.post('/app/keys', { name: 'evil', csrf: '' }),
    ];
    const other = new AppClient(router.url);
    await other.signUp('henry@example.com', PASSWORD);
    await other.get('/app/keys');
    attempts.push(await victim.post('/app/keys', { name: 'evil', csrf: other.csrf! }));
    expect(attempts.map((page) => page.status)).toEqual([403, 403, 403, 403]);
    expect(await store().listApiKeys(account.id)).toEqual(keysBefore);
    // Sign-in forms are protected too (login CSRF): a cross-site post cannot sign a browser in.
    const fresh = new AppClient(router.url);
    expect((await fresh.post('/app/signin', { email: 'gina@example.com', password: PASSWORD })).status).toBe(403);
    // State changes are POST only.
    expect((await victim.get('/app/signout')).status).toBe(404);
    expect((await victim.get('/app/keys')).status).toBe(200);
  });

  it('sends strict security headers on every page', async () => {
    const browser = new AppClient(router.url);
    for (const path of ['/', '/app/signin', '/app/signup', '/pricing', '/docs/errors', '/status']) {
      const page = await browser.get(path);
      const csp = page.headers.get('content-security-policy')!;
      expect(csp, path).toContain("frame-ancestors 'none'");
      expect(csp, path).toContain("script-src 'self'");
      expect(csp, path).not.toContain('unsafe-inline');
      expect(page.headers.get('x-content-type-options'), path).toBe('nosniff');
      expect(page.headers.get('referrer-policy'), path).toBe('same-origin');
      expect(page.html, path).not.toMatch(/<script(?![^>]*\ssrc=)[^>]*>/);
      expect(page.html, path).not.toMatch(/\sstyle="/);
    }
  });

  it('/v1 never reads the session cookie: bearer keys only', async () => {
    const browser = new AppClient(router.url);
    await browser.signUp('ivan@example.com', PASSWORD);
    const response = await fetch(`${router.baseURL}/models`, { headers: { cookie: browser.cookieHeader(), 'user-agent': 'tests/1.0' } });
    expect(response.status).toBe(401);
    expect((await json(response)).error.code).toBe('missing_api_key');
    expect(response.headers.getSetCookie()).toEqual([]);
  });

  it('lets an invited person create an account through a single-use link, and a CLI-created account set its password through a reset link', async () => {
    const server = router.server.runtime.config.server;
    const invite = await issueLink({ store: store(), clock, server }, 'invite', 'Judy@example.com', 'cli');
    const path = new URL(invite.url).pathname + new URL(invite.url).search;
    const browser = new AppClient(router.url);
    const form = await browser.get(path);
    expect(form.status).toBe(200);
    expect(form.html).toContain('value="judy@example.com" readonly');
    const token = new URL(invite.url).searchParams.get('token')!;
    expect((await browser.post('/app/link', { token, password: 'short' })).status).toBe(400);
    const joined = await browser.post('/app/link', { token, password: PASSWORD });
    expect(joined.location).toBe('/app/');
    expect((await browser.get('/app/security')).status).toBe(200);
    expect((await new AppClient(router.url).get(path)).status).toBe(410);

    const cli = await store().createAccount({ email: 'kim@example.com', plan: 'pro' }, 'cli');
    const reset = await issueLink({ store: store(), clock, server }, 'reset', 'kim@example.com', 'cli');
    expect(reset.accountId).toBe(cli.id);
    expect(Date.parse(reset.expiresAt) - clock.now()).toBe(30 * 60_000);
    const kim = new AppClient(router.url);
    await kim.get(new URL(reset.url).pathname + new URL(reset.url).search);
    await kim.post('/app/link', { token: new URL(reset.url).searchParams.get('token')!, password: PASSWORD });
    expect((await new AppClient(router.url).signIn('kim@example.com', PASSWORD)).status).toBe(200);

    const late = await issueLink({ store: store(), clock, server }, 'reset', 'kim@example.com', 'cli');
    clock.advance(31 * 60_000);
    expect((await new AppClient(router.url).get(new URL(late.url).pathname + new URL(late.url).search)).status).toBe(410);
  });
});

describe('account app: invite-only sign-up and https cookies', () => {
  let router: AppRouter;
  beforeAll(async () => {
    router = await startAppRouter({ app: { signup: 'invite' } });
  });
  afterAll(() => router.close());

  it('refuses open sign-up when sign-up is by invitation', async () => {
    const browser = new AppClient(router.url);
    const page = await browser.get('/app/signup');
    expect(page.html).toContain('Sign-up is by invitation');
    await browser.get('/app/signin');
    await browser.post('/app/signup', { email: 'x@example.com', password: PASSWORD });
    expect(await router.server.runtime.store.findLoginByEmail('x@example.com')).toBeNull();
  });
});

describe('account app over https', () => {
  let router: AppRouter;
  beforeAll(async () => {
    router = await startAppRouter({ env: { ROUTER_APP_URL: 'https://accounts.example.test/app' } });
  });
  afterAll(() => router.close());

  it('uses __Host- prefixed Secure cookies and checks the https origin', async () => {
    const browser = new AppClient(router.url);
    await browser.get('/app/signup');
    expect([...browser.cookies.keys()]).toEqual(['__Host-router_csrf']);
    const plainOrigin = await browser.post('/app/signup', { email: 'h@example.com', password: PASSWORD });
    expect(plainOrigin.status).toBe(403);
    const created = await browser.post('/app/signup', { email: 'h@example.com', password: PASSWORD }, { origin: 'https://accounts.example.test' });
    expect(created.status).toBe(200);
    const signedIn = await browser.post('/app/signin', { email: 'h@example.com', password: PASSWORD }, { origin: 'https://accounts.example.test' });
    expect(signedIn.status).toBe(303);
    const cookie = signedIn.headers.getSetCookie().find((line) => line.startsWith('__Host-router_session='))!;
    expect(cookie).toMatch(/; Secure/i);
    expect(cookie).toMatch(/; HttpOnly/i);
    expect(cookie).toMatch(/; Path=\//i);
    expect(cookie).not.toMatch(/Domain=/i);
  });
});

describe('account app: resets through the log, and the app turned off', () => {
  it('with app.mail.transport: log, writes a requested reset mail to the log and says the same whether or not the email exists', async () => {
    const router = await startAppRouter({ app: { mail: { transport: 'log' } } });
    try {
      const owner = new AppClient(router.url);
      await owner.signUp('logged@example.com', PASSWORD);
      const asker = new AppClient(router.url);
      await asker.get('/app/forgot');
      const known = await asker.post('/app/forgot', { email: 'logged@example.com' });
      const unknown = await asker.post('/app/forgot', { email: 'nobody@example.com' });
      expect(known.status).toBe(200);
      expect(known.html.replace(/name="csrf" value="[^"]+"/, '')).toBe(unknown.html.replace(/name="csrf" value="[^"]+"/, ''));
      const lines: string[] = (router.server.runtime.logger as unknown as { lines: string[] }).lines;
      // The mail is composed after the page answered (the same time for both addresses).
      for (let waited = 0; waited < 3000 && !lines.some((line) => line.includes('Reset your password')); waited += 50) await new Promise((resolve) => setTimeout(resolve, 50));
      const logged = lines.filter((line) => line.includes('Reset your password'));
      expect(logged).toHaveLength(1);
      const url = /(http:\/\/\S+\/app\/link\?token=\S+)/.exec(logged[0]!)![1]!;
      const page = await new AppClient(router.url).get(new URL(url).pathname + new URL(url).search);
      expect(page.status).toBe(200);
      expect(page.html).toContain('Choose a new password');
    } finally {
      await router.close();
    }
  });

  it('with app.enabled: false, serves no account pages but keeps the docs and the pages for people', async () => {
    const router = await startAppRouter({ app: { enabled: false } });
    try {
      const browser = new AppClient(router.url);
      expect((await browser.get('/app/signup')).status).toBe(404);
      expect((await browser.get('/docs/errors')).status).toBe(200);
      expect((await browser.get('/pricing')).status).toBe(200);
    } finally {
      await router.close();
    }
  });
});
