/**
 * The presets page over HTTP: an owner creates a preset from JSON, sees its version history grow when
 * saving under the same slug, gets bad input back at its field, deletes it; the preset made on the page
 * is the one the API uses (a key of the organization lists it in /v1/models). Which role may read and
 * change it is checked with every other route by app-teams.test.ts's role matrix.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { AppClient, startAppRouter, type AppRouter } from '../app-harness.js';
import { sdkClient } from '../router-harness.js';

vi.setConfig({ testTimeout: 120_000, hookTimeout: 120_000 });

let router: AppRouter;
beforeAll(async () => {
  router = await startAppRouter({ app: { signupPlan: 'pro', requireEmailVerification: false } });
});
afterAll(async () => {
  await router.close();
});

describe('the presets page', () => {
  it('creates from JSON, versions, refuses bad input at its field, lists in /v1/models, and deletes', async () => {
    const owner = new AppClient(router.url);
    await owner.signUp('presets.owner@example.com', 'correct horse battery staple');
    const empty = await owner.get('/app/presets');
    expect(empty.status).toBe(200);
    expect(empty.html).toContain('No presets yet.');
    expect(empty.html).toContain('Create a preset, or a new version');

    const created = await owner.follow(await owner.post('/app/presets', { slug: 'writer', name: 'Writer', config: '{"model": "router/frontier", "temperature": 0.4}' }));
    expect(created.html).toContain('Created @preset/writer: version 1 is current.');
    expect(created.html).toContain('<code>@preset/writer</code> Writer');
    const again = await owner.follow(await owner.post('/app/presets', { slug: 'writer', config: '{"model": "router/frontier", "temperature": 0.9}' }));
    expect(again.html).toContain('version 2 is current');
    expect(again.html).toContain('Version history (2)');
    expect(again.html).toContain('&quot;temperature&quot;: 0.4');

    const notJson = await owner.post('/app/presets', { slug: 'x', config: '{temperature' });
    expect(notJson.status).toBe(400);
    expect(notJson.html).toMatch(/id="preset-config"[^>]*aria-invalid="true"/);
    const outOfRange = await owner.post('/app/presets', { slug: 'x', config: '{"temperature": 5}' });
    expect(outOfRange.status).toBe(400);
    expect(outOfRange.html).toContain('config.temperature');
    const badSlug = await owner.post('/app/presets', { slug: 'Not a slug', config: '{}' });
    expect(badSlug.status).toBe(400);
    expect(badSlug.html).toMatch(/id="preset-slug"[^>]*aria-invalid="true"/);

    // The API sees the same preset, for a key of this organization.
    const [membership] = await router.server.runtime.store.listAccounts().then((accounts) => accounts.filter((account) => account.email === 'presets.owner@example.com'));
    const { key } = await router.server.runtime.keys.issue(membership!.id, 'api', 'test');
    expect((await sdkClient(router, key).models.list()).data.map((model) => model.id)).toContain('@preset/writer');

    const deleted = await owner.follow(await owner.post('/app/presets/writer/delete', {}));
    expect(deleted.html).toContain('Deleted @preset/writer.');
    expect(deleted.html).toContain('No presets yet.');
    expect((await owner.post('/app/presets/writer/delete', {})).status).toBe(404);
    const events = await router.server.runtime.store.listAuditEvents({ accountId: membership!.id });
    expect(events.filter((event) => event.action.startsWith('preset.')).every((event) => event.actor.startsWith('person:'))).toBe(true);
  });
});
