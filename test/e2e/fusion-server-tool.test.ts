/**
 * The router:fusion server tool on router/frontier, Chat Completions and Responses, JSON and streams:
 * the model is offered `router_fusion`, the router runs the fusion pipeline when the model calls it,
 * feeds the answer back and continues server-side, within the round limit; the client's own tools are
 * returned as usual; the panel never sees the tool. (Free plans get 403: requests-and-public.test.ts.)
 */
import OpenAI from 'openai';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { USAGE, WRITER_TEXT, messagesText, startFusionRig, sumOf, type FusionRig } from './fusion-harness.js';
import { sdkClient } from './router-harness.js';

const FUSION_TOOL = { type: 'router:fusion' } as never;
const WEATHER_TOOL = { type: 'function' as const, function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } } };
const QUESTION = [{ role: 'user' as const, content: 'Think hard: what is the capital of France?' }];
const FINAL_TEXT = 'FINAL: Paris, as researched.';
type Body = { tools?: Array<{ type: string; function?: { name: string } }>; messages: Array<{ role: string; content?: unknown }> };

describe('the router:fusion server tool', () => {
  let rig: FusionRig;
  let client: OpenAI;

  /** The model host calls router_fusion while it is offered and the last message is not a tool result, then answers. */
  const modelCallsFusion = () =>
    rig.hosts.modelhost.setReply({ text: FINAL_TEXT, toolCalls: [{ name: 'router_fusion', arguments: { question: 'Capital of France?' } }], toolCallsWhenOffered: true, usage: USAGE.modelhost });

  beforeAll(async () => {
    rig = await startFusionRig();
    client = sdkClient(rig.router, rig.account.key);
  });
  afterEach(() => rig.reset());
  afterAll(async () => rig?.close());

  it('runs fusion when the model calls it, feeds the answer back, and returns the model’s final answer', async () => {
    modelCallsFusion();
    const reply = await client.chat.completions.create({ model: 'router/frontier', messages: QUESTION, tools: [FUSION_TOOL] });
    expect(reply.model).toBe('router/frontier');
    expect(reply.choices[0]?.message.content).toBe(FINAL_TEXT);
    expect(reply.choices[0]?.message.tool_calls ?? []).toEqual([]);

    const [first, second] = rig.hosts.modelhost.requests.map((request) => request.body as Body);
    expect(first?.tools?.map((tool) => tool.function?.name)).toEqual(['router_fusion']);
    expect(JSON.stringify(first)).not.toContain('router:fusion');
    expect(second?.messages.at(-1)).toMatchObject({ role: 'tool', content: WRITER_TEXT.writer1 });
    expect(messagesText(rig.panelRequests()[0])).toContain('Capital of France?');
    for (const body of rig.panelRequests()) expect((body as Body).tools).toBeUndefined();

    const router = (reply as unknown as { router: { fusion: { tool_runs: number }; calls: Array<{ call: string }> } }).router;
    expect(router.fusion.tool_runs).toBe(1);
    expect(router.calls.map((call) => call.call).sort()).toEqual(['model:1', 'model:2', 'tool:1:judge', 'tool:1:panel:1', 'tool:1:panel:2', 'tool:1:panel:3', 'tool:1:writer']);
    expect(reply.usage).toMatchObject(sumOf(USAGE.modelhost, USAGE.openai, USAGE.anthropic, USAGE.gemini, USAGE.judge1, USAGE.writer1, USAGE.modelhost));
  });

  it("tells the model, and sends nothing to the panel, when the account's keys cannot run it", async () => {
    modelCallsFusion();
    const { key } = await rig.router.createAccount('pro', { providerKeys: { modelhost: 'sk-test-modelhost', writer1: 'sk-test-writer1' } });
    const reply = await sdkClient(rig.router, key).chat.completions.create({ model: 'router/frontier', messages: QUESTION, tools: [FUSION_TOOL] });
    expect(reply.choices[0]?.message.content).toBe(FINAL_TEXT);
    const toolResult = (rig.hosts.modelhost.requests[1]?.body as Body).messages.at(-1);
    expect(toolResult).toMatchObject({ role: 'tool' });
    expect(toolResult?.content).toMatch(/^Not run: router\/fusion needs provider keys this account does not have: .*Add a key for openai or anthropic or gemini/);
    expect(rig.panelRequests()).toHaveLength(0);
  });

  it('stops offering the tool after the round limit', async () => {
    rig.hosts.modelhost.setReply({ toolCalls: [{ name: 'router_fusion', arguments: { question: 'Again?' } }], usage: USAGE.modelhost });
    await client.chat.completions.create({ model: 'router/frontier', messages: QUESTION, tools: [FUSION_TOOL] });
    expect(rig.hosts.writer1.requests).toHaveLength(2);
    const turns = rig.hosts.modelhost.requests.map((request) => request.body as Body);
    expect(turns).toHaveLength(3);
    expect(turns[2]?.tools).toBeUndefined();
  });

  it('returns a call of the client’s own tool to the client, running no fusion', async () => {
    rig.hosts.modelhost.setReply({ toolCalls: [{ name: 'get_weather', arguments: { city: 'Paris' } }], toolCallsWhenOffered: true, usage: USAGE.modelhost });
    const reply = await client.chat.completions.create({ model: 'router/frontier', messages: QUESTION, tools: [FUSION_TOOL, WEATHER_TOOL] });
    expect(reply.choices[0]?.message.tool_calls?.map((call) => (call as { function: { name: string } }).function.name)).toEqual(['get_weather']);
    expect(rig.panelRequests()).toHaveLength(0);
    const offered = (rig.hosts.modelhost.requests[0]?.body as Body).tools?.map((tool) => tool.function?.name);
    expect(offered).toEqual(['router_fusion', 'get_weather']);
  });

  it('streams the final answer to a streaming chat client', async () => {
    modelCallsFusion();
    let text = '';
    let last: any;
    const stream = await client.chat.completions.create({ model: 'router/frontier', messages: QUESTION, tools: [FUSION_TOOL], stream: true, stream_options: { include_usage: true } });
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta.content ?? '';
      last = chunk;
    }
    expect(text).toBe(FINAL_TEXT);
    expect(last.router.fusion.tool_runs).toBe(1);
    expect(last.usage.prompt_tokens).toBe(sumOf(USAGE.modelhost, USAGE.openai, USAGE.anthropic, USAGE.gemini, USAGE.judge1, USAGE.writer1, USAGE.modelhost).prompt_tokens);
  });

  it('serves the tool on the Responses API, JSON and stream', async () => {
    modelCallsFusion();
    const response = await client.responses.create({ model: 'router/frontier', input: 'Think hard: what is the capital of France?', tools: [FUSION_TOOL] });
    expect(response.output_text).toBe(FINAL_TEXT);
    expect((response as unknown as { router: { fusion: { tool_runs: number } } }).router.fusion.tool_runs).toBe(1);

    rig.reset();
    modelCallsFusion();
    const stream = await client.responses.create({ model: 'router/frontier', input: 'Think hard: what is the capital of France?', tools: [FUSION_TOOL], stream: true });
    let text = '';
    let completed: any;
    for await (const event of stream) {
      if (event.type === 'response.output_text.delta') text += event.delta;
      if (event.type === 'response.completed') completed = event.response;
    }
    expect(text).toBe(FINAL_TEXT);
    expect(completed.router.fusion.tool_runs).toBe(1);
    expect(rig.hosts.writer1.requests).toHaveLength(1);
  });
});
