/**
 * The header knows who reads a public page (the account menu for a signed-in person, never "Sign in",
 * and then never cached publicly), and a failure is an HTML page for browsers, the API's JSON error for
 * anyone else.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppClient, startAppRouter, type AppRouter } from '../app-harness.js';

const PASSWORD = 'correct horse battery staple';

describe('account app: header and error pages', () => {
  let router: AppRouter;

  beforeAll(async () => {
    router = await startAppRouter();
  });
  afterAll(async () => {
    await router?.close();
  });

  it('public pages show a signed-in person the account menu and are then not cached publicly', async () => {
    const person = new AppClient(router.url);
    await person.signUp('header@example.com', PASSWORD);
    const anonymous = new AppClient(router.url);
    for (const path of ['/', '/pricing', '/model-catalog/frontier', '/status', '/docs', '/docs/errors', '/app/nothing-here']) {
      const seen = await person.get(path);
      expect(seen.html, path).toContain('<span class="account-email">header@example.com</span>');
      expect(seen.html, path).toContain(`action="/app/signout"`);
      expect(seen.html, path).not.toMatch(/<a href="\/app\/signin">Sign in<\/a>/);
      expect(seen.headers.get('cache-control'), path).toBe('no-store');
      expect(seen.headers.get('vary') ?? '', path).toContain('Cookie');

      const stranger = await anonymous.get(path);
      expect(stranger.html, path).toMatch(/<a href="\/app\/signin">Sign in<\/a>/);
      expect(stranger.html, path).not.toContain('account-menu');
    }
    expect((await anonymous.get('/pricing')).headers.get('cache-control')).toBe('public, max-age=300');
  });

  it('customer pages speak the customer\'s language: no operator, CLI command, environment variable or config file', async () => {
    const person = new AppClient(router.url);
    await person.signUp('words@example.com', PASSWORD);
    const anonymous = new AppClient(router.url);
    const pages = [
      ...['/app/onboarding', '/app/playground', '/app/keys', '/app/provider-keys', '/app/usage', '/app/billing', '/app/security', '/app/support'].map((path) => ({ path, client: person })),
      ...['/', '/pricing', '/model-catalog', '/status', '/app/signin', '/app/signup', '/app/forgot', '/app/deactivated'].map((path) => ({ path, client: anonymous })),
    ];
    for (const { path, client } of pages) {
      const page = await client.get(path);
      expect(page.status, path).toBe(200);
      const text = page.html.replace(/<[^>]+>/g, ' ');
      expect(text, path).not.toMatch(/\boperator\b|router (accounts|keys|check|serve)|ROUTER_[A-Z_]+|\w+\.yaml|config\//i);
    }
  });

  it('an unexpected failure is an HTML 500 page for a browser and the JSON error for an API client', async () => {
    const person = new AppClient(router.url);
    await person.signUp('failure@example.com', PASSWORD);
    const store = router.server.runtime.store as unknown as { findSessionByTokenHash: (...args: unknown[]) => Promise<unknown> };
    const original = store.findSessionByTokenHash;
    store.findSessionByTokenHash = async () => {
      throw new Error('simulated failure with a secret-looking detail sk_router_CANARY');
    };
    try {
      const page = await person.get('/app/keys');
      expect(page.status).toBe(500);
      expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(page.html).toContain('<h1>Something went wrong</h1>');
      expect(page.html).toContain('Contact support');
      expect(page.html).not.toContain('CANARY');

      const api = await person.get('/app/keys', { accept: 'application/json' });
      expect(api.status).toBe(500);
      expect(api.headers.get('content-type')).toContain('application/json');
      expect(JSON.parse(api.html).error.code).toBe('internal_error');
      expect(api.html).not.toContain('CANARY');
    } finally {
      store.findSessionByTokenHash = original;
    }
  });
});

describe('account app: the operator\'s terms and privacy pages', () => {
  let router: AppRouter;
  let plain: AppRouter;

  beforeAll(async () => {
    const dir = mkdtempSync(join(tmpdir(), 'router-legal-'));
    writeFileSync(join(dir, 'terms.md'), '# Terms of service\n\nUse the API **fairly**.\n\n<script>alert(1)</script>\n\n[Write to us](mailto:legal@example.com) or [not this](javascript:alert(1)).\n');
    writeFileSync(join(dir, 'privacy.md'), '# Privacy\n\n- We keep usage counts, never prompts.\n');
    router = await startAppRouter({ app: { legal: { terms: join(dir, 'terms.md'), privacy: join(dir, 'privacy.md') } } });
    plain = await startAppRouter();
  });
  afterAll(async () => {
    await router?.close();
    await plain?.close();
  });

  it('renders the Markdown safely at /app/terms and /app/privacy, linked from the footer and the sign-up form', async () => {
    const visitor = new AppClient(router.url);
    const terms = await visitor.get('/app/terms');
    expect(terms.status).toBe(200);
    expect(terms.html).toContain('<h1>Terms of service</h1>');
    expect(terms.html).toContain('<strong>fairly</strong>');
    expect(terms.html).toContain('<a href="mailto:legal@example.com">Write to us</a>');
    expect(terms.html).not.toContain('<script>alert');
    expect(terms.html).not.toContain('javascript:');
    expect((await visitor.get('/app/privacy')).html).toContain('<li>We keep usage counts, never prompts.</li>');
    const signup = await visitor.get('/app/signup');
    expect(signup.html).toContain('By creating an account you agree to the <a href="/app/terms">terms of service</a> and the <a href="/app/privacy">privacy notice</a>.');
    const signin = await visitor.get('/app/signin');
    expect(signin.html).toContain('Using this service means you agree to the <a href="/app/terms">terms of service</a> and the <a href="/app/privacy">privacy notice</a>.');
    for (const page of [signup, await visitor.get('/pricing'), await visitor.get('/docs')]) {
      expect(page.html).toContain('<a href="/app/terms">Terms</a>');
      expect(page.html).toContain('<a href="/app/privacy">Privacy</a>');
    }
  });

  it('without app.legal there are no such pages and no links to them', async () => {
    const visitor = new AppClient(plain.url);
    expect((await visitor.get('/app/terms')).status).toBe(404);
    const signup = await visitor.get('/app/signup');
    expect(signup.html).not.toContain('/app/terms');
    expect(signup.html).not.toContain('/app/privacy');
  });
});
