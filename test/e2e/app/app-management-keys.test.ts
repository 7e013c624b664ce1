/**
 * Management keys made in the account app over real HTTP (issue 33): the keys page offers the choice to
 * admins and owners only, a member who posts it anyway is refused and no key is made (a management key
 * changes every key of the organization: a member must not gain that), and the key made works on
 * /v1/keys and is refused on model routes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashPassword } from '../../../src/app/password-hashing.js';
import { AppClient, shownKey, startAppRouter, type AppRouter } from '../app-harness.js';
import { pointProvidersAt, sdkClient, startFakes, type Fakes } from '../router-harness.js';
import { personIdOf, ROLES, startTeam } from '../team-harness.js';

const PASSWORD = 'correct horse battery staple';
const MANAGEMENT_CHOICE = 'name="kind" value="management"';

describe('account app: management keys', { timeout: 120_000 }, () => {
  let fakes: Fakes;
  let router: AppRouter;

  beforeAll(async () => {
    fakes = await startFakes();
    router = await startAppRouter({ app: { signupPlan: 'pro', requireEmailVerification: false }, patch: { providers: pointProvidersAt(fakes.urls) } });
  }, 120_000);
  afterAll(async () => {
    await router?.close();
    await fakes?.close();
  });

  const createKey = async (browser: AppClient, form: Record<string, string>) => {
    await browser.get('/app/keys');
    return browser.post('/app/keys', { name: 'k', expiresInDays: '', monthlyRequests: '', requestsPerMinute: '', ...form });
  };

  it('lets owners and admins make one, refuses members, and the key manages keys but never calls a model', async () => {
    const owner = new AppClient(router.url);
    await owner.signUp('owner@example.com', PASSWORD);
    expect((await owner.get('/app/keys')).html).toContain(MANAGEMENT_CHOICE);
    const made = await owner.follow(await createKey(owner, { name: 'provisioning', kind: 'management' }));
    const managementKey = shownKey(made.html)!;
    expect(managementKey).toMatch(/^sk_router_/);
    expect(made.html).toContain('management key');
    const { accountId } = await router.server.runtime.keys.verify(`Bearer ${managementKey}`);

    // It manages keys through the API, and is refused on a model route.
    const minted = await fetch(`${router.url}/v1/keys`, {
      method: 'POST',
      headers: { 'user-agent': 'router-tests/1.0', authorization: `Bearer ${managementKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'customer-1', limit: 2 }),
    });
    expect(minted.status).toBe(201);
    await expect(sdkClient(router, managementKey).chat.completions.create({ model: 'router/frontier', messages: [{ role: 'user', content: 'hi' }] })).rejects.toMatchObject({
      status: 403,
      code: 'management_key_not_allowed',
    });

    // A member of the same organization: no choice on the page, and a hand-made form is refused.
    const { store } = router.server.runtime;
    const person = await store.createPerson({ email: 'member@example.com', passwordHash: await hashPassword(PASSWORD), emailVerifiedAt: new Date().toISOString() }, 'test');
    await store.addMember({ accountId, personId: person.id, role: 'member' }, 'test');
    const member = new AppClient(router.url);
    await member.signIn('member@example.com', PASSWORD);
    const page = await member.get('/app/keys');
    expect(page.status).toBe(200);
    expect(page.html).not.toContain(MANAGEMENT_CHOICE);
    const refused = await createKey(member, { name: 'sneaky', kind: 'management' });
    expect(refused.status).toBe(403);
    expect(refused.html).toContain('Only an admin or owner of the organization may create a management key');
    expect(shownKey(refused.html)).toBeNull();
    expect((await store.listApiKeys(accountId)).filter((key) => key.name === 'sneaky')).toEqual([]);
    // An ordinary key is the member's to make.
    const ordinary = shownKey((await member.follow(await createKey(member, { name: 'laptop', kind: 'inference' }))).html)!;
    expect((await router.server.runtime.keys.verify(`Bearer ${ordinary}`)).management).toBe(false);

    // Made an admin, the same person gets the choice, and the key.
    await store.setMemberRole(accountId, person.id, 'admin', 'test');
    expect((await member.get('/app/keys')).html).toContain(MANAGEMENT_CHOICE);
    const adminMade = shownKey((await member.follow(await createKey(member, { name: 'admin-provisioning', kind: 'management' }))).html)!;
    expect((await router.server.runtime.keys.verify(`Bearer ${adminMade}`)).management).toBe(true);
  });

  it('by role: owners and admins hold management keys that work on /v1/keys; a demoted admin’s stops at once (401), their ordinary key keeps working', async () => {
    const team = await startTeam(router, 'keyapi.example');
    const keysApi = (key: string, init: RequestInit = {}) =>
      fetch(`${router.url}/v1/keys`, { ...init, headers: { 'user-agent': 'router-tests/1.0', authorization: `Bearer ${key}`, 'content-type': 'application/json' } });
    const management: Partial<Record<(typeof ROLES)[number], string>> = {};
    for (const role of ROLES) {
      const made = await createKey(team[role], { name: `${role}-provisioning`, kind: 'management' });
      const allowed = role === 'owner' || role === 'admin';
      // Member: the form's refusal; viewer: the role gate refuses the keys page and its form altogether.
      expect(made.status, role).toBe(allowed ? 303 : 403);
      if (!allowed) continue;
      management[role] = shownKey((await team[role].follow(made)).html)!;
      expect((await keysApi(management[role]!)).status, role).toBe(200);
      expect((await keysApi(management[role]!, { method: 'POST', body: JSON.stringify({ name: `${role}-minted` }) })).status, role).toBe(201);
    }
    const admin = team.admin;
    const ordinary = shownKey((await admin.follow(await createKey(admin, { name: 'admin-laptop', kind: 'inference' }))).html)!;

    // The owner makes the admin a member: the management key is revoked in that change, the page says so.
    const { owner } = team;
    const adminId = personIdOf((await owner.get('/app/members')).html, 'admin@keyapi.example');
    const changed = await owner.post(`/app/members/${adminId}/role`, { role: 'member' });
    expect(changed.status).toBe(200);
    expect(changed.html).toContain('Role changed to member. 1 management key was revoked (only owners and admins hold them).');
    expect((await keysApi(management.admin!)).status).toBe(401);
    expect((await keysApi(management.owner!)).status).toBe(200);
    expect((await sdkClient(router, ordinary).models.list()).data.length).toBeGreaterThan(0);
    // Made admin again, the old key stays revoked: a new one must be made.
    await owner.post(`/app/members/${adminId}/role`, { role: 'admin' });
    expect((await keysApi(management.admin!)).status).toBe(401);
  });
});
