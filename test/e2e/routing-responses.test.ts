import type OpenAI from 'openai';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { FakeProvider } from '../fakes/fake-provider.js';
import {
  PROVIDER_KEYS,
  UPSTREAM_MODEL,
  frontierOrder,
  pointProvidersAt,
  postV1,
  readSse,
  sdkClient,
  startFakes,
  startTestRouter,
  type Fakes,
  type ProviderId,
  type TestRouter,
} from './router-harness.js';

const CASES = [
  // OpenAI serves /responses natively: the body passes through, the model is rewritten to the profile.
  { provider: 'openai', path: '/v1/responses', text: 'Hello from openai-fake: héllo 👋 世界', usage: { input_tokens: 10, output_tokens: 20, total_tokens: 30 } },
  // Chat-only upstreams: the router asks for a chat completion and synthesizes the Response.
  { provider: 'anthropic', path: '/v1/messages', text: 'Hello from the Anthropic fake: héllo 👋 世界', usage: { input_tokens: 12, output_tokens: 9, total_tokens: 21 } },
  { provider: 'gemini', path: '/v1beta/models/gemini-2.5-pro:streamGenerateContent?alt=sse', text: 'Hello from gemini-fake: héllo 👋 世界', usage: { input_tokens: 8, output_tokens: 12, total_tokens: 20 } },
] as const;

const ORDER: Record<ProviderId, ProviderId[]> = {
  openai: ['openai', 'anthropic', 'gemini'],
  anthropic: ['anthropic', 'gemini', 'openai'],
  gemini: ['gemini', 'anthropic', 'openai'],
};

/** The event sequence of one text answer (wire-formats §2.3), deltas collapsed to one entry. */
const TEXT_EVENT_ORDER = [
  'response.created',
  'response.in_progress',
  'response.output_item.added',
  'response.content_part.added',
  'response.output_text.delta',
  'response.output_text.done',
  'response.content_part.done',
  'response.output_item.done',
  'response.completed',
];

describe.each(CASES)('the Responses API served by the $provider upstream', ({ provider, path, text, usage }) => {
  let fakes: Fakes;
  let router: TestRouter;
  let client: OpenAI;
  let key: string;
  let fake: FakeProvider;

  beforeAll(async () => {
    fakes = await startFakes();
    fake = fakes[provider];
    router = await startTestRouter({ patch: { providers: pointProvidersAt(fakes.urls), routes: frontierOrder(ORDER[provider]) } });
    key = (await router.createAccount('pro', { providerKeys: { ...PROVIDER_KEYS } })).key;
    client = sdkClient(router, key);
  });
  afterEach(() => {
    for (const other of ORDER[provider].slice(1)) expect(fakes[other].requests).toHaveLength(0);
    fakes.reset();
  });
  afterAll(async () => {
    await router.close();
    await fakes.close();
  });

  it('answers a non-stream request with output_text, usage, an id and the route profile as model', async () => {
    const { data, response } = await client.responses.create({ model: 'router/frontier', input: 'Say hello' }).withResponse();
    expect(response.status).toBe(200);
    expect(response.headers.get('x-router-upstream')).toBe(provider);
    expect(response.headers.get('x-router-model')).toBe(UPSTREAM_MODEL[provider]);
    expect(response.headers.get('x-router-retry-count')).toBe('0');
    expect(data.object).toBe('response');
    expect(data.id).toMatch(/^resp_/);
    expect(data.status).toBe('completed');
    expect(data.model).toBe('router/frontier');
    expect(data.output_text).toBe(text);
    expect(data.usage).toMatchObject(usage);
    expect(fake.requests).toHaveLength(1);
    expect(fake.requests[0]!.path).toBe(path.replace(':streamGenerateContent?alt=sse', ':generateContent'));
  });

  it.each([undefined, 1])('streams the typed events in order with sequence numbers 0..n (splitBytes %s)', async (splitBytes) => {
    fake.setReply(splitBytes === undefined ? {} : { splitBytes });
    const { data: stream, response } = await client.responses.create({ model: 'router/frontier', input: 'Say hello', stream: true }).withResponse();
    expect(response.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    expect(response.headers.get('x-router-upstream')).toBe(provider);
    const events: OpenAI.Responses.ResponseStreamEvent[] = [];
    for await (const event of stream) events.push(event);

    expect(collapseDeltas(events.map((event) => event.type))).toEqual(TEXT_EVENT_ORDER);
    expect(events.map((event) => event.sequence_number)).toEqual(events.map((_, i) => i));
    const deltas = events.flatMap((event) => (event.type === 'response.output_text.delta' ? [event.delta] : []));
    expect(deltas.join('')).toBe(text);
    const done = events.find((event) => event.type === 'response.output_text.done');
    expect(done).toMatchObject({ text });
    const created = events[0] as OpenAI.Responses.ResponseCreatedEvent;
    const completed = events.at(-1) as OpenAI.Responses.ResponseCompletedEvent;
    expect(created.response.id).toMatch(/^resp_/);
    expect(completed.response.id).toBe(created.response.id);
    expect(completed.response.status).toBe('completed');
    expect(completed.response.model).toBe('router/frontier');
    expect(created.response.model).toBe('router/frontier');
    expect(completed.response.usage).toMatchObject(usage);
    expect(completed.response.output).toHaveLength(1);
    expect(completed.response.output[0]).toMatchObject({ type: 'message', role: 'assistant', content: [{ type: 'output_text', text }] });
    expect(fake.requests[0]!.path).toBe(path);
  });

  it('serves the SDK stream helper, which rebuilds the response from the events', async () => {
    const stream = client.responses.stream({ model: 'router/frontier', input: 'Say hello' });
    let assembled = '';
    stream.on('response.output_text.delta', (event) => void (assembled += event.delta));
    const final = await stream.finalResponse();
    expect(assembled).toBe(text);
    expect(final.output_text).toBe(text);
    expect(final.usage).toMatchObject(usage);
  });

  it('names every event on the wire after its type and sends no [DONE]', async () => {
    const response = await postV1(router, key, '/responses', { model: 'router/frontier', input: 'Say hello', stream: true });
    expect(response.status).toBe(200);
    const events = await readSse(response);
    expect(events.length).toBeGreaterThan(TEXT_EVENT_ORDER.length - 1);
    for (const event of events) expect(event.event).toBe(JSON.parse(event.data).type);
    expect(events.at(-1)!.event).toBe('response.completed');
  });
});

const WEATHER_TOOL = {
  type: 'function',
  name: 'get_weather',
  description: 'Weather in a city',
  parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  strict: false,
} as const;

describe.each(['anthropic', 'gemini'] as const)('a Responses tool call round trip over the %s upstream', (provider) => {
  let fakes: Fakes;
  let router: TestRouter;
  let client: OpenAI;

  beforeAll(async () => {
    fakes = await startFakes();
    router = await startTestRouter({ patch: { providers: pointProvidersAt(fakes.urls), routes: frontierOrder(ORDER[provider]) } });
    client = sdkClient(router, (await router.createAccount('pro', { providerKeys: { ...PROVIDER_KEYS } })).key);
  });
  afterAll(async () => {
    await router.close();
    await fakes.close();
  });

  it('returns function_call items, then takes function_call_output items back in the provider history', async () => {
    const fake = fakes[provider];
    fake.setReply({ toolCalls: [{ name: 'get_weather', arguments: { city: 'Paris' } }] });
    const input: OpenAI.Responses.ResponseInput = [{ role: 'user', content: 'Weather in Paris?' }];
    const first = await client.responses.create({ model: 'router/frontier', input, tools: [WEATHER_TOOL] });
    expect(first.status).toBe('completed');
    // Gemini's thought signature rides in a reasoning item ahead of the call, which clients send back with it.
    expect(first.output.map((item) => item.type)).toEqual(provider === 'gemini' ? ['reasoning', 'function_call'] : ['function_call']);
    const call = first.output.at(-1) as OpenAI.Responses.ResponseFunctionToolCall;
    expect(call).toMatchObject({ type: 'function_call', name: 'get_weather', status: 'completed' });
    expect(JSON.parse(call.arguments)).toEqual({ city: 'Paris' });

    fake.setReply({ text: 'Sunny in Paris.' });
    input.push(...(first.output as OpenAI.Responses.ResponseInputItem[]), { type: 'function_call_output', call_id: call.call_id, output: 'sunny' });
    const second = await client.responses.create({ model: 'router/frontier', input, tools: [WEATHER_TOOL] });
    expect(second.output_text).toBe('Sunny in Paris.');
    const body = fake.requests[1]!.body as any;
    if (provider === 'anthropic') {
      expect(body.messages.at(-1).content).toEqual([{ type: 'tool_result', tool_use_id: call.call_id, content: 'sunny' }]);
    } else {
      expect(body.contents[1].parts[0].thoughtSignature).toBe(Buffer.from('fake-signature-1-get_weather').toString('base64'));
      expect(body.contents[2].parts).toEqual([{ functionResponse: { name: 'get_weather', response: { content: 'sunny' } } }]);
    }
  });
});

function collapseDeltas(types: string[]): string[] {
  return types.filter((type, i) => type !== 'response.output_text.delta' || types[i - 1] !== type);
}
