/**
 * Who spent what, over real HTTP: an organization whose owner and two members each call models through
 * their own keys (the official openai SDK against the fake upstream), one member's key in a second
 * workspace. The usage page, its CSV and `router usage` (the built CLI on the same database) split the
 * traffic by member and by workspace into exactly what each caused; a member sees only their own usage
 * (page, CSV, recent requests), whatever they put in the query; viewers and admins see everyone's.
 * The audit on the security page and in `router audit` names the person who acted (signing in included).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppClient, shownKey, startAppRouter, type AppRouter } from '../app-harness.js';
import { TEST_SECRET, pointProvidersAt, runCli, runCliJson, sdkClient, startFakes, type Fakes } from '../router-harness.js';
import { usageBackends, type UsageBackend } from '../usage-backends.js';

const PASSWORD = 'correct horse battery staple';

interface Caused {
  requests: number;
  prompt: number;
  completion: number;
  requestIds: string[];
}

/** The usage table's row for `name`: requests, failed, prompt, completion, cost (as the page prints them). */
function tableRow(html: string, name: string): string[] | null {
  const escaped = name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const match = new RegExp(`<th scope="row">${escaped}</th><td>([^<]*)</td><td>([^<]*)</td><td>([^<]*)</td><td>([^<]*)</td><td>([^<]*)</td>`).exec(html);
  return match ? match.slice(1) : null;
}

const count = (value: number) => value.toLocaleString('en-US');
const totalRequests = (html: string) => /<dt>Requests<\/dt><dd>([^<]+)<\/dd>/.exec(html)?.[1];
const csvTotal = (csv: string) => csv.trim().split('\n').at(-1)!.split(',');

describe.each(usageBackends('app_usage_members'))('usage split by member and workspace on %s', { timeout: 180_000 }, (_name, makeBackend) => {
  let backend: UsageBackend;
  let fakes: Fakes;
  let router: AppRouter;
  let cliEnv: Record<string, string>;
  let orgId: string;
  let researchId: string;
  const people: Record<'owner' | 'ann' | 'ben' | 'vera', { email: string; browser: AppClient; personId: string; key?: string; caused: Caused }> = {} as never;

  async function signUp(name: keyof typeof people) {
    const email = `${name}@usage-members.example`;
    const browser = new AppClient(router.url);
    await browser.signUp(email, PASSWORD);
    const person = (await router.server.runtime.store.findPersonByEmail(email))!;
    people[name] = { email, browser, personId: person.id, caused: { requests: 0, prompt: 0, completion: 0, requestIds: [] } };
  }

  /** A key of its own, made on the keys page of the organization the person is in. */
  async function ownKey(name: keyof typeof people): Promise<string> {
    const browser = people[name].browser;
    await browser.get('/app/keys');
    const key = shownKey((await browser.follow(await browser.post('/app/keys', { name: `${name}'s key` }))).html)!;
    expect(key, name).toMatch(/^sk_router_/);
    return key;
  }

  /** `times` chat completions through the official SDK; what each reported is what the person caused. */
  async function traffic(name: keyof typeof people, times: number) {
    const client = sdkClient(router, people[name].key!);
    for (let i = 0; i < times; i++) {
      const { data, response } = await client.chat.completions
        .create({ model: 'router/frontier', messages: [{ role: 'user', content: `${name} asks question number ${i}${' and more'.repeat(i)}` }] })
        .withResponse();
      const caused = people[name].caused;
      caused.requests += 1;
      caused.prompt += data.usage!.prompt_tokens;
      caused.completion += data.usage!.completion_tokens;
      caused.requestIds.push(response.headers.get('x-request-id')!);
    }
  }

  beforeAll(async () => {
    backend = makeBackend();
    fakes = await startFakes();
    router = await startAppRouter({ env: backend.env, patch: { providers: pointProvidersAt(fakes.urls), server: backend.server } });
    cliEnv = { ROUTER_CONFIG: router.configDir, ROUTER_SECRET_KEY: TEST_SECRET, ...backend.env };
    const store = router.server.runtime.store;
    for (const name of ['owner', 'ann', 'ben', 'vera'] as const) await signUp(name);
    orgId = (await store.findLoginByEmail(people.owner.email))!.account.id;
    const owner = people.owner.browser;
    await owner.get('/app/provider-keys');
    await owner.post('/app/provider-keys', { provider: 'openai', key: 'sk-proj-usage-members-0001' });
    // The owner makes the others members (as `router members add` does), and each switches to the organization.
    await store.addMember({ accountId: orgId, personId: people.ann.personId, role: 'member' }, 'cli');
    await store.addMember({ accountId: orgId, personId: people.ben.personId, role: 'member' }, 'cli');
    await store.addMember({ accountId: orgId, personId: people.vera.personId, role: 'viewer' }, 'cli');
    for (const name of ['ann', 'ben', 'vera'] as const) {
      const browser = people[name].browser;
      await browser.get('/app/usage');
      expect((await browser.post('/app/organizations/switch', { organization: orgId })).status).toBe(303);
    }
    for (const name of ['owner', 'ann', 'ben'] as const) people[name].key = await ownKey(name);
    // Ben's key lives in a second workspace.
    researchId = (await store.createWorkspace({ accountId: orgId, name: 'Research' }, 'cli')).id;
    const bensKey = (await store.listApiKeys(orgId)).find((key) => key.personId === people.ben.personId)!;
    await store.moveApiKeyToWorkspace(orgId, bensKey.id, researchId, 'cli');

    await traffic('ann', 3);
    await traffic('ben', 2);
    await traffic('owner', 1);
    await router.server.runtime.usage.ledger!.flush();
  });
  afterAll(async () => {
    await router?.close();
    await fakes?.close();
    await backend?.cleanUp();
  });

  it('splits the page by member and by workspace into exactly the traffic each caused', async () => {
    const owner = people.owner.browser;
    const byMember = await owner.get('/app/usage?by=member&tz=UTC');
    expect(byMember.status).toBe(200);
    for (const name of ['ann', 'ben', 'owner'] as const) {
      const { caused, email } = people[name];
      const label = name === 'owner' ? `${email}` : email;
      const row = tableRow(byMember.html, label);
      expect(row, name).not.toBeNull();
      expect(row!.slice(0, 4), name).toEqual([String(caused.requests), '0', count(caused.prompt), count(caused.completion)]);
    }
    expect(tableRow(byMember.html, people.vera.email)).toBeNull();
    expect(totalRequests(byMember.html)).toBe('6');

    const defaultName = (await router.server.runtime.store.getDefaultWorkspace(orgId)).name;
    const byWorkspace = await owner.get('/app/usage?by=workspace');
    const mainFolks = people.ann.caused.requests + people.owner.caused.requests;
    expect(tableRow(byWorkspace.html, defaultName)!.slice(0, 3)).toEqual([String(mainFolks), '0', count(people.ann.caused.prompt + people.owner.caused.prompt)]);
    expect(tableRow(byWorkspace.html, 'Research')!.slice(0, 3)).toEqual([String(people.ben.caused.requests), '0', count(people.ben.caused.prompt)]);

    // Filters: one member's, one workspace's; a filter naming nobody of the organization is refused.
    const onlyAnn = await owner.get(`/app/usage?by=provider&member=${people.ann.personId}`);
    expect(totalRequests(onlyAnn.html)).toBe('3');
    for (const id of people.ann.caused.requestIds) expect(onlyAnn.html).toContain(id);
    for (const id of people.ben.caused.requestIds) expect(onlyAnn.html).not.toContain(id);
    expect(totalRequests((await owner.get(`/app/usage?workspace=${researchId}`)).html)).toBe('2');
    expect(totalRequests((await owner.get(`/app/usage?workspace=${researchId}&member=${people.ann.personId}`)).html)).toBe('0');
    const stranger = await owner.get('/app/usage?member=psn_00000000000000000000000000');
    expect(stranger.status).toBe(400);
    expect(stranger.html).toContain('not in this organization');
    // A viewer reads everyone's usage.
    expect(totalRequests((await people.vera.browser.get('/app/usage?by=member')).html)).toBe('6');
  });

  it('shows a member only the usage they caused, on the page, in the CSV and in recent requests, whatever the query', async () => {
    const ann = people.ann.browser;
    for (const query of ['by=member', `by=key&member=${people.ben.personId}`, `by=workspace&workspace=${researchId}`]) {
      const page = await ann.get(`/app/usage?${query}`);
      expect(page.status, query).toBe(200);
      const expected = query.includes(researchId) ? '0' : '3';
      expect(totalRequests(page.html), query).toBe(expected);
      expect(page.html).not.toContain(people.ben.email);
      expect(page.html).not.toContain(people.owner.caused.requestIds[0]!);
      for (const id of people.ben.caused.requestIds) expect(page.html, query).not.toContain(id);
    }
    const own = await ann.get('/app/usage?by=member');
    expect(tableRow(own.html, people.ann.email)!.slice(0, 4)).toEqual([String(people.ann.caused.requests), '0', count(people.ann.caused.prompt), count(people.ann.caused.completion)]);
    for (const id of people.ann.caused.requestIds) expect(own.html).toContain(id);
    expect(own.html).toContain('you see the usage of the keys you hold');

    for (const query of ['by=member', `by=day&member=${people.ben.personId}`, 'by=key']) {
      const csv = await ann.get(`/app/usage.csv?${query}`);
      expect(csv.status, query).toBe(200);
      expect(csv.html).not.toContain(people.ben.email);
      const total = csvTotal(csv.html);
      expect(total[1], query).toBe(String(people.ann.caused.requests));
      expect(total[4], query).toBe(String(people.ann.caused.prompt));
      expect(total.at(-2), query).toBe(people.ann.email);
    }
    // Nor a support bundle of another member's request.
    await ann.get('/app/support');
    const theirs = await ann.post('/app/support/bundle', { requestId: people.ben.caused.requestIds[0]! });
    expect(theirs.status).toBe(404);
    expect((await ann.post('/app/support/bundle', { requestId: people.ann.caused.requestIds[0]! })).status).toBe(200);
  });

  it('prints the same split in router usage: by member and workspace, filtered, and the CSV byte for byte as the app exports it', async () => {
    const today = new Date().toISOString().slice(0, 10);
    const range = ['--from', today, '--to', today];
    const report = await runCliJson(cliEnv, 'usage', '--account', orgId, '--by', 'member', ...range);
    const byEmail = Object.fromEntries(report.rows.map((row: { member: string; requests: number; promptTokens: number; completionTokens: number }) => [row.member, [row.requests, row.promptTokens, row.completionTokens]]));
    expect(byEmail).toEqual(Object.fromEntries((['ann', 'ben', 'owner'] as const).map((name) => [people[name].email, [people[name].caused.requests, people[name].caused.prompt, people[name].caused.completion]])));

    const table = await runCli(cliEnv, 'usage', '--account', orgId, '--by', 'member', ...range);
    expect(table.code).toBe(0);
    const annLine = table.stdout.split('\n').find((line) => line.startsWith(people.ann.email))!;
    expect(annLine.split(/\s+/).slice(1, 3)).toEqual([String(people.ann.caused.requests), '0']);
    expect(table.stdout.split('\n').find((line) => line.startsWith('total'))).toMatch(/^total\s+6\s+0\s/);

    const research = await runCliJson(cliEnv, 'usage', '--account', orgId, '--workspace', 'Research', ...range);
    expect(research.totals.requests).toBe(people.ben.caused.requests);
    const annOnly = await runCliJson(cliEnv, 'usage', '--account', orgId, '--by', 'workspace', '--member', people.ann.email.toUpperCase(), ...range);
    expect(annOnly.totals.requests).toBe(people.ann.caused.requests);
    expect(annOnly.rows.map((row: { workspace: string }) => row.workspace)).toEqual([(await router.server.runtime.store.getDefaultWorkspace(orgId)).name]);
    const nobody = await runCli(cliEnv, 'usage', '--account', orgId, '--member', 'nobody@example.com');
    expect(nobody.code).toBe(1);
    expect(nobody.stderr).toContain('member nobody@example.com not found');
    expect((await runCli(cliEnv, 'usage', '--by', 'member')).code).toBe(2);

    for (const [by, filter] of [['member', {}], ['workspace', {}], ['key', { member: people.ben.personId }]] as const) {
      const params = new URLSearchParams({ by, tz: 'UTC', from: today, to: today, ...filter });
      const app = await people.owner.browser.get(`/app/usage.csv?${params}`);
      const cli = await runCli(cliEnv, 'usage', '--account', orgId, '--by', by, ...range, '--csv', ...('member' in filter ? ['--member', people.ben.email] : []));
      expect(app.html, by).toBe(cli.stdout);
      expect(app.html.split('\n')[0]!.endsWith(',member,workspace')).toBe(true);
    }
  });

  it('names the person who acted in the audit, on the security page and in router audit', async () => {
    const owner = people.owner.browser;
    await owner.get('/app/security');
    await owner.post('/app/security/alerts', { email_quota: 'on' });
    const page = await owner.get('/app/security');
    expect(page.html).toMatch(new RegExp(`<td>Alert emails changed</td><td>${people.owner.email.replace('.', '\\.')}</td>`));
    expect(page.html).not.toMatch(/<td>person:psn_/);
    // Signing in is the person's own act too; a failed attempt names no one.
    expect(page.html).toMatch(new RegExp(`<td>Signed in</td><td>${people.owner.email.replace('.', '\\.')}</td>`));
    const { events } = await runCliJson(cliEnv, 'audit', '--account', orgId);
    const keyCreated = events.filter((event: { action: string }) => event.action === 'key.create');
    expect(keyCreated.map((event: { actorName: string }) => event.actorName).sort()).toEqual([people.ann.email, people.ben.email, people.owner.email].sort());
    expect(keyCreated.every((event: { actor: string }) => event.actor.startsWith('person:psn_'))).toBe(true);
    const table = await runCli(cliEnv, 'audit', '--account', orgId);
    expect(table.stdout).toContain(people.ann.email);
  });
});
