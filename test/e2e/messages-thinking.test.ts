/**
 * `thinking` on the Messages API served by OpenAI-format and Gemini upstreams, through the official
 * @anthropic-ai/sdk: the reasoning control each upstream receives, the thinking blocks of the answer in
 * Anthropic's grammar (checked by the SDK's own stream accumulator), the router's signature carrying a
 * Gemini thought signature back to Gemini on the next turn, foreign signatures left out, the router's
 * blocks cleaned for a native Anthropic upstream, and fusion forwarding thinking and cache_control to
 * the members that take them.
 */
import Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { loadRecorded } from '../fakes/recorded-answer.js';
import { PROVIDER_KEYS, pointProvidersAt, startFakes, startTestRouter, type Fakes, type TestRouter } from './router-harness.js';

const GEMINI_SIGNED = loadRecorded('gemini/thought-signature-tool-call');
const GEMINI_PARTS = (GEMINI_SIGNED.json as any).candidates[0].content.parts;
const GEMINI_THOUGHT: string = GEMINI_PARTS[0].text;
const GEMINI_SIGNATURE: string = GEMINI_PARTS[1].thoughtSignature;
const ANTHROPIC_THINKING = loadRecorded('anthropic/thinking-tool-use');
const ANTHROPIC_SIGNATURE: string = (ANTHROPIC_THINKING.json as any).content[0].signature;
const WEATHER_TOOL = { name: 'get_weather', description: 'Weather at a place', input_schema: { type: 'object' as const, properties: { location: { type: 'string' } } } };
const ASK = { role: 'user' as const, content: 'What is the weather in Paris?' };
const THOUGHTS = 'Thinking it over: the user wants a greeting.';
/** The shipped catalog's budgets for Gemini 2.5 Pro, whose ends are its thinkingBudget range. */
const GEMINI_BUDGETS = { minimal: 128, low: 1024, medium: 8192, high: 24576, xhigh: 32768 };

let fakes: Fakes;
let router: TestRouter;
let client: Anthropic;

function route(id: string, tiers: Array<Array<{ provider: string; model: string }>>) {
  return { id, family: 'frontier', description: id, quotaWeight: 1, retryBudget: 3, tiers };
}

beforeAll(async () => {
  fakes = await startFakes();
  router = await startTestRouter({
    patch: {
      providers: pointProvidersAt(fakes.urls),
      catalog: (doc: any) => {
        for (const model of doc.models) {
          if (model.model === 'gemini-2.5-pro') model.reasoning = GEMINI_BUDGETS;
          if (model.model === 'gpt-5') model.reasoning = {};
          if (model.model === 'claude-sonnet-4-5') model.reasoning = { minimal: 1024, low: 2048, medium: 8192, high: 16384, xhigh: 32000 };
        }
      },
      routes: (doc: any) => {
        doc.routes.push(
          route('test/gemini', [[{ provider: 'gemini', model: 'gemini-2.5-pro' }]]),
          route('test/gpt', [[{ provider: 'openai', model: 'gpt-5' }]]),
          route('test/claude', [[{ provider: 'anthropic', model: 'claude-sonnet-4-5' }]]),
        );
        const fusion = doc.routes.find((each: { id: string }) => each.id === 'router/fusion');
        fusion.tiers = [[{ provider: 'gemini', model: 'gemini-2.5-pro' }]];
        fusion.fusion = {
          mode: 'analyze-then-write',
          minAnswers: 1,
          panelTimeoutMs: 5000,
          maxPanelOutputTokens: 256,
          keepAliveMs: 10_000,
          maxToolRounds: 2,
          panel: [{ tiers: [[{ provider: 'anthropic', model: 'claude-sonnet-4-5' }]] }, { tiers: [[{ provider: 'openai', model: 'gpt-4.1' }]] }],
          judge: { tiers: [[{ provider: 'openai', model: 'gpt-4.1' }]] },
        };
      },
      plans: (doc: any) => {
        for (const plan of doc.plans) plan.routeProfiles = [...plan.routeProfiles, 'test/gemini', 'test/gpt', 'test/claude'];
      },
    },
  });
  const { key } = await router.createAccount('pro', { providerKeys: PROVIDER_KEYS });
  client = new Anthropic({ apiKey: key, baseURL: router.url, maxRetries: 0 });
});
afterAll(async () => {
  await router?.close();
  await fakes?.close();
});
beforeEach(() => fakes.reset());

/** The SDK refuses a non-stream call whose max_tokens might take over 10 minutes unless given a timeout. */
const LONG_ANSWER = { timeout: 30_000 };
const lastBody = (fake: { requests: Array<{ body: unknown }> }) => fake.requests.at(-1)!.body as Record<string, any>;

/** The SDK's stream: the event types in order (deltas by their delta type) and its accumulated message. */
async function streamed(params: Anthropic.MessageCreateParamsNonStreaming) {
  const stream = client.messages.stream(params);
  const events: string[] = [];
  for await (const event of stream) events.push(event.type === 'content_block_delta' ? event.delta.type : event.type === 'content_block_start' ? `start:${event.content_block.type}` : event.type);
  return { events: events.filter((name, i) => name !== events[i - 1]), message: await stream.finalMessage() };
}

describe('thinking on a Gemini upstream', () => {
  const ask = { model: 'test/gemini', max_tokens: 4096, thinking: { type: 'enabled' as const, budget_tokens: 2048 }, tools: [WEATHER_TOOL], messages: [ASK] };

  it('sends the budget as thinkingConfig and answers its thoughts as a signed thinking block first, then the call', async () => {
    fakes.gemini.setReply({ recorded: GEMINI_SIGNED });
    const message = await client.messages.create(ask);
    expect(lastBody(fakes.gemini).generationConfig.thinkingConfig).toEqual({ thinkingBudget: 2048, includeThoughts: true });
    expect(message.content.map((block) => block.type)).toEqual(['thinking', 'tool_use']);
    const thinking = message.content[0] as Anthropic.ThinkingBlock;
    expect(thinking.thinking).toBe(GEMINI_THOUGHT);
    expect(thinking.signature).toMatch(/^router-rd1\./);
    expect(message.stop_reason).toBe('tool_use');
  });

  it('streams the same blocks in Anthropic’s grammar: thinking deltas, then the signature, then the call', async () => {
    fakes.gemini.setReply({ recorded: GEMINI_SIGNED });
    const { events, message } = await streamed(ask);
    expect(events).toEqual(['message_start', 'start:thinking', 'thinking_delta', 'signature_delta', 'content_block_stop', 'start:tool_use', 'input_json_delta', 'content_block_stop', 'message_delta', 'message_stop']);
    expect(message.content.map((block) => block.type)).toEqual(['thinking', 'tool_use']);
    expect((message.content[0] as Anthropic.ThinkingBlock).thinking).toBe(GEMINI_THOUGHT);
    expect((message.content[0] as Anthropic.ThinkingBlock).signature).toMatch(/^router-rd1\./);
    expect((message.content[1] as Anthropic.ToolUseBlock).input).toEqual({ location: 'Paris, France' });
  });

  it.each([false, true])('sends the original thought signature back to Gemini when the client returns the thinking block (stream: %s)', async (stream) => {
    fakes.gemini.setReply({ recorded: GEMINI_SIGNED });
    const first = stream ? (await streamed(ask)).message : await client.messages.create(ask);
    const call = first.content.find((block): block is Anthropic.ToolUseBlock => block.type === 'tool_use')!;
    fakes.gemini.reset();
    fakes.gemini.setReply({ text: 'It is sunny in Paris.' });
    const second = await client.messages.create({
      ...ask,
      messages: [ASK, { role: 'assistant', content: first.content }, { role: 'user', content: [{ type: 'tool_result', tool_use_id: call.id, content: '{"sky":"sunny"}' }] }],
    });
    expect(second.content.at(-1)).toEqual({ type: 'text', text: 'It is sunny in Paris.' });
    const model = lastBody(fakes.gemini).contents.find((content: { role: string }) => content.role === 'model');
    expect(model.parts).toEqual([{ functionCall: { name: 'get_weather', args: { location: 'Paris, France' } }, thoughtSignature: GEMINI_SIGNATURE }]);
  });

  it('drops a signature the router did not issue (Anthropic’s) and skips the check Gemini documents for foreign history', async () => {
    fakes.gemini.setReply({ text: 'Sunny.' });
    await client.messages.create({
      ...ask,
      messages: [
        ASK,
        { role: 'assistant', content: [{ type: 'thinking', thinking: 'Use the tool.', signature: ANTHROPIC_SIGNATURE }, { type: 'redacted_thinking', data: 'EmwKAhgBEgy3va3pzix' }, { type: 'tool_use', id: 'toolu_01A', name: 'get_weather', input: { location: 'Paris' } }] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_01A', content: 'sunny' }] },
      ],
    });
    const sent = JSON.stringify(lastBody(fakes.gemini));
    expect(sent).not.toContain(ANTHROPIC_SIGNATURE);
    expect(sent).not.toContain('EmwKAhgBEgy3va3pzix');
    expect(sent).toContain('skip_thought_signature_validator');
  });

  it('maps adaptive thinking to the effort’s budget, and a budget past the model’s range to its end; disabled sends nothing', async () => {
    fakes.gemini.setReply({ text: 'Hello.', thoughts: THOUGHTS });
    const adaptive = await client.messages.create({ model: 'test/gemini', max_tokens: 1024, thinking: { type: 'adaptive' } as never, messages: [ASK] });
    expect(lastBody(fakes.gemini).generationConfig.thinkingConfig).toEqual({ thinkingBudget: GEMINI_BUDGETS.medium, includeThoughts: true });
    expect(adaptive.content).toEqual([{ type: 'thinking', thinking: THOUGHTS, signature: expect.stringMatching(/^router-rd1\./) }, { type: 'text', text: 'Hello.' }]);
    await client.messages.create({ model: 'test/gemini', max_tokens: 64000, thinking: { type: 'enabled', budget_tokens: 63000 }, messages: [ASK] }, LONG_ANSWER);
    expect(lastBody(fakes.gemini).generationConfig.thinkingConfig).toEqual({ thinkingBudget: GEMINI_BUDGETS.xhigh, includeThoughts: true });
    const disabled = await client.messages.create({ model: 'test/gemini', max_tokens: 1024, thinking: { type: 'disabled' }, messages: [ASK] });
    expect(lastBody(fakes.gemini).generationConfig.thinkingConfig).toBeUndefined();
    expect(disabled.content).toEqual([{ type: 'text', text: 'Hello.' }]);
  });
});

describe('thinking on an OpenAI-format upstream', () => {
  it('sends the budget as the nearest reasoning_effort and answers reasoning_content as a thinking block first (create and stream)', async () => {
    fakes.openai.setReply({ text: 'Hello there.', thoughts: THOUGHTS });
    const params = { model: 'test/gpt', max_tokens: 32000, thinking: { type: 'enabled' as const, budget_tokens: 31999 }, messages: [ASK] };
    const message = await client.messages.create(params, LONG_ANSWER);
    expect(lastBody(fakes.openai).reasoning_effort).toBe('high');
    expect(lastBody(fakes.openai)).not.toHaveProperty('reasoning');
    const expected = [{ type: 'thinking', thinking: THOUGHTS, signature: expect.stringMatching(/^router-rd1\./) }, { type: 'text', text: 'Hello there.' }];
    expect(message.content).toEqual(expected);
    const { events, message: accumulated } = await streamed(params);
    expect(events).toEqual(['message_start', 'start:thinking', 'thinking_delta', 'signature_delta', 'content_block_stop', 'start:text', 'text_delta', 'content_block_stop', 'message_delta', 'message_stop']);
    expect(accumulated.content).toEqual(expected);
  });

  it('maps adaptive thinking to output_config.effort (medium by default), and sends no effort when thinking is off', async () => {
    fakes.openai.setReply({ text: 'Hello there.', thoughts: THOUGHTS });
    await client.messages.create({ model: 'test/gpt', max_tokens: 1024, thinking: { type: 'adaptive' }, output_config: { effort: 'low' }, messages: [ASK] } as never);
    expect(lastBody(fakes.openai).reasoning_effort).toBe('low');
    await client.messages.create({ model: 'test/gpt', max_tokens: 1024, thinking: { type: 'adaptive' }, messages: [ASK] } as never);
    expect(lastBody(fakes.openai).reasoning_effort).toBe('medium');
    const off = await client.messages.create({ model: 'test/gpt', max_tokens: 1024, thinking: { type: 'disabled' }, messages: [ASK] });
    expect(lastBody(fakes.openai)).not.toHaveProperty('reasoning_effort');
    expect(off.content).toEqual([{ type: 'text', text: 'Hello there.' }]);
  });

  it('leaves foreign and router signatures out of what the host gets, keeping the thinking text', async () => {
    fakes.openai.setReply({ text: 'Again.', thoughts: THOUGHTS });
    const first = await client.messages.create({ model: 'test/gpt', max_tokens: 1024, thinking: { type: 'enabled', budget_tokens: 2048 }, messages: [ASK] });
    await client.messages.create({
      model: 'test/gpt',
      max_tokens: 1024,
      messages: [ASK, { role: 'assistant', content: [{ type: 'thinking', thinking: 'Earlier.', signature: ANTHROPIC_SIGNATURE }, ...first.content] }, { role: 'user', content: 'And tomorrow?' }],
    });
    const sent = lastBody(fakes.openai);
    expect(JSON.stringify(sent)).not.toContain(ANTHROPIC_SIGNATURE);
    expect(JSON.stringify(sent)).not.toContain('router-rd1.');
    expect(sent.messages[1]).toMatchObject({ role: 'assistant', content: 'Again.', reasoning_content: `Earlier.${THOUGHTS}` });
  });
});

describe('a conversation moving to a native Anthropic upstream', () => {
  it('turns the router’s thinking blocks into nothing, and thinking off where the tool turn would then lack its block', async () => {
    fakes.gemini.setReply({ recorded: GEMINI_SIGNED });
    const params = { max_tokens: 4096, thinking: { type: 'enabled' as const, budget_tokens: 2048 }, tools: [WEATHER_TOOL] };
    const first = await client.messages.create({ ...params, model: 'test/gemini', messages: [ASK] });
    const call = first.content.find((block): block is Anthropic.ToolUseBlock => block.type === 'tool_use')!;
    fakes.anthropic.setReply({ text: 'Sunny in Paris.' });
    const second = await client.messages.create({
      ...params,
      model: 'test/claude',
      messages: [ASK, { role: 'assistant', content: first.content }, { role: 'user', content: [{ type: 'tool_result', tool_use_id: call.id, content: 'sunny' }] }],
    });
    expect(second.content).toEqual([{ type: 'text', text: 'Sunny in Paris.' }]);
    const sent = lastBody(fakes.anthropic);
    expect(JSON.stringify(sent)).not.toContain('router-rd1.');
    expect(sent.messages[1].content).toEqual([{ type: 'tool_use', id: call.id, name: 'get_weather', input: { location: 'Paris, France' } }]);
    expect(sent).not.toHaveProperty('thinking');
  });
});

describe('fusion on the Messages API', () => {
  it('forwards thinking to the members whose model reasons and cache_control to the Anthropic member', async () => {
    fakes.anthropic.setReply({ text: 'Paris.' });
    fakes.openai.setReply({ text: 'Paris, France.' });
    fakes.gemini.setReply({ text: 'The capital of France is Paris.', thoughts: THOUGHTS });
    const message = await client.messages.create({
      model: 'router/fusion',
      max_tokens: 4096,
      thinking: { type: 'enabled', budget_tokens: 2048 },
      system: [{ type: 'text', text: 'You answer geography questions.', cache_control: { type: 'ephemeral' } }],
      messages: [{ role: 'user', content: [{ type: 'text', text: 'What is the capital of France?', cache_control: { type: 'ephemeral', ttl: '1h' } }] }],
    });
    expect(message.content).toEqual([{ type: 'thinking', thinking: THOUGHTS, signature: expect.stringMatching(/^router-rd1\./) }, { type: 'text', text: 'The capital of France is Paris.' }]);

    const claude = lastBody(fakes.anthropic);
    expect(claude.thinking).toEqual({ type: 'enabled', budget_tokens: 2048 });
    expect(claude.system).toEqual([{ type: 'text', text: 'You answer geography questions.', cache_control: { type: 'ephemeral' } }]);
    expect(claude.messages[0].content).toEqual([{ type: 'text', text: 'What is the capital of France?', cache_control: { type: 'ephemeral', ttl: '1h' } }]);

    // gpt-4.1 does not reason (its catalog entry has no `reasoning`) and OpenAI takes no breakpoints: neither reaches it.
    for (const request of fakes.openai.requests) {
      expect(request.body).not.toHaveProperty('reasoning_effort');
      expect(JSON.stringify(request.body)).not.toContain('cache_control');
    }
    // The writer (Gemini) thinks with the same budget.
    expect(lastBody(fakes.gemini).generationConfig.thinkingConfig).toEqual({ thinkingBudget: 2048, includeThoughts: true });
  });
});
