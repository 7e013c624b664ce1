/**
 * Usage stays with whoever caused it (version 18), over real HTTP: Ann's key moves to another workspace
 * and Ben is removed with his key handed to the owner, who goes on using it. The usage page, its CSV and
 * `router usage` (the built CLI on the same database) still split the earlier traffic by the person and
 * workspace the key had when it ran; the receipt and the CSV name the member.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppClient, shownKey, startAppRouter, type AppRouter } from '../app-harness.js';
import { TEST_SECRET, pointProvidersAt, runCliJson, sdkClient, startFakes, type Fakes } from '../router-harness.js';
import { usageBackends, type UsageBackend } from '../usage-backends.js';

const PASSWORD = 'correct horse battery staple';

/** The usage table's row for `name`: its request count (as the page prints it). */
function requestsOf(html: string, name: string): string | null {
  const escaped = name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`<th scope="row">${escaped}</th><td>([^<]*)</td>`).exec(html)?.[1] ?? null;
}

describe.each(usageBackends('app_usage_attribution'))('usage attributed when it was caused on %s', { timeout: 180_000 }, (_name, makeBackend) => {
  let backend: UsageBackend;
  let fakes: Fakes;
  let router: AppRouter;
  let cliEnv: Record<string, string>;
  let orgId: string;
  let defaultName: string;
  const people: Record<'owner' | 'ann' | 'ben', { email: string; browser: AppClient; personId: string; key?: string }> = {} as never;
  const requestIds: string[] = [];
  const bensRequests: string[] = [];
  const annsRequests: string[] = [];

  async function traffic(key: string, times: number) {
    const client = sdkClient(router, key);
    for (let i = 0; i < times; i++) {
      const { response } = await client.chat.completions.create({ model: 'router/frontier', messages: [{ role: 'user', content: `question ${i}` }] }).withResponse();
      requestIds.push(response.headers.get('x-request-id')!);
    }
  }

  beforeAll(async () => {
    backend = makeBackend();
    fakes = await startFakes();
    router = await startAppRouter({ env: backend.env, patch: { providers: pointProvidersAt(fakes.urls), server: backend.server } });
    cliEnv = { ROUTER_CONFIG: router.configDir, ROUTER_SECRET_KEY: TEST_SECRET, ...backend.env };
    const store = router.server.runtime.store;
    for (const name of ['owner', 'ann', 'ben'] as const) {
      const email = `${name}@usage-attribution.example`;
      const browser = new AppClient(router.url);
      await browser.signUp(email, PASSWORD);
      people[name] = { email, browser, personId: (await store.findPersonByEmail(email))!.id };
    }
    orgId = (await store.findLoginByEmail(people.owner.email))!.account.id;
    defaultName = (await store.getDefaultWorkspace(orgId)).name;
    await people.owner.browser.get('/app/provider-keys');
    await people.owner.browser.post('/app/provider-keys', { provider: 'openai', key: 'sk-proj-usage-attribution-01' });
    for (const name of ['ann', 'ben'] as const) {
      await store.addMember({ accountId: orgId, personId: people[name].personId, role: 'member' }, 'cli');
      await people[name].browser.get('/app/usage');
      expect((await people[name].browser.post('/app/organizations/switch', { organization: orgId })).status).toBe(303);
    }
    for (const name of ['owner', 'ann', 'ben'] as const) {
      const browser = people[name].browser;
      await browser.get('/app/keys');
      people[name].key = shownKey((await browser.follow(await browser.post('/app/keys', { name: `${name}'s key` }))).html)!;
    }
    const keyOf = async (name: 'ann' | 'ben') => (await store.listApiKeys(orgId)).find((key) => key.name === `${name}'s key`)!;

    // Ann: 2 requests in the default workspace, then her key moves to Research and she makes 1 more.
    await traffic(people.ann.key!, 2);
    annsRequests.push(...requestIds);
    await router.server.runtime.usage.ledger!.flush();
    const research = await store.createWorkspace({ accountId: orgId, name: 'Research' }, 'cli');
    // Through the app, as an admin moves a key: the router counts the key's next request in Research at once.
    await people.owner.browser.get('/app/keys');
    expect((await people.owner.browser.post(`/app/keys/${(await keyOf('ann')).id}/workspace`, { workspace: research.id })).status).toBe(200);
    expect((await keyOf('ann')).workspaceId).toBe(research.id);
    await traffic(people.ann.key!, 1);
    // Ben: 3 requests, then he is removed and his key handed to the owner, who makes 1 request with it.
    await traffic(people.ben.key!, 3);
    bensRequests.push(...requestIds.slice(-3));
    await router.server.runtime.usage.ledger!.flush();
    await people.owner.browser.get('/app/members');
    expect((await people.owner.browser.post(`/app/members/${people.ben.personId}/remove`, { keys: people.owner.personId })).status).toBe(200);
    expect((await keyOf('ben')).personId).toBe(people.owner.personId);
    await traffic(people.ben.key!, 1);
    await router.server.runtime.usage.ledger!.flush();
  });
  afterAll(async () => {
    await router?.close();
    await fakes?.close();
    await backend?.cleanUp();
  });

  it('keeps a moved key\'s and a handed-over key\'s earlier usage with the workspace and person that caused it, on the page and in the CSV', async () => {
    const owner = people.owner.browser;
    const byMember = await owner.get('/app/usage?by=member&tz=UTC');
    expect(byMember.status).toBe(200);
    expect(requestsOf(byMember.html, people.ann.email)).toBe('3');
    // Ben caused 3 though the key is the owner's now; the owner caused the one made after the handover.
    expect(requestsOf(byMember.html, people.ben.email)).toBe('3');
    expect(requestsOf(byMember.html, people.owner.email)).toBe('1');

    const byWorkspace = await owner.get('/app/usage?by=workspace&tz=UTC');
    expect(requestsOf(byWorkspace.html, defaultName)).toBe(String(2 + 3 + 1));
    expect(requestsOf(byWorkspace.html, 'Research')).toBe('1');

    const csv = (await owner.get('/app/usage.csv?by=member&tz=UTC')).html.trim().split('\n');
    // The first column is the row's value (the person's id), the member column second to last names them.
    const rowOf = (email: string) => csv.map((line) => line.split(',')).find((cells) => cells.at(-2) === email && cells[0]!.startsWith('psn_'));
    expect(rowOf(people.ben.email)?.[1]).toBe('3');
    expect(rowOf(people.owner.email)?.[1]).toBe('1');
  });

  it('filters by member and workspace by who caused each request, not by who holds the key now: the CSV and router usage', async () => {
    // The owner holds Ben's key now but caused only the one request made after the handover.
    const csv = (await people.owner.browser.get(`/app/usage.csv?by=member&tz=UTC&member=${people.owner.personId}`)).html.trim().split('\n');
    const rows = csv.slice(1).map((line) => line.split(',')).filter((cells) => cells[0]!.startsWith('psn_'));
    expect(rows.map((cells) => [cells.at(-2), cells[1]])).toEqual([[people.owner.email, '1']]);

    const today = new Date().toISOString().slice(0, 10);
    const usage = async (...args: string[]) => (await runCliJson(cliEnv, 'usage', '--account', orgId, '--from', today, '--to', today, ...args)).totals.requests as number;
    expect(await usage('--member', people.owner.email)).toBe(1);
    expect(await usage('--member', people.owner.email, '--by', 'key')).toBe(1);
    expect(await usage('--member', people.ann.email)).toBe(3);
    // The default workspace keeps Ann's 2 requests from before her key moved, and all 4 of Ben's key.
    expect(await usage('--workspace', defaultName)).toBe(6);
    expect(await usage('--workspace', 'Research', '--by', 'member')).toBe(1);
  });

  it('lists under a member or workspace filter the recent requests they caused, not those of the keys they have now', async () => {
    const recent = async (filter: string) => [...(await people.owner.browser.get(`/app/usage?tz=UTC&${filter}`)).html.matchAll(/<code class="request-id" id="request-id-\d+">([^<]+)<\/code>/g)].map((match) => match[1]);
    const research = (await router.server.runtime.store.listWorkspaces(orgId)).find((workspace) => workspace.name === 'Research')!;
    const defaultId = (await router.server.runtime.store.getDefaultWorkspace(orgId)).id;
    // Ann's key is in Research now, but only her third request ran there.
    expect(await recent(`workspace=${research.id}`)).toEqual([requestIds[2]]);
    expect((await recent(`workspace=${defaultId}`)).sort()).toEqual([...annsRequests, ...bensRequests, requestIds.at(-1)!].sort());
    // The owner holds Ben's key now and made one request with it; Ben's three stay his.
    expect(await recent(`member=${people.owner.personId}`)).toEqual([requestIds.at(-1)]);
    expect((await recent(`member=${people.ben.personId}`)).sort()).toEqual([...bensRequests].sort());
  });

  it('offers a removed member with attributed usage in the member filter, as a former member', async () => {
    const html = (await people.owner.browser.get('/app/usage?tz=UTC')).html;
    expect(html).toContain(`<option value="${people.ben.personId}">${people.ben.email} (former member)</option>`);
    const narrowed = await people.owner.browser.get(`/app/usage?tz=UTC&by=member&member=${people.ben.personId}`);
    expect(narrowed.status).toBe(200);
    expect(requestsOf(narrowed.html, people.ben.email)).toBe('3');
  });

  it('names the member on the receipt, to a member only on their own requests', async () => {
    const receipt = async (key: string, id: string) => ((await sdkClient(router, key).get('/generation', { query: { id } })) as { data: { member: string | null } }).data.member;
    // The owner holds Ben's key now, and reads that Ben made the requests before the handover.
    expect(await receipt(people.owner.key!, bensRequests[0]!)).toBe(people.ben.email);
    expect(await receipt(people.ben.key!, requestIds.at(-1)!)).toBe(people.owner.email);
    // Ann, a member, sees her own name, never another's.
    expect(await receipt(people.ann.key!, annsRequests[0]!)).toBe(people.ann.email);
    expect(await receipt(people.ann.key!, bensRequests[0]!)).toBeNull();
  });

  it('prints the same in router usage', async () => {
    const today = new Date().toISOString().slice(0, 10);
    const range = ['--from', today, '--to', today];
    const byMember = await runCliJson(cliEnv, 'usage', '--account', orgId, '--by', 'member', ...range);
    const requests = Object.fromEntries(byMember.rows.map((row: { member: string; requests: number }) => [row.member, row.requests]));
    expect(requests).toEqual({ [people.ann.email]: 3, [people.ben.email]: 3, [people.owner.email]: 1 });
    const byWorkspace = await runCliJson(cliEnv, 'usage', '--account', orgId, '--by', 'workspace', ...range);
    expect(Object.fromEntries(byWorkspace.rows.map((row: { workspace: string; requests: number }) => [row.workspace, row.requests]))).toEqual({ [defaultName]: 6, Research: 1 });
  });
});
