/**
 * router/fusion and the router:fusion server tool on the Messages API, through the official Anthropic
 * SDK and raw SSE: the same pipeline as chat (the writer's request holds the panel's answers), the answer
 * in Messages shape with usage summed over every call and the `router` object, streams in Anthropic's
 * event grammar behind keep-alive comments, and a failure after the stream opened as Anthropic's error event.
 */
import Anthropic from '@anthropic-ai/sdk';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { PANEL_TEXT, USAGE, WRITER_TEXT, messagesText, startFusionRig, sumOf, type FusionRig } from './fusion-harness.js';
import { readSse } from './router-harness.js';

const QUESTION = [{ role: 'user' as const, content: 'What is the capital of France?' }];
const ALL_CALLS = [USAGE.openai, USAGE.anthropic, USAGE.gemini, USAGE.judge1, USAGE.writer1];
const FINAL_TEXT = 'FINAL: Paris, as researched.';
const FUSION_TOOL = { type: 'router:fusion' } as never;
type RouterObject = { fusion: { analysis: string; tool_runs: number }; calls: Array<{ call: string; provider: string | null }> };

/** Anthropic's usage fields for a sum of chat usages (no cached tokens in these fakes). */
function messagesSum(...usages: Array<{ inputTokens: number; outputTokens: number }>) {
  const { prompt_tokens: input, completion_tokens: output } = sumOf(...usages);
  return { input_tokens: input, output_tokens: output };
}

describe('fusion on the Messages API', () => {
  let rig: FusionRig;
  let client: Anthropic;

  const post = (body: object) =>
    fetch(`${rig.router.baseURL}/messages`, {
      method: 'POST',
      headers: { 'x-api-key': rig.account.key, 'anthropic-version': '2023-06-01', 'content-type': 'application/json', 'user-agent': 'router-tests/1.0' },
      body: JSON.stringify(body),
    });

  beforeAll(async () => {
    rig = await startFusionRig({ keepAliveMs: 100 });
    client = new Anthropic({ apiKey: rig.account.key, baseURL: rig.router.url, maxRetries: 0 });
  });
  afterEach(() => rig.reset());
  afterAll(async () => rig?.close());

  it('answers router/fusion as one Message: the writer’s text, usage summed over every call, and the router object', async () => {
    const { data, response } = await client.messages.create({ model: 'router/fusion', max_tokens: 1024, messages: QUESTION }).withResponse();
    expect(data).toMatchObject({ type: 'message', role: 'assistant', model: 'router/fusion', stop_reason: 'end_turn' });
    expect(data.content).toEqual([{ type: 'text', text: WRITER_TEXT.writer1 }]);
    expect(data.usage).toMatchObject(messagesSum(...ALL_CALLS));
    expect(response.headers.get('x-router-upstream')).toBe('writer1');
    const writerSaw = messagesText(rig.hosts.writer1.requests[0]?.body);
    for (const text of Object.values(PANEL_TEXT)) expect(writerSaw).toContain(text);
    const router = (data as unknown as { router: RouterObject }).router;
    expect(router.fusion.analysis).toBe('used');
    expect(router.calls.map((call) => call.call).sort()).toEqual(['judge', 'panel:1', 'panel:2', 'panel:3', 'writer']);
  });

  it('streams router/fusion in Anthropic’s grammar: keep-alives while the panel works, then the writer’s text, the summed usage on message_delta', async () => {
    for (const member of ['openai', 'anthropic', 'gemini'] as const) rig.fakes[member].setReply({ text: PANEL_TEXT[member], usage: USAGE[member], latencyMs: 350 });
    const response = await post({ model: 'router/fusion', max_tokens: 1024, stream: true, messages: QUESTION });
    expect(response.status).toBe(200);
    const raw = await response.clone().text();
    expect(raw.startsWith(':')).toBe(true);
    const events = (await readSse(response)).filter((event) => event.event !== undefined);
    const names = events.map((event) => event.event).filter((name, i, all) => name !== all[i - 1]);
    expect(names).toEqual(['message_start', 'ping', 'content_block_start', 'content_block_delta', 'content_block_stop', 'message_delta', 'message_stop']);
    const delta = JSON.parse(events.find((event) => event.event === 'message_delta')!.data);
    expect(delta.usage).toMatchObject({ output_tokens: sumOf(...ALL_CALLS).completion_tokens });
    expect(delta.router.calls.length).toBe(5);

    rig.reset();
    const message = await client.messages.stream({ model: 'router/fusion', max_tokens: 1024, messages: QUESTION }).finalMessage();
    expect(message.content).toEqual([{ type: 'text', text: WRITER_TEXT.writer1 }]);
    expect(message.usage).toMatchObject(messagesSum(...ALL_CALLS));
  });

  it('records each upstream call as its own ledger record, the writer’s streamed tokens as the main one', async () => {
    const response = await post({ model: 'router/fusion', max_tokens: 1024, stream: true, messages: QUESTION });
    await response.text();
    const records = await rig.recordsOf(response.headers.get('x-request-id'));
    const byCall = Object.fromEntries(records.map((record) => [record.call, record]));
    expect(Object.keys(byCall).sort()).toEqual(['judge', 'main', 'panel:1', 'panel:2', 'panel:3']);
    expect(byCall.main).toMatchObject({ providerId: 'writer1', usage: { prompt: USAGE.writer1.inputTokens, completion: USAGE.writer1.outputTokens } });
  });

  it('ends a stream the keep-alives opened with Anthropic’s error event when every writer fails', async () => {
    for (const fake of [rig.fakes.openai, rig.fakes.anthropic, rig.fakes.gemini]) fake.setReply({ text: 'slow member', latencyMs: 250 });
    rig.hosts.writer1.failAlways({ kind: 'status', status: 503 });
    rig.hosts.writer2.failAlways({ kind: 'status', status: 503 });
    const response = await post({ model: 'router/fusion', max_tokens: 1024, stream: true, messages: QUESTION });
    expect(response.status).toBe(200);
    const raw = await response.text();
    expect(raw.startsWith(':')).toBe(true);
    const events = raw.split('\n\n').filter((block) => block.startsWith('event: '));
    expect(events).toHaveLength(1);
    expect(events[0]).toMatch(/^event: error\ndata: /);
    events[0] = events[0]!.slice(events[0]!.indexOf('data: ') + 6);
    expect(JSON.parse(events[0]!)).toMatchObject({ type: 'error', error: { type: 'api_error', code: 'all_upstreams_failed' } });
    await expect(client.messages.stream({ model: 'router/fusion', max_tokens: 1024, messages: QUESTION }).finalMessage()).rejects.toThrow(/writer|upstream/i);
  });

  it('refuses router/fusion in Anthropic’s shape before any panel call when every provider fails', async () => {
    for (const fake of [rig.fakes.openai, rig.fakes.anthropic, rig.fakes.gemini]) fake.failAlways({ kind: 'status', status: 503 });
    const error = await client.messages.create({ model: 'router/fusion', max_tokens: 1024, messages: QUESTION }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(Anthropic.APIError);
    expect((error as InstanceType<typeof Anthropic.APIError>).status).toBe(502);
    expect(rig.hosts.writer1.requests).toHaveLength(0);
  });

  describe('the router:fusion server tool', () => {
    const modelCallsFusion = () =>
      rig.hosts.modelhost.setReply({ text: FINAL_TEXT, toolCalls: [{ name: 'router_fusion', arguments: { question: 'Capital of France?' } }], toolCallsWhenOffered: true, usage: USAGE.modelhost });
    const TOOL_CALLS = [USAGE.modelhost, USAGE.openai, USAGE.anthropic, USAGE.gemini, USAGE.judge1, USAGE.writer1, USAGE.modelhost];

    it('runs fusion when the model calls it and answers the model’s final turn as a Message', async () => {
      modelCallsFusion();
      const message = await client.messages.create({ model: 'router/frontier', max_tokens: 1024, messages: QUESTION, tools: [FUSION_TOOL] });
      expect(message.content).toEqual([{ type: 'text', text: FINAL_TEXT }]);
      expect(message.stop_reason).toBe('end_turn');
      expect(message.usage).toMatchObject(messagesSum(...TOOL_CALLS));
      expect((message as unknown as { router: RouterObject }).router.fusion.tool_runs).toBe(1);
      const [first, second] = rig.hosts.modelhost.requests.map((request) => request.body as { tools?: Array<{ function?: { name: string } }>; messages: unknown[] });
      expect(first?.tools?.map((tool) => tool.function?.name)).toEqual(['router_fusion']);
      expect(second?.messages.at(-1)).toMatchObject({ role: 'tool', content: WRITER_TEXT.writer1 });
    });

    it('streams the final turn, and returns a call of the client’s own tool as tool_use', async () => {
      modelCallsFusion();
      const streamed = await client.messages.stream({ model: 'router/frontier', max_tokens: 1024, messages: QUESTION, tools: [FUSION_TOOL] }).finalMessage();
      expect(streamed.content).toEqual([{ type: 'text', text: FINAL_TEXT }]);
      expect(streamed.usage).toMatchObject(messagesSum(...TOOL_CALLS));

      rig.reset();
      rig.hosts.modelhost.setReply({ toolCalls: [{ name: 'get_weather', arguments: { city: 'Paris' } }], toolCallsWhenOffered: true, usage: USAGE.modelhost });
      const weather = { name: 'get_weather', input_schema: { type: 'object' as const, properties: { city: { type: 'string' } } } };
      const message = await client.messages.create({ model: 'router/frontier', max_tokens: 1024, messages: QUESTION, tools: [FUSION_TOOL, weather] });
      expect(message.stop_reason).toBe('tool_use');
      expect(message.content).toMatchObject([{ type: 'tool_use', name: 'get_weather', input: { city: 'Paris' } }]);
      expect(rig.panelRequests()).toHaveLength(0);
    });
  });
});
