/**
 * Get started: the Claude Code snippet is a shell snippet of one command per line (copied as is, it
 * runs), and step 2 shrinks to "done" once the account can call a model.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppClient, startAppRouter, type AppRouter } from '../app-harness.js';

const PASSWORD = 'correct horse battery staple';

describe('account app: get started', () => {
  let router: AppRouter;

  beforeAll(async () => {
    router = await startAppRouter();
  });
  afterAll(() => router?.close());

  it('shows the Claude Code snippet as separate shell lines, and step 2 as done once a provider key is set', async () => {
    const browser = new AppClient(router.url);
    await browser.signUp('snippets@example.com', PASSWORD);
    const before = await browser.get('/app/onboarding');
    expect(before.html).toContain('Step 2: add your provider key');
    const snippet = /<code id="snip-claude">([\s\S]*?)<\/code>/.exec(before.html)![1]!;
    expect(snippet.split('\n')).toEqual([`export ANTHROPIC_BASE_URL="${router.url}"`, 'export ANTHROPIC_API_KEY="sk_router_…"', 'claude']);

    const provider = /name="provider" value="([^"]+)"|<option value="([^"]+)">/.exec(before.html)!;
    await browser.post('/app/provider-keys', { provider: provider[1] ?? provider[2]!, key: 'sk-test-onboarding-0123456789', next: 'onboarding' });
    const after = await browser.get('/app/onboarding');
    expect(after.html).toContain('Step 2: done');
    expect(after.html).not.toContain('Step 2: add your provider key');
    expect(after.html).not.toContain('id="ob-key"');
    expect(after.html).toMatch(/Test the [^<]+ key/);
  });
});
