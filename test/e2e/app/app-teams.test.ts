/**
 * Teams over HTTP (docs/teams.md): invitations through a real SMTP server (accept, expire, revoke,
 * resend, wrong recipient), the role × route matrix of route-roles.ts for owner, admin, member and
 * viewer, a person in two organizations who never sees one from the other, and removal mid-traffic:
 * the request in flight finishes, the next one with the removed member's key is refused 401.
 */
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ROUTE_ROLES, roleAllows } from '../../../src/app/route-roles.js';
import type { Role } from '../../../src/stores/people-store.js';
import { ManualClock } from '../../contracts/store-contract.js';
import { startSmtpSink, type SmtpSink } from '../../support/smtp-sink.js';
import { AppClient, shownKey, startAppRouter, type AppRouter } from '../app-harness.js';
import { frontierOrder, pointProvidersAt, startFakes, type Fakes } from '../router-harness.js';

const PASSWORD = 'correct horse battery staple';
const DAY = 86_400_000;
const invitationIn = (text: string) => /(http:\/\/127\.0\.0\.1:\d+\/app\/invitations\/accept\?token=[A-Za-z0-9_-]+)/.exec(text)?.[1] ?? null;
const pathOf = (url: string) => {
  const parsed = new URL(url);
  return parsed.pathname + parsed.search;
};
/** The members table only (the header's organization switcher names the other organizations). */
const membersTable = (html: string) => html.slice(html.indexOf('aria-label="Members"'), html.indexOf('</table>'));
const tokenOf = (url: string) => new URL(url).searchParams.get('token')!;
const personIdOf = (html: string, email: string) => new RegExp(`<tr id="member-(psn_[0-9a-f]+)">\\s*<td>${email.replace('.', '\\.')}`).exec(html)?.[1] ?? null;

// Every sign-up, acceptance and sign-in hashes a password on purpose slowly; on a busy machine a journey takes a while.
vi.setConfig({ testTimeout: 120_000, hookTimeout: 180_000 });

let sink: SmtpSink;
let fakes: Fakes;
let router: AppRouter;
const clock = new ManualClock(Date.now());

beforeAll(async () => {
  [sink, fakes] = await Promise.all([startSmtpSink(), startFakes()]);
  router = await startAppRouter({
    clock,
    env: { ROUTER_SMTP_URL: sink.url },
    app: { signupPlan: 'pro', requireEmailVerification: false },
    patch: { providers: pointProvidersAt(fakes.urls), routes: frontierOrder(['openai']) },
  });
});
afterAll(async () => {
  await router.close();
  await Promise.all([sink.close(), fakes.close()]);
});

/** The owner invites `email` as `role`; returns the mailed link. */
async function invite(owner: AppClient, email: string, role: Role): Promise<string> {
  const mailsTo = () => sink.mails.filter((mail) => mail.to.includes(email) && /^You are invited to /.test(mail.subject));
  const before = mailsTo().length;
  await owner.get('/app/members');
  const sent = await owner.post('/app/members/invite', { email, role });
  expect(sent.status, sent.html.slice(0, 2000)).toBe(200);
  expect(sent.html).toContain(`Invitation sent to ${email}`);
  for (let tries = 0; mailsTo().length === before && tries < 100; tries++) await new Promise((resolve) => setTimeout(resolve, 100));
  return invitationIn(mailsTo().at(-1)!.text)!;
}

/** A newcomer accepts a mailed invitation by choosing a password. */
async function accept(link: string): Promise<AppClient> {
  const client = new AppClient(router.url);
  const page = await client.get(pathOf(link));
  expect(page.status).toBe(200);
  expect(page.html).toContain('Create sign-in and join');
  const joined = await client.post('/app/invitations/accept', { token: tokenOf(link), password: PASSWORD });
  expect(joined.status).toBe(303);
  // Lands signed in, in the organization it joined (the page also gives this session's form token).
  expect((await client.follow(joined)).status).toBe(200);
  return client;
}

async function owner(email: string): Promise<AppClient> {
  const client = new AppClient(router.url);
  await client.signUp(email, PASSWORD);
  return client;
}

describe('invitations by email', () => {
  it('accepting creates the person, joins with the role, and works once', async () => {
    const acme = await owner('owner@acme.example');
    const link = await invite(acme, 'bob@acme.example', 'member');
    const bob = await accept(link);
    const members = await bob.get('/app/members');
    expect(members.html).toContain('owner@acme.example');
    expect(members.html).toMatch(/bob@acme\.example <span class="badge live">you<\/span>/);
    // A member sees the list but cannot manage it.
    expect(members.html).not.toContain('Send invitation');
    expect((await new AppClient(router.url).get(pathOf(link))).status).toBe(410);
    // Signed in again with the password chosen at acceptance.
    expect((await new AppClient(router.url).signIn('bob@acme.example', PASSWORD)).html).not.toContain('do not match');
  });

  it('refuses an invitation opened by someone signed in as another person, clearly and without changing anything', async () => {
    const acme = await owner('owner2@acme.example');
    const link = await invite(acme, 'carol@acme.example', 'viewer');
    const dave = await owner('dave@elsewhere.example');
    const opened = await dave.get(pathOf(link));
    expect(opened.status).toBe(403);
    expect(opened.html).toContain('It was sent to carol@acme.example, and you are signed in as dave@elsewhere.example');
    await dave.get('/app/security');
    const posted = await dave.post('/app/invitations/accept', { token: tokenOf(link) });
    expect(posted.status).toBe(403);
    // Still pending, for Carol.
    expect((await new AppClient(router.url).get(pathOf(link))).status).toBe(200);
  });

  it('a revoked invitation no longer works; a resent one replaces the earlier link', async () => {
    const acme = await owner('owner3@acme.example');
    const first = await invite(acme, 'erin@acme.example', 'member');
    const page = await acme.get('/app/members');
    const id = /id="invitation-(inv_[0-9a-f]+)"/.exec(page.html)![1]!;
    const resent = await acme.post(`/app/invitations/${id}/resend`, {});
    expect(resent.html).toContain('Invitation sent again to erin@acme.example');
    const erinsMails = () => sink.mails.filter((mail) => mail.to.includes('erin@acme.example'));
    for (let tries = 0; erinsMails().length < 2 && tries < 50; tries++) await new Promise((resolve) => setTimeout(resolve, 100));
    const second = sink.mails.filter((mail) => mail.to.includes('erin@acme.example')).map((mail) => invitationIn(mail.text)!).at(-1)!;
    expect(second).not.toBe(first);
    expect((await new AppClient(router.url).get(pathOf(first))).status).toBe(410);
    await acme.get('/app/members');
    expect((await acme.post(`/app/invitations/${id}/revoke`, {})).html).toContain('Invitation revoked');
    expect((await new AppClient(router.url).get(pathOf(second))).status).toBe(410);
  });

  it('acceptance rechecks the plan’s member limit: after a downgrade, the page names the limit and who lifts it, and nothing changes', async () => {
    const store = router.server.runtime.store;
    const acme = await owner('limit.owner@example.com');
    const [newcomerLink, doraLink] = [await invite(acme, 'newcomer@example.com', 'member'), await invite(acme, 'dora@example.com', 'admin')];
    const dora = await owner('dora@example.com');
    const acmeId = (await store.listMemberships((await store.findPersonByEmail('limit.owner@example.com'))!.id))[0]!.accountId;
    // The newcomer opened the form before the organization was downgraded to Free (one person).
    const newcomer = new AppClient(router.url);
    expect((await newcomer.get(pathOf(newcomerLink))).html).toContain('Create sign-in and join');
    await store.setAccountPlan(acmeId, 'free', 'test');

    const opened = await new AppClient(router.url).get(pathOf(newcomerLink));
    expect(opened.status).toBe(409);
    expect(opened.html).toContain('has no room for another member');
    expect(opened.html).toContain('Its Free plan allows 1 member, and it has 1. Nothing was changed');
    expect(opened.html).toContain('can upgrade the plan (Billing), or an owner or admin can remove a member');
    // Submitting the form opened earlier is refused the same way, before any sign-in is made.
    const posted = await newcomer.post('/app/invitations/accept', { token: tokenOf(newcomerLink), password: PASSWORD });
    expect(posted.status).toBe(409);
    expect(await store.findPersonByEmail('newcomer@example.com')).toBeNull();
    // Signed in as the invited address: the join button is refused too, and she stays out.
    const doraPage = await dora.get(pathOf(doraLink));
    expect(doraPage.status).toBe(409);
    expect((await dora.post('/app/invitations/accept', { token: tokenOf(doraLink), csrf: dora.csrf ?? '' })).status).toBe(409);
    expect((await store.listMembers(acmeId)).map((member) => member.email)).toEqual(['limit.owner@example.com']);
    // Sending is refused too: a resend of a link that could not be accepted mails nothing.
    const pending = await store.listInvitations(acmeId, new Date(clock.now()).toISOString());
    expect(pending.map((invitation) => invitation.email).sort()).toEqual(['dora@example.com', 'newcomer@example.com']);
    await acme.get('/app/members');
    const resent = await acme.post(`/app/invitations/${pending[0]!.id}/resend`, {});
    expect(resent.status).toBe(409);
    expect(resent.html).toContain('The Free plan allows 1 member (pending invitations count).');

    // Upgraded again, the same link works.
    await store.setAccountPlan(acmeId, 'pro', 'test');
    await accept(newcomerLink);
    expect((await store.listMembers(acmeId)).map((member) => member.email).sort()).toEqual(['limit.owner@example.com', 'newcomer@example.com']);
  });

  it('expires after seven days', async () => {
    const acme = await owner('owner4@acme.example');
    const link = await invite(acme, 'frank@acme.example', 'member');
    clock.advance(7 * DAY + 1000);
    try {
      expect((await new AppClient(router.url).get(pathOf(link))).status).toBe(410);
    } finally {
      clock.advance(-(7 * DAY + 1000));
    }
  });
});

describe('roles on every app route', () => {
  const clients = {} as Record<Role, AppClient>;
  beforeAll(async () => {
    clients.owner = await owner('matrix.owner@example.com');
    for (const role of ['admin', 'member', 'viewer'] as const) clients[role] = await accept(await invite(clients.owner, `matrix.${role}@example.com`, role));
  });

  const concrete = (route: string) => route.replace(':id', 'key_0000').replace(':person', 'psn_0000').replace(':provider', 'nowhere');
  // Signing out or deleting the organization would end the matrix early; both are checked on their own below.
  // The billing portal exists only with billing on (billing tests cover it).
  const skipped = new Set(['POST /signout', 'POST /organization/delete', 'GET /billing/portal']);

  it.each(Object.entries(ROUTE_ROLES).filter(([route]) => !skipped.has(route)))('%s needs %s', async (route, needed) => {
    const [method, path] = route.split(' ') as ['GET' | 'POST', string];
    for (const role of ['owner', 'admin', 'member', 'viewer'] as const) {
      const client = clients[role];
      let answer;
      if (method === 'GET') answer = await client.get(`/app${concrete(path)}`);
      else {
        await client.get('/app/security');
        answer = await client.post(`/app${concrete(path)}`, {});
      }
      const refused = answer.status === 403 && answer.html.includes('Not allowed for your role');
      expect(refused, `${role} ${route} → ${answer.status}`).toBe(!roleAllows(role, needed));
      // Allowed: a page without a row in its address opens (or redirects, as billing does with billing off); nothing fails.
      if (roleAllows(role, needed)) expect(answer.status, `${role} ${route}`).toBeLessThan(500);
      if (roleAllows(role, needed) && method === 'GET' && !path.includes(':')) expect([200, 302, 303], `${role} ${route} → ${answer.status}`).toContain(answer.status);
    }
  });

  it('keys of others: a member acts on their own keys only (another’s is the same 404 as none); admins and owners on every key', async () => {
    const keyIdOf = async (client: AppClient, name: string) => {
      await client.get('/app/keys');
      const page = await client.follow(await client.post('/app/keys', { name, expiresInDays: '30' }));
      // The key by its name: an admin's page lists every key of the organization, and which comes first
      // depends on creation instants that can tie under load.
      const id = new RegExp(`id="(key_[0-9a-f]+)">\\s*<div class="key-head">\\s*<strong>${name}</strong>`).exec(page.html)?.[1];
      expect(id, page.html.slice(0, 500)).toBeDefined();
      return id!;
    };
    const adminKey = await keyIdOf(clients.admin, 'admins-own');
    const memberKey = await keyIdOf(clients.member, 'members-own');
    const { store } = router.server.runtime;
    const member = clients.member;
    await member.get('/app/keys');
    expect((await member.get('/app/keys')).html).not.toContain(adminKey);
    const attempts = [
      () => member.get(`/app/keys/${adminKey}/usage`),
      () => member.get(`/app/keys/${adminKey}/revoke`),
      () => member.post(`/app/keys/${adminKey}/revoke`, {}),
      () => member.post(`/app/keys/${adminKey}/rotate`, {}),
      () => member.post(`/app/keys/${adminKey}/limits`, { monthlyRequests: '1', requestsPerMinute: '' }),
    ];
    for (const attempt of attempts) {
      await member.get('/app/keys');
      expect((await attempt()).status).toBe(404);
    }
    const untouched = (await store.getApiKey(adminKey))!;
    expect(untouched.revokedAt).toBeNull();
    expect(await store.getKeyLimits(adminKey)).toBeNull();
    // Rotating would have made a new key: the admin still has exactly the one they made.
    expect((await store.listApiKeys(untouched.accountId)).filter((key) => key.name === 'admins-own')).toHaveLength(1);
    // The member's own key is theirs to limit; an admin's and an owner's pages list it and may act on it.
    await member.get('/app/keys');
    expect((await member.get(`/app/keys/${memberKey}/usage`)).status).toBe(200);
    for (const role of ['admin', 'owner'] as const) {
      expect((await clients[role].get('/app/keys')).html, role).toContain(memberKey);
      expect((await clients[role].get(`/app/keys/${memberKey}/usage`)).status, role).toBe(200);
    }
    await clients.admin.get('/app/keys');
    const revoked = await clients.admin.post(`/app/keys/${memberKey}/revoke`, {});
    expect(revoked.status).toBeLessThan(400);
    expect((await store.getApiKey(memberKey))!.revokedAt).not.toBeNull();
  });

  it('shows each role only the pages it may open', async () => {
    const nav = async (role: Role) => [...(await clients[role].get('/app/usage')).html.matchAll(/<nav class="side"[\s\S]*?<\/nav>/g)][0]![0];
    expect(await nav('viewer')).not.toContain('/app/keys');
    expect(await nav('member')).toContain('/app/keys');
    expect(await nav('member')).not.toContain('/app/provider-keys');
    expect(await nav('admin')).not.toContain('/app/billing');
    expect(await nav('owner')).toContain('/app/billing');
  });
});

describe('one person, two organizations', () => {
  it('switches between them and never sees one organization’s keys, usage or members from the other', async () => {
    const acme = await owner('shared.acme@example.com');
    const beta = await owner('shared.beta@example.com');
    const gina = await accept(await invite(acme, 'gina@example.com', 'admin'));
    const betaLink = await invite(beta, 'gina@example.com', 'admin');
    const joinPage = await gina.get(pathOf(betaLink));
    expect(joinPage.html).toContain('Join shared.beta@example.com');
    await gina.follow(await gina.post('/app/invitations/accept', { token: tokenOf(betaLink) }));
    const acmeKey = shownKey((await acme.follow(await acme.post('/app/onboarding/key', {}))).html)!;
    expect(acmeKey).not.toBeNull();
    // Acme's key causes usage: a request through the official SDK, recorded before the pages are read.
    await acme.get('/app/provider-keys');
    await acme.post('/app/provider-keys', { provider: 'openai', key: 'sk-test-openai-2468' });
    const asked = await new OpenAI({ apiKey: acmeKey, baseURL: router.baseURL, maxRetries: 0 }).chat.completions
      .create({ model: 'router/frontier', messages: [{ role: 'user', content: 'acme only' }] })
      .withResponse();
    const acmeRequest = asked.response.headers.get('x-request-id')!;
    expect(acmeRequest).toBeTruthy();
    await router.server.runtime.usage.ledger?.flush();
    expect((await acme.get('/app/usage')).html).toContain(acmeRequest);
    const inBeta = await gina.get('/app/keys');
    expect(inBeta.html).not.toContain(`…${acmeKey.slice(-4)}`);
    expect(membersTable((await gina.get('/app/members')).html)).not.toContain('shared.acme@example.com');
    const betaUsage = await gina.get('/app/usage');
    expect(betaUsage.status).toBe(200);
    expect(betaUsage.html).not.toContain(acmeRequest);
    const betaCsv = await gina.get('/app/usage.csv?by=key');
    expect(betaCsv.status).toBe(200);
    expect(betaCsv.html).not.toContain(acmeKey.slice(-4));
    // Nor a support bundle of Acme's request from Beta.
    await gina.get('/app/support');
    expect((await gina.post('/app/support/bundle', { requestId: acmeRequest })).status).toBe(404);
    const menu = await gina.get('/app/members');
    const acmeId = /name="organization" value="(acct_[0-9a-f]+)"/.exec(menu.html)![1]!;
    await gina.follow(await gina.post('/app/organizations/switch', { organization: acmeId }));
    expect((await gina.get('/app/keys')).html).toContain(`…${acmeKey.slice(-4)}`);
    expect(membersTable((await gina.get('/app/members')).html)).toContain('shared.acme@example.com');
    expect((await gina.get('/app/usage')).html).toContain(acmeRequest);
    // An organization she does not belong to cannot be selected.
    const strangers = await owner('stranger@example.com');
    await strangers.get('/app/members');
    await gina.get('/app/members');
    expect((await gina.post('/app/organizations/switch', { organization: 'acct_000000000000000000000000' })).status).toBe(404);
  });
});

/** An owner with an OpenAI provider key, and a member who made a key; `ask` calls a model with it through the SDK. */
async function memberWithKey(ownerEmail: string, memberEmail: string) {
  const acme = await owner(ownerEmail);
  await acme.get('/app/provider-keys');
  await acme.post('/app/provider-keys', { provider: 'openai', key: 'sk-test-openai-1234' });
  const member = await accept(await invite(acme, memberEmail, 'member'));
  const key = shownKey((await member.follow(await member.post('/app/onboarding/key', {}))).html)!;
  const openai = new OpenAI({ apiKey: key, baseURL: router.baseURL, maxRetries: 0 });
  const ask = () => openai.chat.completions.create({ model: 'router/frontier', messages: [{ role: 'user', content: 'hi' }] });
  return { acme, member, ask };
}

describe('removing a member', () => {
  it('the request in flight finishes; the next one with their key is refused 401; their session there ends', async () => {
    const { acme, member: hank, ask } = await memberWithKey('removal.owner@example.com', 'hank@example.com');
    expect((await ask()).choices.length).toBe(1);

    fakes.openai.setReply({ latencyMs: 800 });
    const inFlight = ask();
    await new Promise((resolve) => setTimeout(resolve, 200));
    const members = await acme.get('/app/members');
    const hankId = personIdOf(members.html, 'hank@example.com')!;
    const removed = await acme.post(`/app/members/${hankId}/remove`, { keys: 'revoke' });
    expect(removed.html).toContain('Member removed; 1 key revoked');
    expect((await inFlight).choices.length).toBe(1);
    fakes.openai.setReply({});
    const refused = await ask().catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(OpenAI.APIError);
    expect((refused as InstanceType<typeof OpenAI.APIError>).status).toBe(401);
    expect((await hank.get('/app/keys')).location).toContain('/app/signin');
    const audit = await acme.get('/app/security');
    // The removal names the person who did it (their email, not the stored person:<id>).
    expect(audit.html).toMatch(/<td>member\.remove<\/td><td>removal\.owner@example\.com<\/td>/);
    expect(audit.html).not.toMatch(/person:psn_[0-9a-f]+/);
  });

  it('demoted to viewer, a member’s keys are revoked at once (the next request is 401), and the page says so', async () => {
    const { acme, member: ivy, ask } = await memberWithKey('demotion.owner@example.com', 'ivy@example.com');
    expect((await ask()).choices.length).toBe(1);

    const ivyId = personIdOf((await acme.get('/app/members')).html, 'ivy@example.com')!;
    const demoted = await acme.post(`/app/members/${ivyId}/role`, { role: 'viewer' });
    expect(demoted.status).toBe(200);
    expect(demoted.html).toContain('Role changed to viewer. 1 key was revoked: a viewer reads usage only and calls no model.');
    const refused = await ask().catch((error: unknown) => error);
    expect((refused as InstanceType<typeof OpenAI.APIError>).status).toBe(401);
    // Still a member of the organization, reading its usage.
    expect((await ivy.get('/app/usage')).status).toBe(200);
  });

  it('never removes or demotes the last owner', async () => {
    const solo = await owner('last.owner@example.com');
    const page = await solo.get('/app/members');
    const me = personIdOf(page.html, 'last.owner@example.com')!;
    // The owner's own row has no controls; a forged post is refused.
    expect((await solo.post(`/app/members/${me}/remove`, { keys: 'revoke' })).status).toBe(409);
    await solo.get('/app/members');
    expect((await solo.post(`/app/members/${me}/role`, { role: 'admin' })).status).toBe(409);
  });
});
