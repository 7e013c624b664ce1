/**
 * The Workspaces page over HTTP (docs/teams.md): workspaces listed with their keys and budgets, created
 * within the plan's maxWorkspaces and renamed by admins and owners; budgets per workspace, member and key
 * set and removed from the page and enforced on the next request (402 budget_exceeded, whose accountUrl
 * opens); keys made in a chosen workspace (the default preselected) and listed with it; and the role
 * matrix of these routes for owner, admin, member and viewer, form tokens included.
 */
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { AppClient, shownKey, startAppRouter, type AppRouter } from '../app-harness.js';
import { frontierOrder, pointProvidersAt, sdkClient, startFakes, type Fakes } from '../router-harness.js';
import { optionValue, personIdOf, refusedForRole, ROLES, startTeam, type Team } from '../team-harness.js';

vi.setConfig({ testTimeout: 120_000, hookTimeout: 180_000 });

let fakes: Fakes;
let router: AppRouter;
let team: Team;

beforeAll(async () => {
  fakes = await startFakes();
  router = await startAppRouter({
    app: { signupPlan: 'pro', requireEmailVerification: false },
    patch: {
      providers: pointProvidersAt(fakes.urls),
      routes: frontierOrder(['openai']),
      plans: (doc: any) => void Object.assign(doc.plans.find((plan: { id: string }) => plan.id === 'pro'), { maxWorkspaces: 2 }),
    },
  });
  team = await startTeam(router, 'ws.example');
});
afterAll(async () => {
  await router?.close();
  await fakes?.close();
});

const workspaceRow = (html: string, name: string) => new RegExp(`<li id="workspace-(ws_[0-9a-f]+)">\\s*<p class="control-head"><strong>${name}</strong>`).exec(html)?.[1] ?? null;
const budgetsTable = (html: string) => html.slice(html.indexOf('aria-label="Budgets"'), html.indexOf('id="set-budget-heading"'));
/** A workspace's item on the page, up to its end. */
const workspaceItem = (html: string, name: string) => {
  const start = html.indexOf(`<strong>${name}</strong>`);
  return html.slice(start, html.indexOf('</li>', start));
};

describe('workspaces', () => {
  it('lists the default, creates one within the plan and refuses one more with the plan’s words', async () => {
    const { owner } = team;
    const page = await owner.get('/app/workspaces');
    expect(page.status).toBe(200);
    expect(page.html).toMatch(/<strong>Default<\/strong> <span class="badge live">default<\/span>/);
    expect(workspaceRow(page.html, 'Default')).not.toBeNull();
    expect(page.html).toContain('The Pro plan allows 2 workspaces, the default included.');
    expect((await owner.post('/app/workspaces', { name: '   ' })).status).toBe(400);
    const created = await owner.post('/app/workspaces', { name: 'Research' });
    expect(created.status).toBe(200);
    expect(created.html).toContain('Workspace Research created.');
    expect(workspaceRow(created.html, 'Research')).not.toBeNull();
    const third = await owner.post('/app/workspaces', { name: 'Marketing' });
    expect(third.status).toBe(409);
    expect(third.html).toContain('The Pro plan allows 2 workspaces, the default included. Upgrade the plan on the Billing page for more.');
    expect(third.html).toContain('aria-invalid="true" aria-describedby="workspace-name-error"');
    // What was typed comes back in the field.
    expect(third.html).toContain('value="Marketing"');
    expect(workspaceRow(third.html, 'Marketing')).toBeNull();
  });

  it('renames a workspace; a name another workspace reads as is refused; another organization’s workspace is not found', async () => {
    const { owner } = team;
    const id = workspaceRow((await owner.get('/app/workspaces')).html, 'Research')!;
    const renamed = await owner.post(`/app/workspaces/${id}/rename`, { name: 'Research lab' });
    expect(renamed.html).toContain('Workspace renamed to Research lab.');
    expect(workspaceRow(renamed.html, 'Research lab')).toBe(id);
    const clash = await owner.post(`/app/workspaces/${id}/rename`, { name: 'DEFAULT' });
    expect(clash.status).toBe(409);
    expect(clash.html).toContain('A workspace named like that already exists (default)');
    const stranger = new AppClient(router.url);
    await stranger.signUp('stranger@ws-other.example', 'correct horse battery staple');
    await stranger.get('/app/workspaces');
    expect((await stranger.post(`/app/workspaces/${id}/rename`, { name: 'Mine' })).status).toBe(404);
    expect(workspaceRow((await owner.get('/app/workspaces')).html, 'Research lab')).toBe(id);
  });
});

describe('keys in workspaces', () => {
  it('offers the workspaces with the default preselected, and lists each key with its workspace', async () => {
    const { admin } = team;
    const keysPage = await admin.get('/app/keys');
    const select = /<select id="key-workspace" name="workspace"[^>]*>([\s\S]*?)<\/select>/.exec(keysPage.html)![1]!;
    expect(select).toMatch(/<option value="ws_[0-9a-f]+" selected>Default \(default\)<\/option>/);
    expect(select).toMatch(/<option value="ws_[0-9a-f]+">Research lab<\/option>/);
    const made = await admin.follow(await admin.post('/app/keys', { name: 'lab-ci', expiresInDays: '30', workspace: optionValue(select, 'Research lab') }));
    expect(shownKey(made.html)).not.toBeNull();
    const card = made.html.slice(made.html.indexOf('<strong>lab-ci</strong>'));
    expect(card.slice(0, card.indexOf('</dl>'))).toContain('<dt>Workspace</dt><dd>Research lab</dd>');
    // An unknown workspace is refused at the field, and no key is made.
    const refused = await admin.post('/app/keys', { name: 'nowhere', workspace: 'ws_000000' });
    expect(refused.status).toBe(400);
    expect(refused.html).toContain('Choose a workspace from the list.');
    expect(refused.html).not.toContain('<strong>nowhere</strong>');
    const workspaces = await admin.get('/app/workspaces');
    expect(workspaceItem(workspaces.html, 'Research lab')).toContain('<dt>Live keys</dt><dd>1</dd>');
  });

  it('admins move a key to another workspace; members are not offered it and are refused', async () => {
    const { admin, member } = team;
    const page = await admin.get('/app/keys');
    const keyId = /<li class="card key-item live" id="(key_[0-9a-f]+)">\s*<div class="key-head">\s*<strong>lab-ci<\/strong>/.exec(page.html)![1]!;
    const defaultId = optionValue(/<select id="key-workspace"[^>]*>([\s\S]*?)<\/select>/.exec(page.html)![1]!, 'Default (default)');
    const moved = await admin.post(`/app/keys/${keyId}/workspace`, { workspace: defaultId });
    expect(moved.html).toContain('moved to Default: its budgets and guardrails are that workspace’s from now on.');
    const card = moved.html.slice(moved.html.indexOf(`id="${keyId}"`));
    expect(card.slice(0, card.indexOf('</dl>'))).toContain('<dt>Workspace</dt><dd>Default</dd>');
    expect((await admin.post(`/app/keys/${keyId}/workspace`, { workspace: 'ws_000000' })).status).toBe(400);
    await member.get('/app/keys');
    const memberKeys = await member.follow(await member.post('/app/keys', { name: 'member-own', expiresInDays: '30' }));
    expect(memberKeys.html).toContain('<strong>member-own</strong>');
    expect(memberKeys.html).not.toContain('Move to workspace');
    // The admin, on the same page, is offered it for that key.
    expect((await admin.get('/app/keys')).html.match(/Move to workspace/g)?.length).toBeGreaterThanOrEqual(2);
    expect(refusedForRole(await member.post(`/app/keys/${keyId}/workspace`, { workspace: defaultId }))).toBe(true);
  });
});

describe('budgets', () => {
  it('sets and removes budgets per workspace, member and key; wrong input is answered at its field', async () => {
    const { owner } = team;
    const page = await owner.get('/app/workspaces');
    const workspace = optionValue(page.html, 'Research lab');
    const member = `member:${personIdOf((await owner.get('/app/members')).html, 'member@ws.example')}`;
    await owner.get('/app/workspaces');
    expect((await owner.post('/app/budgets', { target: workspace, usd: '25', period: 'month', includeByok: 'on' })).html).toContain('Budget of Research lab set: USD 25.00 per month.');
    const memberSet = await owner.post('/app/budgets', { target: member, usd: '2.5', period: 'week' });
    expect(memberSet.html).toContain('Budget of member@ws.example set: USD 2.50 per week.');
    const table = budgetsTable(memberSet.html);
    expect(table).toContain('<strong>Research lab</strong>');
    expect(table).toMatch(/<strong>member@ws\.example<\/strong><\/p>\s*<p class="budget-line">USD 0\.00 of 2\.50 per week <span class="hint">\(0 % used; counts managed access only\)<\/span><\/p>/);
    // The workspace's item shows its budget too.
    expect(workspaceItem(memberSet.html, 'Research lab')).toContain('<dt>Budget</dt><dd>USD 0.00 of 25.00 per month</dd>');
    const total = await owner.post('/app/budgets', { target: workspace, usd: '5', period: 'total' });
    expect(total.status).toBe(400);
    expect(total.html).toContain('A total budget (one that never resets) is for keys only');
    const amount = await owner.post('/app/budgets', { target: workspace, usd: 'lots', period: 'day' });
    expect(amount.status).toBe(400);
    expect(amount.html).toContain('aria-describedby="budget-usd-error"');
    expect((await owner.post('/app/budgets', { target: 'workspace:ws_000000', usd: '5', period: 'day' })).html).toContain('Choose a workspace, member or key from the list.');
    const removed = await owner.post('/app/budgets/remove', { target: member });
    expect(removed.html).toContain('Budget of member@ws.example removed.');
    expect(budgetsTable(removed.html)).not.toContain('member@ws.example');
    expect((await owner.post('/app/budgets/remove', { target: member })).status).toBe(404);
  });

  it('a key budget set on the page refuses the next request with 402 budget_exceeded, whose accountUrl is this app’s Guardrails page', async () => {
    const { owner } = team;
    await owner.get('/app/provider-keys');
    await owner.post('/app/provider-keys', { provider: 'openai', key: 'sk-test-openai-5678' });
    const made = await owner.follow(await owner.post('/app/keys', { name: 'capped', expiresInDays: '30' }));
    const key = shownKey(made.html)!;
    expect((await sdkClient(router, key).chat.completions.create({ model: 'router/frontier', messages: [{ role: 'user', content: 'hi' }] })).choices).toHaveLength(1);
    const page = await owner.get('/app/workspaces');
    const target = optionValue(page.html, `capped (sk_router_…${key.slice(-4)})`);
    expect((await owner.post('/app/budgets', { target, usd: '0', period: 'day', includeByok: 'on' })).status).toBe(200);
    const refused = await sdkClient(router, key).chat.completions.create({ model: 'router/frontier', messages: [{ role: 'user', content: 'hi' }] }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(OpenAI.APIError);
    const error = refused as InstanceType<typeof OpenAI.APIError>;
    expect(error.status).toBe(402);
    expect((error.error as { code?: string }).code).toBe('budget_exceeded');
    const accountUrl = (error.error as { accountUrl?: string }).accountUrl!;
    expect(accountUrl).toBe(`${router.appUrl}/guardrails`);
    const landing = await owner.get(new URL(accountUrl).pathname);
    expect(landing.status).toBe(200);
    expect(landing.html).toContain(`capped (sk_router_…${key.slice(-4)})`);
    // Removed on the page: the next request runs.
    await owner.get('/app/workspaces');
    await owner.post('/app/budgets/remove', { target });
    expect((await sdkClient(router, key).chat.completions.create({ model: 'router/frontier', messages: [{ role: 'user', content: 'hi' }] })).choices).toHaveLength(1);
    // A member's budget: the refusal names the member by email, as the pages do, and says where to change it.
    const member = `member:${personIdOf((await owner.get('/app/members')).html, 'owner@ws.example')}`;
    await owner.get('/app/workspaces');
    expect((await owner.post('/app/budgets', { target: member, usd: '0', period: 'week', includeByok: 'on' })).status).toBe(200);
    const byMember = (await sdkClient(router, key).chat.completions.create({ model: 'router/frontier', messages: [{ role: 'user', content: 'hi' }] }).catch((caught: unknown) => caught)) as InstanceType<typeof OpenAI.APIError>;
    expect(byMember.status).toBe(402);
    expect(byMember.message).toContain('The budget of member owner@ws.example (USD 0.00 per week) is used up');
    expect(byMember.message).toContain('on the Guardrails page (/app/guardrails)');
    expect((byMember.error as { budget?: { name?: string } }).budget?.name).toBe('member owner@ws.example');
    await owner.post('/app/budgets/remove', { target: member });
    expect((await sdkClient(router, key).chat.completions.create({ model: 'router/frontier', messages: [{ role: 'user', content: 'hi' }] })).choices).toHaveLength(1);
  });
});

describe('the default workspace', () => {
  it('moves with the keys that have no workspace of their own', async () => {
    const { owner } = team;
    const page = await owner.get('/app/workspaces');
    const lab = workspaceRow(page.html, 'Research lab')!;
    const defaultId = workspaceRow(page.html, 'Default')!;
    const keysIn = (html: string, name: string) => Number(/<dt>Live keys<\/dt><dd>(\d+)<\/dd>/.exec(workspaceItem(html, name))![1]);
    const before = { lab: keysIn(page.html, 'Research lab'), default: keysIn(page.html, 'Default') };
    expect(before.default).toBeGreaterThan(0);
    const made = await owner.post(`/app/workspaces/${lab}/default`, {});
    expect(made.html).toContain('Research lab is now the default workspace');
    expect(workspaceItem(made.html, 'Research lab')).toContain('<span class="badge live">default</span>');
    // Keys made in the default (no workspace of their own) are in Research lab now; a key moved into Default stays there.
    expect(keysIn(made.html, 'Research lab') + keysIn(made.html, 'Default')).toBe(before.lab + before.default);
    expect(keysIn(made.html, 'Research lab')).toBeGreaterThan(before.lab);
    expect((await owner.post('/app/workspaces/ws_000000/default', {})).status).toBe(404);
    await owner.post(`/app/workspaces/${defaultId}/default`, {});
    expect(workspaceItem((await owner.get('/app/workspaces')).html, 'Default')).toContain('<span class="badge live">default</span>');
  });
});

describe('roles', () => {
  it('everyone reads the page; only admins and owners get its forms', async () => {
    for (const role of ROLES) {
      const page = await team[role].get('/app/workspaces');
      expect(page.status, role).toBe(200);
      expect(page.html.includes('Create workspace'), role).toBe(role === 'owner' || role === 'admin');
      expect(page.html.includes('Set budget'), role).toBe(role === 'owner' || role === 'admin');
      expect(page.html.includes('/app/workspaces"'), `${role}: the side navigation links it`).toBe(true);
    }
  });

  it('writes: owner and admin pass the role gate, member and viewer are refused; every write needs the form token', async () => {
    const workspaceId = workspaceRow((await team.owner.get('/app/workspaces')).html, 'Research lab')!;
    const writes: Array<[string, Record<string, string>]> = [
      ['/app/workspaces', { name: '' }],
      [`/app/workspaces/${workspaceId}/rename`, { name: 'Research lab' }],
      ['/app/workspaces/ws_000000/default', {}],
      ['/app/budgets', { target: `workspace:${workspaceId}`, usd: 'x', period: 'day' }],
      ['/app/budgets/remove', { target: 'workspace:ws_000000' }],
    ];
    for (const [path, form] of writes) {
      for (const role of ROLES) {
        await team[role].get('/app/workspaces');
        const answer = await team[role].post(path, form);
        expect(refusedForRole(answer), `${role} POST ${path} → ${answer.status}`).toBe(role === 'member' || role === 'viewer');
      }
      // Without this session's form token, even the owner is refused before anything is read.
      const forged = await team.owner.post(path, { ...form, csrf: 'forged' });
      expect(forged.status, path).toBe(403);
      expect(forged.html, path).toContain('This form could not be accepted');
    }
    // Nothing a refused write carried was applied.
    expect(workspaceRow((await team.owner.get('/app/workspaces')).html, 'Research lab')).toBe(workspaceId);
  });

  it('a viewer sees workspace budgets and their own, never other members’ budgets or keys', async () => {
    const { owner, viewer } = team;
    const members = (await owner.get('/app/members')).html;
    const admin = personIdOf(members, 'admin@ws.example');
    await owner.get('/app/workspaces');
    await owner.post('/app/budgets', { target: `member:${admin}`, usd: '9', period: 'day' });
    const seen = await viewer.get('/app/workspaces');
    expect(seen.html).toContain('Research lab');
    expect(seen.html).not.toContain('admin@ws.example');
    expect((await team.member.get('/app/workspaces')).html).toContain('admin@ws.example');
  });
});
