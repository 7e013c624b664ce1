/**
 * The Guardrails page over HTTP (docs/teams.md): guardrails on a workspace, a member and a key set,
 * changed and removed from the page and applied to the next request (403 guardrail_denied, whose
 * accountUrl opens this page at the guardrail); what applies to each key; input checked at its field (a
 * model rule must match something served); targets of another organization refused; and the role matrix
 * of these routes (everyone reads, admins and owners write), form tokens included.
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
/** The member's own key, and the admin's. */
let memberKey: string;
let adminKey: string;

const ask = (key: string) => sdkClient(router, key).chat.completions.create({ model: 'router/frontier', messages: [{ role: 'user', content: 'hi' }] });
async function refusal(key: string): Promise<{ status: number; code?: string; accountUrl?: string; message: string }> {
  const error = await ask(key).then(() => null, (caught: unknown) => caught);
  if (!(error instanceof OpenAI.APIError)) throw new Error('the request was not refused');
  const body = error.error as { code?: string; accountUrl?: string };
  return { status: error.status!, code: body.code, accountUrl: body.accountUrl, message: error.message };
}
const last4 = (key: string) => key.slice(-4);
const guardrailsList = (html: string) => html.slice(html.indexOf('id="guardrails-heading"'), html.indexOf('id="applies-heading"'));
const appliesTable = (html: string) => html.slice(html.indexOf('aria-label="What applies to each key"'), html.indexOf('</ul>', html.indexOf('aria-label="What applies to each key"')));

beforeAll(async () => {
  fakes = await startFakes();
  router = await startAppRouter({
    app: { signupPlan: 'pro', requireEmailVerification: false },
    patch: { providers: pointProvidersAt(fakes.urls), routes: frontierOrder(['openai']) },
  });
  team = await startTeam(router, 'gr.example');
  await team.owner.get('/app/provider-keys');
  await team.owner.post('/app/provider-keys', { provider: 'openai', key: 'sk-test-openai-4321' });
  for (const role of ['member', 'admin'] as const) {
    await team[role].get('/app/keys');
    const key = shownKey((await team[role].follow(await team[role].post('/app/keys', { name: `${role}-key`, expiresInDays: '30' }))).html)!;
    if (role === 'member') memberKey = key;
    else adminKey = key;
  }
});
afterAll(async () => {
  await router?.close();
  await fakes?.close();
});

describe('guardrails from the page, applied to the next request', () => {
  it('a key guardrail denying the only provider refuses with 403 guardrail_denied; its accountUrl opens the page at that guardrail', async () => {
    const { admin } = team;
    expect((await ask(memberKey)).choices).toHaveLength(1);
    const page = await admin.get('/app/guardrails');
    expect(page.html).toContain('None: every key may use every model and provider its plan allows.');
    const target = optionValue(page.html, `member-key (sk_router_…${last4(memberKey)})`);
    const saved = await admin.post('/app/guardrails', { target, providers: 'any', 'deny.openai': 'on' });
    expect(saved.status).toBe(200);
    expect(saved.html).toContain(`Guardrail of key member-key (sk_router_…${last4(memberKey)}) saved: Never providers: OpenAI.`);
    const refused = await refusal(memberKey);
    expect(refused).toMatchObject({ status: 403, code: 'guardrail_denied', accountUrl: `${router.appUrl}/guardrails` });
    expect(refused.message).toContain('denies the providers of this model');
    const landing = await team.member.get(new URL(refused.accountUrl!).pathname);
    expect(landing.status).toBe(200);
    const keyId = target.slice('key:'.length);
    expect(landing.html).toContain(`<li id="guardrail-key-${keyId}">`);
    expect(guardrailsList(landing.html)).toContain('<li>Never providers: OpenAI</li>');
    // The member reads, for their key, which guardrail applies: its own.
    expect(appliesTable(landing.html)).toContain(`<a href="/app/guardrails#guardrail-key-${keyId}">Its own</a>`);
    // The admin's key, outside that guardrail, still runs.
    expect((await ask(adminKey)).choices).toHaveLength(1);
  });

  it('changes it through the prefilled form, and removing it lets the key run again', async () => {
    const { admin } = team;
    const page = await admin.get('/app/guardrails');
    const target = optionValue(page.html, `member-key (sk_router_…${last4(memberKey)})`);
    const editing = await admin.get(`/app/guardrails?target=${encodeURIComponent(target)}`);
    expect(editing.html).toMatch(new RegExp(`<option value="${target}" selected>`));
    expect(editing.html).toContain('<input type="checkbox" name="deny.openai" checked>');
    // Allowing only a route profile it does not name: router/frontier is outside it.
    const changed = await admin.post('/app/guardrails', { target, allowedModels: 'router/fusion\nopenai/*', providers: 'any' });
    expect(changed.html).toContain('saved: Only models: router/fusion, openai/*.');
    // openai/* matches router/frontier's target as provider/model: the request runs.
    expect((await ask(memberKey)).choices).toHaveLength(1);
    await admin.post('/app/guardrails', { target, allowedModels: 'router/fusion', providers: 'any' });
    expect(await refusal(memberKey)).toMatchObject({ status: 403, code: 'guardrail_denied' });
    const removed = await admin.post('/app/guardrails/remove', { target });
    expect(removed.html).toContain('removed.');
    expect(guardrailsList(removed.html)).not.toContain(`guardrail-${target.replace(':', '-')}`);
    expect((await ask(memberKey)).choices).toHaveLength(1);
  });

  it('a member guardrail and a workspace guardrail apply to the keys they cover, and the page says which applies where', async () => {
    const { owner } = team;
    const members = (await owner.get('/app/members')).html;
    const member = `member:${personIdOf(members, 'member@gr.example')}`;
    const page = await owner.get('/app/guardrails');
    const workspace = optionValue(page.html, 'Default (default)');
    await owner.post('/app/guardrails', { target: member, providers: 'only', 'allow.anthropic': 'on' });
    await owner.post('/app/guardrails', { target: workspace, deniedModels: 'anthropic/*', providers: 'any' });
    const after = await owner.get('/app/guardrails');
    const table = appliesTable(after.html);
    const rowOf = (label: string) => table.slice(table.indexOf(label), table.indexOf('</li>', table.indexOf(label)));
    expect(rowOf(`member-key (sk_router_…${last4(memberKey)})`)).toContain('Workspace Default (default)</a>, <a href="/app/guardrails#guardrail-member-');
    expect(rowOf(`admin-key (sk_router_…${last4(adminKey)})`)).toContain('Workspace Default (default)');
    expect(rowOf(`admin-key (sk_router_…${last4(adminKey)})`)).not.toContain('Member member@gr.example');
    // The member may use Anthropic only, and this router's frontier is OpenAI: refused, naming the member's guardrail.
    const refused = await refusal(memberKey);
    expect(refused.code).toBe('guardrail_denied');
    expect(refused.message).toContain('allows only other providers');
    // Named by email, as the pages name members, with where to change it.
    expect(refused.message).toContain('The guardrail of member member@gr.example');
    expect(refused.message).toContain('on the Guardrails page (/app/guardrails)');
    expect((await ask(adminKey)).choices).toHaveLength(1);
    await owner.post('/app/guardrails/remove', { target: member });
    await owner.post('/app/guardrails/remove', { target: workspace });
    expect((await ask(memberKey)).choices).toHaveLength(1);
  });
});

describe('input', () => {
  it('answers each wrong field where it is, keeping what was typed', async () => {
    const { owner } = team;
    const page = await owner.get('/app/guardrails');
    const target = optionValue(page.html, 'Default (default)');
    const typo = await owner.post('/app/guardrails', { target, allowedModels: 'router/frontierr', providers: 'any' });
    expect(typo.status).toBe(400);
    expect(typo.html).toContain('“router/frontierr” matches no model or route profile this router serves');
    expect(typo.html).toContain('aria-describedby="allowed-models-error"');
    expect(typo.html).toContain('>router/frontierr</textarea>');
    const noProvider = await owner.post('/app/guardrails', { target, providers: 'only' });
    expect(noProvider.status).toBe(400);
    expect(noProvider.html).toContain('Tick at least one provider, or choose “Any provider”.');
    const nothing = await owner.post('/app/guardrails', { target, providers: 'any' });
    expect(nothing.status).toBe(400);
    expect(nothing.html).toContain('This guardrail would allow everything');
    const odd = await owner.post('/app/guardrails', { target, deniedModels: '<script>' });
    expect(odd.status).toBe(400);
    expect(odd.html).not.toContain('<script>');
    const many = await owner.post('/app/guardrails', { target, deniedModels: Array.from({ length: 65 }, (_, i) => `openai/m${i}`).join('\n') });
    expect(many.html).toContain('List at most 64 models');
    expect(guardrailsList((await owner.get('/app/guardrails')).html)).toContain('None: every key may use');
  });

  it('refuses a target of another organization, changing nothing there', async () => {
    const page = await team.owner.get('/app/guardrails');
    const target = optionValue(page.html, 'Default (default)');
    const stranger = new AppClient(router.url);
    await stranger.signUp('stranger@gr-other.example', 'correct horse battery staple');
    await stranger.get('/app/guardrails');
    const refused = await stranger.post('/app/guardrails', { target, 'deny.openai': 'on' });
    expect(refused.status).toBe(400);
    expect(refused.html).toContain('Choose a workspace, member or key from the list.');
    expect((await stranger.post('/app/guardrails/remove', { target })).status).toBe(400);
    expect(guardrailsList((await team.owner.get('/app/guardrails')).html)).toContain('None: every key may use');
    expect((await ask(memberKey)).choices).toHaveLength(1);
  });
});

describe('roles', () => {
  it('everyone reads the page; only admins and owners get the form; a member sees their own keys, a viewer none', async () => {
    for (const role of ROLES) {
      const page = await team[role].get('/app/guardrails');
      expect(page.status, role).toBe(200);
      expect(page.html.includes('Save guardrail'), role).toBe(role === 'owner' || role === 'admin');
      const table = appliesTable(page.html);
      expect(table.includes(`…${last4(memberKey)}`), `${role} sees the member's key`).toBe(role !== 'viewer');
      expect(table.includes(`…${last4(adminKey)}`), `${role} sees the admin's key`).toBe(role === 'owner' || role === 'admin');
    }
  });

  it('writes: owner and admin pass the role gate, member and viewer are refused; every write needs the form token', async () => {
    const writes: Array<[string, Record<string, string>]> = [
      ['/app/guardrails', { target: 'workspace:ws_000000', 'deny.openai': 'on' }],
      ['/app/guardrails/remove', { target: 'workspace:ws_000000' }],
    ];
    for (const [path, form] of writes) {
      for (const role of ROLES) {
        await team[role].get('/app/guardrails');
        const answer = await team[role].post(path, form);
        expect(refusedForRole(answer), `${role} POST ${path} → ${answer.status}`).toBe(role === 'member' || role === 'viewer');
      }
      const forged = await team.admin.post(path, { ...form, csrf: 'forged' });
      expect(forged.status, path).toBe(403);
      expect(forged.html, path).toContain('This form could not be accepted');
    }
    // A member cannot set a guardrail on their own key either.
    await team.member.get('/app/guardrails');
    const own = await team.member.post('/app/guardrails', { target: `key:x`, 'deny.openai': 'on' });
    expect(refusedForRole(own)).toBe(true);
  });
});
