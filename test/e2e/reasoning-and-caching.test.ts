/**
 * Reasoning and prompt caching through the router, with the official openai SDK as the client and
 * recorded Anthropic answers (test/fixtures/providers/) replayed by the fakes: what reaches each upstream
 * (thinking, thinkingConfig, cache_control, prompt_cache_key), the signed thinking carried back in
 * reasoning_details and replayed byte for byte so the Anthropic fake (which, like Anthropic, refuses a
 * tool-result turn without it) accepts the next turn, and sticky routing on a cached prefix.
 */
import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { loadRecorded } from '../fakes/recorded-answer.js';
import { PROVIDER_KEYS, pointProvidersAt, sdkClient, startFakes, startTestRouter, type Fakes, type TestRouter } from './router-harness.js';

const THINKING = loadRecorded('anthropic/thinking-tool-use');
const REDACTED = loadRecorded('anthropic/redacted-thinking');
const GEMINI_SIGNED = loadRecorded('gemini/thought-signature-tool-call');
const SIGNATURE = (THINKING.json as any).content[0].signature as string;
const WEATHER_TOOL = { type: 'function' as const, function: { name: 'get_weather', description: 'Weather at a place', parameters: { type: 'object', properties: { location: { type: 'string' } } } } };
const ASK = { role: 'user' as const, content: 'What is the weather in Paris?' };

let fakes: Fakes;
let router: TestRouter;
let client: OpenAI;

function route(id: string, tiers: Array<Array<{ provider: string; model: string }>>, extra: Record<string, unknown> = {}) {
  return { id, family: 'frontier', description: id, quotaWeight: 1, retryBudget: 3, tiers, ...extra };
}

beforeAll(async () => {
  fakes = await startFakes();
  router = await startTestRouter({
    patch: {
      providers: pointProvidersAt(fakes.urls),
      routes: (doc: any) => {
        doc.routes.push(
          route('test/claude', [[{ provider: 'anthropic', model: 'claude-sonnet-4-5' }]]),
          route('test/claude-auto', [[{ provider: 'anthropic', model: 'claude-sonnet-4-5' }]], { promptCaching: 'auto' }),
          route('test/gemini', [[{ provider: 'gemini', model: 'gemini-2.5-pro' }]]),
          route('test/gpt', [[{ provider: 'openai', model: 'gpt-4.1' }]]),
          route('test/sticky', [[{ provider: 'openai', model: 'gpt-4.1' }], [{ provider: 'anthropic', model: 'claude-sonnet-4-5' }]], { promptCaching: 'auto' }),
        );
      },
      plans: (doc: any) => {
        for (const plan of doc.plans) plan.routeProfiles = [...plan.routeProfiles, 'test/claude', 'test/claude-auto', 'test/gemini', 'test/gpt', 'test/sticky'];
      },
    },
  });
  const { key } = await router.createAccount('pro', { providerKeys: PROVIDER_KEYS });
  client = sdkClient(router, key);
});
afterAll(async () => {
  await router?.close();
  await fakes?.close();
});
beforeEach(() => {
  fakes.anthropic.reset();
  fakes.gemini.reset();
  fakes.openai.reset();
});

const lastBody = (fake: { requests: Array<{ body: unknown }> }) => fake.requests.at(-1)!.body as Record<string, any>;

describe('reasoning in: what reaches each upstream', () => {
  it.each([
    ['low', 2048],
    ['medium', 8192],
    ['high', 16384],
  ] as const)('chat reasoning_effort %s → Anthropic thinking with budget %i, max_tokens raised to fit', async (effort, budget) => {
    fakes.anthropic.setReply({ recorded: REDACTED });
    await client.chat.completions.create({ model: 'test/claude', messages: [ASK], reasoning_effort: effort, max_tokens: 500 });
    expect(lastBody(fakes.anthropic).thinking).toEqual({ type: 'enabled', budget_tokens: budget });
    expect(lastBody(fakes.anthropic).max_tokens).toBe(budget + 500);
  });

  it('Responses reasoning.effort and the OpenRouter reasoning object reach Anthropic too', async () => {
    fakes.anthropic.setReply({ recorded: REDACTED });
    await client.responses.create({ model: 'test/claude', input: 'Think', reasoning: { effort: 'high' } });
    expect(lastBody(fakes.anthropic).thinking).toEqual({ type: 'enabled', budget_tokens: 16384 });
    await client.chat.completions.create({ model: 'test/claude', messages: [ASK], reasoning: { max_tokens: 3000 } } as any);
    expect(lastBody(fakes.anthropic).thinking).toEqual({ type: 'enabled', budget_tokens: 3000 });
  });

  it.each([
    ['low', 1024],
    ['medium', 8192],
    ['high', 24576],
  ] as const)('chat reasoning_effort %s → Gemini thinkingConfig budget %i with thoughts included', async (effort, budget) => {
    await client.chat.completions.create({ model: 'test/gemini', messages: [ASK], reasoning_effort: effort });
    expect(lastBody(fakes.gemini).generationConfig.thinkingConfig).toEqual({ thinkingBudget: budget, includeThoughts: true });
  });

  it('a model the catalog does not mark as reasoning gets no reasoning field', async () => {
    await client.chat.completions.create({ model: 'test/gpt', messages: [ASK], reasoning: { effort: 'high' } } as any);
    const sent = lastBody(fakes.openai);
    expect(sent.reasoning).toBeUndefined();
    expect(sent.reasoning_effort).toBeUndefined();
  });
});

describe('reasoning out and replayed: Anthropic thinking before a tool call', () => {
  it('chat JSON: the signed thinking comes back in reasoning_details and the tool-result turn is accepted', async () => {
    fakes.anthropic.setReply({ recorded: THINKING });
    const first = await client.chat.completions.create({ model: 'test/claude', messages: [ASK], tools: [WEATHER_TOOL], reasoning_effort: 'high' });
    const message = first.choices[0]!.message as any;
    expect(message.reasoning_content).toBe((THINKING.json as any).content[0].thinking);
    expect(message.reasoning_details).toEqual([{ type: 'reasoning.text', text: (THINKING.json as any).content[0].thinking, signature: SIGNATURE, format: 'anthropic-claude-v1', index: 0 }]);
    const toolCall = message.tool_calls[0];

    fakes.anthropic.setReply({ text: 'It is 18°C in Paris.' });
    const second = await client.chat.completions.create({
      model: 'test/claude',
      messages: [ASK, message, { role: 'tool', tool_call_id: toolCall.id, content: '18°C, sunny' }],
      tools: [WEATHER_TOOL],
      reasoning_effort: 'high',
    });
    expect(second.choices[0]!.message.content).toBe('It is 18°C in Paris.');
    const replayed = lastBody(fakes.anthropic).messages[1].content;
    expect(replayed[0]).toEqual({ type: 'thinking', thinking: (THINKING.json as any).content[0].thinking, signature: SIGNATURE });
    expect(replayed[1].type).toBe('tool_use');
  });

  it('without reasoning_details the same turn goes without thinking instead of the 400 Anthropic gives a tool loop with thinking on and none signed', async () => {
    fakes.anthropic.setReply({ recorded: THINKING });
    const first = await client.chat.completions.create({ model: 'test/claude', messages: [ASK], tools: [WEATHER_TOOL], reasoning_effort: 'high' });
    const { reasoning_details: _dropped, ...bare } = first.choices[0]!.message as any;
    fakes.anthropic.setReply({ text: 'It is 18°C in Paris.' });
    const second = await client.chat.completions.create({
      model: 'test/claude',
      messages: [ASK, bare, { role: 'tool', tool_call_id: bare.tool_calls[0].id, content: '18°C' }],
      tools: [WEATHER_TOOL],
      reasoning_effort: 'high',
    });
    expect(second.choices[0]!.message.content).toBe('It is 18°C in Paris.');
    expect(lastBody(fakes.anthropic).thinking).toBeUndefined();
    // The next user turn thinks again.
    await client.chat.completions.create({ model: 'test/claude', messages: [ASK, bare, { role: 'tool', tool_call_id: bare.tool_calls[0].id, content: '18°C' }, { role: 'assistant', content: 'It is 18°C.' }, { role: 'user', content: 'And tomorrow?' }], reasoning_effort: 'high' });
    expect(lastBody(fakes.anthropic).thinking).toEqual({ type: 'enabled', budget_tokens: 16384 });
  });

  it('chat stream: reasoning_content and reasoning_details deltas, joined by index, replay byte for byte', async () => {
    fakes.anthropic.setReply({ recorded: THINKING });
    const stream = await client.chat.completions.create({ model: 'test/claude', messages: [ASK], tools: [WEATHER_TOOL], reasoning_effort: 'high', stream: true });
    let reasoning = '';
    const details: any[] = [];
    const calls: any[] = [];
    for await (const chunk of stream) {
      const delta = chunk.choices[0]?.delta as any;
      if (!delta) continue;
      reasoning += delta.reasoning_content ?? '';
      for (const detail of delta.reasoning_details ?? []) {
        const held = details[detail.index];
        if (!held) details[detail.index] = { ...detail };
        else {
          held.text = (held.text ?? '') + (detail.text ?? '');
          if (detail.signature) held.signature = (held.signature ?? '') + detail.signature;
        }
      }
      for (const call of delta.tool_calls ?? []) {
        calls[call.index] ??= { id: call.id, type: 'function', function: { name: call.function?.name ?? '', arguments: '' } };
        calls[call.index].function.arguments += call.function?.arguments ?? '';
      }
    }
    expect(reasoning).toBe((THINKING.json as any).content[0].thinking);
    expect(details).toEqual([{ type: 'reasoning.text', text: reasoning, signature: SIGNATURE, format: 'anthropic-claude-v1', index: 0 }]);

    fakes.anthropic.setReply({ text: 'Sunny.' });
    await client.chat.completions.create({
      model: 'test/claude',
      messages: [ASK, { role: 'assistant', content: null, tool_calls: calls, reasoning_details: details } as any, { role: 'tool', tool_call_id: calls[0].id, content: '18°C' }],
      tools: [WEATHER_TOOL],
      reasoning_effort: 'high',
    });
    expect(lastBody(fakes.anthropic).messages[1].content[0]).toEqual({ type: 'thinking', thinking: reasoning, signature: SIGNATURE });
  });

  it('redacted thinking comes back as reasoning.encrypted and goes back as redacted_thinking, JSON and stream', async () => {
    fakes.anthropic.setReply({ recorded: REDACTED });
    const data = (REDACTED.json as any).content[1].data;
    const completion = await client.chat.completions.create({ model: 'test/claude', messages: [ASK], reasoning_effort: 'low' });
    const message = completion.choices[0]!.message as any;
    expect(message.reasoning_details[1]).toEqual({ type: 'reasoning.encrypted', data, format: 'anthropic-claude-v1', index: 1 });
    const stream = await client.chat.completions.create({ model: 'test/claude', messages: [ASK], reasoning_effort: 'low', stream: true });
    const encrypted: any[] = [];
    for await (const chunk of stream) for (const detail of (chunk.choices[0]?.delta as any)?.reasoning_details ?? []) if (detail.type === 'reasoning.encrypted') encrypted.push(detail);
    expect(encrypted).toEqual([{ type: 'reasoning.encrypted', data, format: 'anthropic-claude-v1', index: 1 }]);

    await client.chat.completions.create({ model: 'test/claude', messages: [ASK, message, { role: 'user', content: 'And tomorrow?' }], reasoning_effort: 'low' });
    expect(lastBody(fakes.anthropic).messages[1].content.slice(0, 2)).toEqual([
      { type: 'thinking', thinking: 'Let me think about this.', signature: SIGNATURE },
      { type: 'redacted_thinking', data },
    ]);
  });

  it('Responses JSON and stream: a reasoning item with the summary text', async () => {
    fakes.anthropic.setReply({ recorded: REDACTED });
    const response = await client.responses.create({ model: 'test/claude', input: 'Think', reasoning: { effort: 'low' } });
    const item = response.output.find((entry) => entry.type === 'reasoning') as any;
    expect(item.summary).toEqual([{ type: 'summary_text', text: 'Let me think about this.' }]);
    const stream = await client.responses.create({ model: 'test/claude', input: 'Think', reasoning: { effort: 'low' }, stream: true });
    let summary = '';
    for await (const event of stream) if (event.type === 'response.reasoning_summary_text.delta') summary += event.delta;
    expect(summary).toBe('Let me think about this.');
  });
});

describe('Responses: signed thinking carried in the reasoning item and replayed', () => {
  it.each([false, true])('stream %s: a tool-result turn after thinking is accepted, the signature byte for byte', async (stream) => {
    fakes.anthropic.setReply({ recorded: THINKING });
    const request = { model: 'test/claude', input: [{ role: 'user' as const, content: 'What is the weather in Paris?' }], tools: [{ type: 'function' as const, name: 'get_weather', parameters: WEATHER_TOOL.function.parameters, strict: false }], reasoning: { effort: 'high' as const } };
    let output: OpenAI.Responses.ResponseOutputItem[];
    if (!stream) output = (await client.responses.create(request)).output;
    else {
      output = [];
      for await (const event of await client.responses.create({ ...request, stream: true })) if (event.type === 'response.completed') output = event.response.output;
    }
    expect(output.map((item) => item.type)).toEqual(['reasoning', 'function_call']);
    const reasoning = output[0] as OpenAI.Responses.ResponseReasoningItem;
    expect(reasoning.summary).toEqual([{ type: 'summary_text', text: (THINKING.json as any).content[0].thinking }]);
    expect(reasoning.encrypted_content).toMatch(/^router-rd1\./);
    const call = output[1] as OpenAI.Responses.ResponseFunctionToolCall;

    fakes.anthropic.setReply({ text: 'Sunny.' });
    const next = await client.responses.create({ ...request, input: [...request.input, ...(output as OpenAI.Responses.ResponseInputItem[]), { type: 'function_call_output', call_id: call.call_id, output: '18°C' }] });
    expect(next.output_text).toBe('Sunny.');
    expect(lastBody(fakes.anthropic).messages[1].content[0]).toEqual({ type: 'thinking', thinking: (THINKING.json as any).content[0].thinking, signature: SIGNATURE });
  });
});

describe('Gemini thought signatures carried in reasoning_details', () => {
  it.each([false, true])('stream %s: the signature comes back with the call and is replayed byte for byte', async (stream) => {
    fakes.gemini.setReply({ toolCalls: [{ name: 'get_weather', arguments: { location: 'Paris' } }] });
    const request = { model: 'test/gemini', messages: [ASK], tools: [WEATHER_TOOL], reasoning_effort: 'low' as const };
    let message: any;
    if (!stream) message = (await client.chat.completions.create(request)).choices[0]!.message;
    else {
      message = { role: 'assistant', content: null, tool_calls: [], reasoning_details: [] };
      for await (const chunk of await client.chat.completions.create({ ...request, stream: true })) {
        const delta = chunk.choices[0]?.delta as any;
        for (const call of delta?.tool_calls ?? []) message.tool_calls.push({ id: call.id, type: 'function', function: call.function });
        message.reasoning_details.push(...(delta?.reasoning_details ?? []));
      }
    }
    const [detail] = message.reasoning_details;
    expect(detail).toMatchObject({ type: 'reasoning.encrypted', id: message.tool_calls[0].id, format: 'google-gemini-v1', index: 0 });

    fakes.gemini.setReply({ text: 'Sunny.' });
    const next = await client.chat.completions.create({ ...request, messages: [ASK, message, { role: 'tool', tool_call_id: message.tool_calls[0].id, content: '18°C' }] });
    expect(next.choices[0]!.message.content).toBe('Sunny.');
    expect(lastBody(fakes.gemini).contents[1].parts[0].thoughtSignature).toBe(detail.data);
  });
});

describe('a recorded Gemini answer with a thought summary and a signed call', () => {
  const part = (GEMINI_SIGNED.json as any).candidates[0].content.parts;
  it.each([false, true])('stream %s: reasoning_content, the signature in reasoning_details, replayed on the next turn', async (stream) => {
    fakes.gemini.setReply({ recorded: GEMINI_SIGNED });
    const request = { model: 'test/gemini', messages: [ASK], tools: [WEATHER_TOOL], reasoning_effort: 'medium' as const };
    const message: any = { role: 'assistant', content: null, tool_calls: [], reasoning_details: [], reasoning_content: '' };
    if (!stream) Object.assign(message, (await client.chat.completions.create(request)).choices[0]!.message);
    else {
      for await (const chunk of await client.chat.completions.create({ ...request, stream: true })) {
        const delta = chunk.choices[0]?.delta as any;
        message.reasoning_content += delta?.reasoning_content ?? '';
        for (const call of delta?.tool_calls ?? []) message.tool_calls.push({ id: call.id, type: 'function', function: call.function });
        message.reasoning_details.push(...(delta?.reasoning_details ?? []));
      }
    }
    expect(message.reasoning_content).toBe(part[0].text);
    expect(message.reasoning_details).toEqual([{ type: 'reasoning.encrypted', data: part[1].thoughtSignature, id: message.tool_calls[0].id, format: 'google-gemini-v1', index: 0 }]);
    fakes.gemini.setReply({ text: 'Sunny.' });
    await client.chat.completions.create({ ...request, messages: [ASK, message, { role: 'tool', tool_call_id: message.tool_calls[0].id, content: '18°C' }] });
    expect(lastBody(fakes.gemini).contents[1].parts[0]).toEqual({ functionCall: part[1].functionCall, thoughtSignature: part[1].thoughtSignature });
  });
});

describe('prompt caching', () => {
  it('cache_control reaches Anthropic where the client put it, ttl 1h included', async () => {
    await client.chat.completions.create({
      model: 'test/claude',
      messages: [
        { role: 'system', content: [{ type: 'text', text: 'Long house rules', cache_control: { type: 'ephemeral', ttl: '1h' } }] } as any,
        { role: 'user', content: [{ type: 'text', text: 'A long document', cache_control: { type: 'ephemeral' } }, { type: 'text', text: 'Summarise it' }] } as any,
      ],
      tools: [{ ...WEATHER_TOOL, cache_control: { type: 'ephemeral' } } as any],
    });
    const sent = lastBody(fakes.anthropic);
    expect(sent.system).toEqual([{ type: 'text', text: 'Long house rules', cache_control: { type: 'ephemeral', ttl: '1h' } }]);
    expect(sent.messages[0].content[0]).toEqual({ type: 'text', text: 'A long document', cache_control: { type: 'ephemeral' } });
    expect(sent.tools[0].cache_control).toEqual({ type: 'ephemeral' });
  });

  it('promptCaching: auto puts breakpoints on the system prompt and the last tool; a route without it does not', async () => {
    const request = { messages: [{ role: 'system' as const, content: 'Long house rules' }, ASK], tools: [WEATHER_TOOL, { ...WEATHER_TOOL, function: { ...WEATHER_TOOL.function, name: 'get_time' } }] };
    await client.chat.completions.create({ model: 'test/claude-auto', ...request });
    const auto = lastBody(fakes.anthropic);
    expect(auto.system).toEqual([{ type: 'text', text: 'Long house rules', cache_control: { type: 'ephemeral' } }]);
    expect(auto.tools.map((tool: any) => tool.cache_control)).toEqual([undefined, { type: 'ephemeral' }]);
    await client.chat.completions.create({ model: 'test/claude', ...request });
    expect(lastBody(fakes.anthropic).system).toBe('Long house rules');
  });

  it('Responses over a translated route: promptCaching: auto breakpoints on instructions and tools', async () => {
    await client.responses.create({ model: 'test/claude-auto', instructions: 'Long house rules', input: 'Hi', tools: [{ type: 'function', name: 'get_weather', parameters: WEATHER_TOOL.function.parameters, strict: false }] });
    const sent = lastBody(fakes.anthropic);
    expect(sent.system).toEqual([{ type: 'text', text: 'Long house rules', cache_control: { type: 'ephemeral' } }]);
    expect(sent.tools[0].cache_control).toEqual({ type: 'ephemeral' });
  });

  it("Responses sticky by the client's prompt_cache_key (as Codex sends one per conversation)", async () => {
    const turn = { model: 'test/sticky', input: 'Hi', prompt_cache_key: 'codex-thread-1' };
    fakes.openai.failNext({ kind: 'status', status: 503 });
    expect((await client.responses.create(turn).withResponse()).response.headers.get('x-router-upstream')).toBe('anthropic');
    expect((await client.responses.create({ ...turn, input: 'Next' }).withResponse()).response.headers.get('x-router-upstream')).toBe('anthropic');
    expect((await client.responses.create({ ...turn, prompt_cache_key: 'codex-thread-2' }).withResponse()).response.headers.get('x-router-upstream')).toBe('openai');
  });

  it('prompt_cache_key reaches an OpenAI host that declares it; cache_control never does', async () => {
    await client.chat.completions.create({
      model: 'test/gpt',
      messages: [{ role: 'system', content: [{ type: 'text', text: 'Rules', cache_control: { type: 'ephemeral' } }] } as any, ASK],
      prompt_cache_key: 'thread-42',
    });
    const sent = lastBody(fakes.openai);
    expect(sent.prompt_cache_key).toBe('thread-42');
    expect(JSON.stringify(sent)).not.toContain('cache_control');
  });

  it('sticky routing: a cached prefix served by the fallback stays there while it is healthy', async () => {
    const conversation = { model: 'test/sticky', messages: [{ role: 'system' as const, content: 'Sticky rules' }, ASK] };
    fakes.openai.failNext({ kind: 'status', status: 503 });
    const first = await client.chat.completions.create(conversation).withResponse();
    expect(first.response.headers.get('x-router-upstream')).toBe('anthropic');
    const openaiCalls = fakes.openai.requests.length;
    const second = await client.chat.completions.create({ ...conversation, messages: [...conversation.messages, { role: 'assistant', content: 'Hi' }, { role: 'user', content: 'More' }] }).withResponse();
    expect(second.response.headers.get('x-router-upstream')).toBe('anthropic');
    expect(fakes.openai.requests.length).toBe(openaiCalls);
    // Another prefix keeps the route's own order.
    const other = await client.chat.completions.create({ ...conversation, messages: [{ role: 'system', content: 'Other rules' }, ASK] }).withResponse();
    expect(other.response.headers.get('x-router-upstream')).toBe('openai');
  });

  it("sticky routing never overrides the caller's own provider.order", async () => {
    const conversation = { model: 'test/sticky', messages: [{ role: 'system' as const, content: 'Pinned rules' }, ASK] };
    fakes.openai.failNext({ kind: 'status', status: 503 });
    expect((await client.chat.completions.create(conversation).withResponse()).response.headers.get('x-router-upstream')).toBe('anthropic');
    // The cache is on Anthropic now, but the caller asks for OpenAI first: OpenAI serves.
    const pinned = await client.chat.completions.create({ ...conversation, provider: { order: ['openai'] } } as any).withResponse();
    expect(pinned.response.headers.get('x-router-upstream')).toBe('openai');
    // Without a stated order the conversation goes where its prefix was cached last: OpenAI, which served the pinned turn.
    expect((await client.chat.completions.create(conversation).withResponse()).response.headers.get('x-router-upstream')).toBe('openai');
  });
});
