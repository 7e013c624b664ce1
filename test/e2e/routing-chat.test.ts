import type OpenAI from 'openai';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { FakeProvider } from '../fakes/fake-provider.js';
import {
  PROVIDER_KEYS,
  UPSTREAM_MODEL,
  frontierOrder,
  pointProvidersAt,
  sdkClient,
  startFakes,
  startTestRouter,
  type Fakes,
  type ProviderId,
  type TestRouter,
} from './router-harness.js';

/** What each fake answers by default, and the usage its adapter must map to the chat shape. */
const EXPECTED: Record<ProviderId, { text: string; usage: { prompt_tokens: number; completion_tokens: number; total_tokens: number } }> = {
  openai: { text: 'Hello from openai-fake: héllo 👋 世界', usage: { prompt_tokens: 10, completion_tokens: 20, total_tokens: 30 } },
  anthropic: { text: 'Hello from the Anthropic fake: héllo 👋 世界', usage: { prompt_tokens: 12, completion_tokens: 9, total_tokens: 21 } },
  gemini: { text: 'Hello from gemini-fake: héllo 👋 世界', usage: { prompt_tokens: 8, completion_tokens: 12, total_tokens: 20 } },
};
const ORDER: Record<ProviderId, ProviderId[]> = {
  openai: ['openai', 'anthropic', 'gemini'],
  anthropic: ['anthropic', 'openai', 'gemini'],
  gemini: ['gemini', 'openai', 'anthropic'],
};
const WEATHER_TOOL = {
  type: 'function',
  function: { name: 'get_weather', description: 'Weather in a city', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } },
} as const;

describe.each(['openai', 'anthropic', 'gemini'] as const)('chat completions served by the %s upstream', (provider) => {
  let fakes: Fakes;
  let router: TestRouter;
  let client: OpenAI;
  let fake: FakeProvider;
  const others = () => ORDER[provider].slice(1).map((id) => fakes[id]);

  beforeAll(async () => {
    fakes = await startFakes();
    fake = fakes[provider];
    router = await startTestRouter({ patch: { providers: pointProvidersAt(fakes.urls), routes: frontierOrder(ORDER[provider]) } });
    const account = await router.createAccount('pro', { providerKeys: { ...PROVIDER_KEYS } });
    client = sdkClient(router, account.key);
  });
  afterEach(() => {
    for (const other of others()) expect(other.requests).toHaveLength(0);
    fakes.reset();
  });
  afterAll(async () => {
    await router.close();
    await fakes.close();
  });

  it('answers a non-stream request with the text, the finish reason, mapped usage and routing headers', async () => {
    const { data, response } = await client.chat.completions
      .create({ model: 'router/frontier', messages: [{ role: 'user', content: 'Say hello' }] })
      .withResponse();
    expect(response.status).toBe(200);
    expect(response.headers.get('x-router-upstream')).toBe(provider);
    expect(response.headers.get('x-router-model')).toBe(UPSTREAM_MODEL[provider]);
    expect(response.headers.get('x-router-retry-count')).toBe('0');
    expect(data.object).toBe('chat.completion');
    expect(data.model).toBe('router/frontier');
    expect(data.choices).toHaveLength(1);
    expect(data.choices[0]!.message.content).toBe(EXPECTED[provider].text);
    expect(data.choices[0]!.finish_reason).toBe('stop');
    expect(data.usage).toMatchObject(EXPECTED[provider].usage);
    expect(fake.requests).toHaveLength(1);
  });

  it.each([undefined, 1])('streams the exact text with a final usage chunk when include_usage is asked (splitBytes %s)', async (splitBytes) => {
    fake.setReply(splitBytes === undefined ? {} : { splitBytes });
    const { data: stream, response } = await client.chat.completions
      .create({ model: 'router/frontier', messages: [{ role: 'user', content: 'Say hello' }], stream: true, stream_options: { include_usage: true } })
      .withResponse();
    expect(response.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    expect(response.headers.get('x-router-upstream')).toBe(provider);
    expect(response.headers.get('x-router-retry-count')).toBe('0');
    const chunks: OpenAI.ChatCompletionChunk[] = [];
    for await (const chunk of stream) chunks.push(chunk);
    const text = chunks.map((chunk) => chunk.choices[0]?.delta.content ?? '').join('');
    expect(text).toBe(EXPECTED[provider].text);
    expect(chunks.every((chunk) => chunk.model === 'router/frontier')).toBe(true);
    expect(chunks.flatMap((chunk) => chunk.choices.map((choice) => choice.finish_reason)).filter(Boolean)).toEqual(['stop']);
    const last = chunks.at(-1)!;
    expect(last.choices).toEqual([]);
    expect(last.usage).toMatchObject(EXPECTED[provider].usage);
    expect(chunks.slice(0, -1).every((chunk) => chunk.usage === null)).toBe(true);
  });

  it('streams without any usage when include_usage is not asked', async () => {
    const stream = await client.chat.completions.create({ model: 'router/frontier', messages: [{ role: 'user', content: 'Say hello' }], stream: true });
    const chunks: OpenAI.ChatCompletionChunk[] = [];
    for await (const chunk of stream) chunks.push(chunk);
    expect(chunks.map((chunk) => chunk.choices[0]?.delta.content ?? '').join('')).toBe(EXPECTED[provider].text);
    expect(chunks.every((chunk) => chunk.choices.length === 1 && !('usage' in chunk))).toBe(true);
  });

  it('carries a tool call round trip: the call out, then the assistant call and tool results back', async () => {
    fake.setReply({ toolCalls: [{ name: 'get_weather', arguments: { city: 'Paris' } }, { name: 'get_weather', arguments: { city: 'Tōkyō' } }] });
    const messages: OpenAI.ChatCompletionMessageParam[] = [{ role: 'user', content: 'Weather in Paris and Tōkyō?' }];
    const first = await client.chat.completions.create({ model: 'router/frontier', messages, tools: [WEATHER_TOOL] });
    const choice = first.choices[0]!;
    expect(choice.finish_reason).toBe('tool_calls');
    const calls = (choice.message.tool_calls ?? []) as OpenAI.ChatCompletionMessageFunctionToolCall[];
    expect(calls.map((call) => [call.function.name, JSON.parse(call.function.arguments)])).toEqual([
      ['get_weather', { city: 'Paris' }],
      ['get_weather', { city: 'Tōkyō' }],
    ]);
    expect(new Set(calls.map((call) => call.id)).size).toBe(2);

    fake.setReply({ text: 'Sunny in Paris, rainy in Tōkyō.' });
    messages.push(choice.message, ...calls.map((call, i) => ({ role: 'tool' as const, tool_call_id: call.id, content: i === 0 ? 'sunny' : 'rainy' })));
    const second = await client.chat.completions.create({ model: 'router/frontier', messages, tools: [WEATHER_TOOL] });
    expect(second.choices[0]!.message.content).toBe('Sunny in Paris, rainy in Tōkyō.');
    expect(fake.requests).toHaveLength(2);
    expectTranslatedHistory(provider, fake.requests[1]!.body as any, calls.map((call) => call.id));
  });

  it('streams a tool call with its arguments assembled', async () => {
    fake.setReply({ toolCalls: [{ name: 'get_weather', arguments: { city: 'Paris' } }] });
    const stream = await client.chat.completions.create({
      model: 'router/frontier',
      messages: [{ role: 'user', content: 'Weather in Paris?' }],
      tools: [WEATHER_TOOL],
      stream: true,
    });
    let name = '';
    let args = '';
    const finishes: string[] = [];
    for await (const chunk of stream) {
      for (const call of chunk.choices[0]?.delta.tool_calls ?? []) {
        expect(call.index).toBe(0);
        name += call.function?.name ?? '';
        args += call.function?.arguments ?? '';
      }
      if (chunk.choices[0]?.finish_reason) finishes.push(chunk.choices[0].finish_reason);
    }
    expect(name).toBe('get_weather');
    expect(JSON.parse(args)).toEqual({ city: 'Paris' });
    expect(finishes).toEqual(['tool_calls']);
  });
});

/** The history the provider received on the second turn, in its own wire format. */
function expectTranslatedHistory(provider: ProviderId, body: any, callIds: string[]): void {
  if (provider === 'openai') {
    expect(body.messages.map((message: { role: string }) => message.role)).toEqual(['user', 'assistant', 'tool', 'tool']);
    expect(body.messages[1].tool_calls.map((call: { id: string }) => call.id)).toEqual(callIds);
    expect(body.messages.slice(2).map((message: { tool_call_id: string }) => message.tool_call_id)).toEqual(callIds);
  } else if (provider === 'anthropic') {
    // Both results travel in ONE user message, ahead of anything else (Anthropic's grouping rule).
    expect(body.messages.map((message: { role: string }) => message.role)).toEqual(['user', 'assistant', 'user']);
    expect(body.messages[1].content.map((block: { type: string; id: string }) => [block.type, block.id])).toEqual(callIds.map((id) => ['tool_use', id]));
    expect(body.messages[2].content).toEqual([
      { type: 'tool_result', tool_use_id: callIds[0], content: 'sunny' },
      { type: 'tool_result', tool_use_id: callIds[1], content: 'rainy' },
    ]);
  } else {
    expect(body.contents.map((content: { role: string }) => content.role)).toEqual(['user', 'model', 'user']);
    const [firstCall, secondCall] = body.contents[1].parts;
    expect(firstCall.functionCall).toEqual({ name: 'get_weather', args: { city: 'Paris' } });
    // The signature Gemini issued with the first call comes back with it; the fake rejects any other.
    expect(firstCall.thoughtSignature).toBe(Buffer.from('fake-signature-1-get_weather').toString('base64'));
    expect(secondCall.functionCall).toEqual({ name: 'get_weather', args: { city: 'Tōkyō' } });
    // Gemini matches results to calls by name, which the router recovers from the assistant turn.
    expect(body.contents[2].parts).toEqual([
      { functionResponse: { name: 'get_weather', response: { content: 'sunny' } } },
      { functionResponse: { name: 'get_weather', response: { content: 'rainy' } } },
    ]);
  }
}
