/**
 * Fusion's partial-failure policy over fakes that fail for real: a member down is dropped (and absent
 * from the writer's request and the sums), all members down is 502 all_upstreams_failed naming each
 * member's reason, a judge with invalid JSON is asked once more then failed over, no judge at all means
 * a writer without analysis (and the response says so), the writer fails over, and a client that
 * leaves during the panel aborts every member call at once.
 */
import OpenAI from 'openai';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ANALYSIS, PANEL_TEXT, USAGE, WRITER_TEXT, messagesText, startFusionRig, sumOf, type FusionRig } from './fusion-harness.js';
import { postV1, readSse, sdkClient, waitFor } from './router-harness.js';

const QUESTION = [{ role: 'user' as const, content: 'What is the capital of France?' }];
type RouterObject = { fusion: { analysis: string }; calls: Array<{ call: string; provider: string | null; status: string; used: boolean; error: string | null }> };
const routerOf = (body: unknown) => (body as { router: RouterObject }).router;

describe('router/fusion when upstreams fail', () => {
  let rig: FusionRig;
  let client: OpenAI;

  beforeAll(async () => {
    rig = await startFusionRig();
    client = sdkClient(rig.router, rig.account.key);
  });
  afterEach(() => rig.reset());
  afterAll(async () => rig?.close());

  it.each([false, true])('drops a member that answers 503 (stream: %s): not in the writer’s request, not in the sums', async (stream) => {
    rig.fakes.anthropic.failAlways({ kind: 'status', status: 503 });
    const response = await postV1(rig.router, rig.account.key, '/chat/completions', { model: 'router/fusion', messages: QUESTION, stream, stream_options: stream ? { include_usage: true } : undefined });
    expect(response.status).toBe(200);
    const body = stream ? JSON.parse((await readSse(response)).at(-2)!.data) : await response.json();
    expect(body.usage).toMatchObject(sumOf(USAGE.openai, USAGE.gemini, USAGE.judge1, USAGE.writer1));
    const anthropic = routerOf(body).calls.find((call) => call.call === 'panel:2');
    expect(anthropic).toMatchObject({ provider: 'anthropic', status: 'failed', used: false });
    const writerSaw = messagesText(rig.hosts.writer1.requests[0]?.body);
    expect(writerSaw).toContain(PANEL_TEXT.openai);
    expect(writerSaw).not.toContain('PANEL-ANTHROPIC');
  });

  it('drops a member still running at panelTimeoutMs, without counting it against its provider', async () => {
    const geminiOutcomes = async () => {
      const status = (await (await fetch(`${rig.router.url}/status`)).json()) as { providers: Array<{ provider: string; recentRequests: number }> };
      return status.providers.find((entry) => entry.provider === 'gemini')!.recentRequests;
    };
    const before = await geminiOutcomes();
    rig.fakes.gemini.failNext({ kind: 'slow-first-byte', delayMs: 1300 });
    const reply = await client.chat.completions.create({ model: 'router/fusion', messages: QUESTION });
    expect(reply.choices[0]?.message.content).toBe(WRITER_TEXT.writer1);
    expect(routerOf(reply).calls.find((call) => call.call === 'panel:3')).toMatchObject({ provider: null, status: 'timeout', error: 'panel_timeout', used: false });
    expect(messagesText(rig.hosts.writer1.requests[0]?.body)).not.toContain('PANEL-GEMINI');
    // The router gave up on it, not the provider: no outcome recorded for gemini.
    expect(await geminiOutcomes()).toBe(before);
  });

  it('answers 502 all_upstreams_failed with each member’s reason when every member is down, and calls no judge or writer', async () => {
    rig.fakes.openai.failAlways({ kind: 'status', status: 503 });
    rig.fakes.anthropic.failAlways({ kind: 'status', status: 500 });
    rig.fakes.gemini.failAlways({ kind: 'status', status: 503 });
    const error = await client.chat.completions.create({ model: 'router/fusion', messages: QUESTION }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OpenAI.APIError);
    const apiError = error as InstanceType<typeof OpenAI.APIError> & { error: { members: Array<Record<string, unknown>> } };
    expect(apiError.status).toBe(502);
    expect(apiError.code).toBe('all_upstreams_failed');
    expect(apiError.error.members.map((member) => [member.call, member.provider, member.status]).sort()).toEqual([
      ['panel:1', 'openai', 'failed'],
      ['panel:2', 'anthropic', 'failed'],
      ['panel:3', 'gemini', 'failed'],
    ]);
    expect(apiError.message).toContain('panel:2 anthropic');
    expect(rig.hosts.judge1.requests).toHaveLength(0);
    expect(rig.hosts.writer1.requests).toHaveLength(0);
  });

  it('answers the Responses stream’s 502 as a plain error response before any event', async () => {
    for (const fake of [rig.fakes.openai, rig.fakes.anthropic, rig.fakes.gemini]) fake.failAlways({ kind: 'status', status: 503 });
    const response = await postV1(rig.router, rig.account.key, '/responses', { model: 'router/fusion', input: 'hi', stream: true });
    expect(response.status).toBe(502);
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe('all_upstreams_failed');
  });

  it('asks a judge whose JSON is invalid once more, then fails over to the next judge, counting every reply', async () => {
    rig.hosts.judge1.setReply({ text: 'Answer 1 is best, I think.', usage: USAGE.judge1 });
    const reply = await client.chat.completions.create({ model: 'router/fusion', messages: QUESTION });
    expect(rig.hosts.judge1.requests).toHaveLength(2);
    expect(rig.hosts.judge2.requests).toHaveLength(1);
    const router = routerOf(reply);
    expect(router.fusion.analysis).toBe('used');
    expect(router.calls.filter((call) => call.status === 'invalid').map((call) => call.call)).toEqual(['judge:invalid:1', 'judge:invalid:2']);
    expect(router.calls.find((call) => call.call === 'judge')).toMatchObject({ provider: 'judge2', status: 'ok', used: true });
    expect(reply.usage).toMatchObject(sumOf(USAGE.openai, USAGE.anthropic, USAGE.gemini, USAGE.judge1, USAGE.judge1, USAGE.judge2, USAGE.writer1));
    expect(messagesText(rig.hosts.writer1.requests[0]?.body)).toContain(ANALYSIS.consensus[0]);
  });

  it('lets the writer proceed without analysis when no judge answers, and says so', async () => {
    rig.hosts.judge1.failAlways({ kind: 'status', status: 503 });
    rig.hosts.judge2.failAlways({ kind: 'status', status: 503 });
    const { data, response } = await client.chat.completions.create({ model: 'router/fusion', messages: QUESTION }).withResponse();
    expect(data.choices[0]?.message.content).toBe(WRITER_TEXT.writer1);
    expect(routerOf(data).fusion.analysis).toBe('unavailable');
    expect(routerOf(data).calls.find((call) => call.call === 'judge')).toMatchObject({ status: 'failed', used: false });
    const writerSaw = messagesText(rig.hosts.writer1.requests[0]?.body);
    expect(writerSaw).toContain('No analysis of the drafts is available');
    expect(writerSaw).toContain(PANEL_TEXT.gemini);
    // The judge's retry (judge1 → judge2) is in the summed retry count.
    expect(response.headers.get('x-router-retry-count')).toBe('1');
  });

  it.each([false, true])('fails the writer over to its next tier (stream: %s)', async (stream) => {
    rig.hosts.writer1.failAlways({ kind: 'status', status: 503 });
    const response = await postV1(rig.router, rig.account.key, '/chat/completions', { model: 'router/fusion', messages: QUESTION, stream });
    expect(response.status).toBe(200);
    expect(response.headers.get('x-router-upstream')).toBe('writer2');
    expect(response.headers.get('x-router-retry-count')).toBe('1');
    const text = stream
      ? (await readSse(response))
          .filter((event) => event.data.startsWith('{'))
          .map((event) => JSON.parse(event.data).choices?.[0]?.delta?.content ?? '')
          .join('')
      : ((await response.json()) as { choices: Array<{ message: { content: string } }> }).choices[0]?.message.content;
    expect(text).toBe(WRITER_TEXT.writer2);
  });

  it('aborts every member call at once when the client leaves during the panel, and calls no judge or writer', async () => {
    for (const fake of [rig.fakes.openai, rig.fakes.anthropic, rig.fakes.gemini]) fake.failAlways({ kind: 'slow-first-byte', delayMs: 2000 });
    const controller = new AbortController();
    const request = postV1Abortable(rig, controller.signal);
    await waitFor(() => rig.panelRequests().length === 3);
    const abortedAt = performance.now();
    controller.abort();
    await request.catch(() => undefined);
    await waitFor(() => rig.fakes.openai.abortedRequests + rig.fakes.anthropic.abortedRequests + rig.fakes.gemini.abortedRequests === 3, 1000);
    // The goal is 100 ms (about 10 ms measured on a quiet machine); the bound leaves room for a loaded one. Members that were not aborted would hold on for 2 s.
    expect(performance.now() - abortedAt).toBeLessThan(500);
    expect(rig.hosts.judge1.requests).toHaveLength(0);
    expect(rig.hosts.writer1.requests).toHaveLength(0);
    // Nothing counted beyond what ran: the aborted members are recorded with no tokens, the request as 499.
    const records = await rig.recordsOf(DISCONNECT_REQUEST_ID);
    expect(records.map((record) => [record.call, record.status, record.usage?.prompt ?? null]).sort()).toEqual([
      ['main', 499, 0],
      ['panel:1', 499, 0],
      ['panel:2', 499, 0],
      ['panel:3', 499, 0],
    ]);
  });
});

describe("router/fusion and the account's provider keys", () => {
  let rig: FusionRig;
  const ALL_HOSTS = { judge1: 'sk-test-judge1', judge2: 'sk-test-judge2', writer1: 'sk-test-writer1', writer2: 'sk-test-writer2' };
  const sentAnywhere = () => rig.panelRequests().length + Object.values(rig.hosts).reduce((sum, host) => sum + host.requests.length, 0);

  beforeAll(async () => {
    rig = await startFusionRig();
  });
  afterEach(() => rig.reset());
  afterAll(async () => rig?.close());

  it.each([
    ['/chat/completions', false],
    ['/chat/completions', true],
    ['/responses', true],
  ] as const)('without a key for any panel member: 403 no_provider_access naming them, nothing sent, nothing counted (%s, stream: %s)', async (path, stream) => {
    const { key } = await rig.router.createAccount('pro', { providerKeys: ALL_HOSTS });
    const body = path === '/responses' ? { model: 'router/fusion', input: 'What is the capital of France?', stream } : { model: 'router/fusion', messages: QUESTION, stream };
    const response = await postV1(rig.router, key, path, body);
    expect(response.status).toBe(403);
    const { error } = (await response.json()) as { error: Record<string, any> };
    expect(error).toMatchObject({ type: 'permission_error', code: 'no_provider_access', missingProviders: ['openai', 'anthropic', 'gemini'], accountUrl: 'http://localhost:8787/app/provider-keys' });
    expect(error.message).toBe(
      "router/fusion needs provider keys this account does not have: 1 panel answers are needed and this account's keys reach 0 of the 3 panel members. Add a key for openai or anthropic or gemini on your account page.",
    );
    expect(error.message).not.toMatch(/Retry/);
    expect(response.headers.get('x-quota-used')).toBe('0');
    expect(sentAnywhere()).toBe(0);
  });

  it('without a key for the writer: 403 naming the writer’s providers, before any panel call', async () => {
    const { key } = await rig.router.createAccount('pro', { providerKeys: { openai: 'sk-test-openai-1234', judge1: 'sk-test-judge1' } });
    const response = await postV1(rig.router, key, '/chat/completions', { model: 'router/fusion', messages: QUESTION });
    expect(response.status).toBe(403);
    const { error } = (await response.json()) as { error: Record<string, any> };
    expect(error.missingProviders).toEqual(['writer1', 'writer2']);
    expect(error.message).toContain('no key reaches the writer');
    expect(sentAnywhere()).toBe(0);
  });

  it("a member's own key rejected by its provider drops that member without touching the provider's health", async () => {
    const recentOf = async (provider: string) => {
      const status = (await (await fetch(`${rig.router.url}/status`)).json()) as { providers: Array<{ provider: string; recentRequests: number; state: string }> };
      return status.providers.find((entry) => entry.provider === provider)!;
    };
    const before = await recentOf('anthropic');
    rig.fakes.anthropic.failAlways({ kind: 'status', status: 401 });
    const response = await postV1(rig.router, rig.account.key, '/chat/completions', { model: 'router/fusion', messages: QUESTION });
    expect(response.status).toBe(200);
    const anthropic = routerOf(await response.json()).calls.find((call) => call.call === 'panel:2');
    expect(anthropic).toMatchObject({ provider: 'anthropic', status: 'failed', error: 'invalid_api_key', used: false });
    expect(await recentOf('anthropic')).toEqual(before);
  });
});

const DISCONNECT_REQUEST_ID = 'fusion-disconnect-during-panel';

function postV1Abortable(rig: FusionRig, signal: AbortSignal): Promise<Response> {
  return fetch(`${rig.router.baseURL}/chat/completions`, {
    method: 'POST',
    signal,
    headers: { authorization: `Bearer ${rig.account.key}`, 'content-type': 'application/json', 'user-agent': 'router-tests/1.0', 'x-request-id': DISCONNECT_REQUEST_ID },
    body: JSON.stringify({ model: 'router/fusion', messages: QUESTION, stream: true }),
  });
}
