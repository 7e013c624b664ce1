/**
 * The Anthropic Messages API (`/v1/messages`) through the official @anthropic-ai/sdk, with each upstream
 * format serving: answers, streams, a tool round trip, system prompts, images, stop sequences, and what
 * each upstream was actually sent.
 */
import Anthropic from '@anthropic-ai/sdk';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { FakeProvider, RecordedRequest } from '../fakes/fake-provider.js';
import { PROVIDER_KEYS, UPSTREAM_MODEL, frontierOrder, pointProvidersAt, startFakes, startTestRouter, type Fakes, type ProviderId, type TestRouter } from './router-harness.js';

const EXPECTED: Record<ProviderId, { text: string; usage: { input_tokens: number; output_tokens: number } }> = {
  openai: { text: 'Hello from openai-fake: héllo 👋 世界', usage: { input_tokens: 10, output_tokens: 20 } },
  anthropic: { text: 'Hello from the Anthropic fake: héllo 👋 世界', usage: { input_tokens: 12, output_tokens: 9 } },
  gemini: { text: 'Hello from gemini-fake: héllo 👋 世界', usage: { input_tokens: 8, output_tokens: 12 } },
};
const ORDER: Record<ProviderId, ProviderId[]> = {
  openai: ['openai', 'anthropic', 'gemini'],
  anthropic: ['anthropic', 'openai', 'gemini'],
  gemini: ['gemini', 'openai', 'anthropic'],
};
const WEATHER_TOOL = {
  name: 'get_weather',
  description: 'Weather in a city',
  input_schema: { type: 'object' as const, properties: { city: { type: 'string' } }, required: ['city'] },
};
/** A 1×1 transparent PNG. */
const PIXEL = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=';

/** The upstream request's body as JSON text, to find what was sent whatever the format. */
const sentText = (request: RecordedRequest | undefined) => JSON.stringify(request?.body ?? null);

describe.each(['openai', 'anthropic', 'gemini'] as const)('the Messages API served by the %s upstream', (provider) => {
  let fakes: Fakes;
  let router: TestRouter;
  let client: Anthropic;
  let key: string;
  let fake: FakeProvider;

  beforeAll(async () => {
    fakes = await startFakes();
    fake = fakes[provider];
    router = await startTestRouter({ patch: { providers: pointProvidersAt(fakes.urls), routes: frontierOrder(ORDER[provider]) } });
    key = (await router.createAccount('pro', { providerKeys: { ...PROVIDER_KEYS } })).key;
    client = new Anthropic({ apiKey: key, baseURL: router.url, maxRetries: 0 });
  });
  afterEach(() => {
    for (const other of ORDER[provider].slice(1)) expect(fakes[other].requests).toHaveLength(0);
    fakes.reset();
  });
  afterAll(async () => {
    await router.close();
    await fakes.close();
  });

  it('answers messages.create with the text, end_turn, the usage and the routing headers', async () => {
    const { data, response } = await client.messages
      .create({ model: 'router/frontier', max_tokens: 256, messages: [{ role: 'user', content: 'Say hello' }] })
      .withResponse();
    expect(data).toMatchObject({ type: 'message', role: 'assistant', model: 'router/frontier', stop_reason: 'end_turn' });
    expect(data.id).toMatch(/^msg_/);
    expect(data.content).toEqual([{ type: 'text', text: EXPECTED[provider].text }]);
    expect(data.usage).toMatchObject(EXPECTED[provider].usage);
    expect(response.headers.get('x-router-upstream')).toBe(provider);
    expect(response.headers.get('x-router-model')).toBe(UPSTREAM_MODEL[provider]);
    expect(response.headers.get('x-quota-used')).toBe('1');
    expect(fake.requests).toHaveLength(1);
  });

  it('streams with messages.stream: finalMessage() holds the whole text, the stop reason and the output usage', async () => {
    const stream = client.messages.stream({ model: 'router/frontier', max_tokens: 256, messages: [{ role: 'user', content: 'Say hello' }] });
    const deltas: string[] = [];
    stream.on('text', (text) => deltas.push(text));
    const message = await stream.finalMessage();
    expect(message.content).toEqual([{ type: 'text', text: EXPECTED[provider].text }]);
    expect(deltas.join('')).toBe(EXPECTED[provider].text);
    expect(message.stop_reason).toBe('end_turn');
    expect(message.usage.output_tokens).toBe(EXPECTED[provider].usage.output_tokens);
    expect(message.usage.input_tokens).toBe(EXPECTED[provider].usage.input_tokens);
  });

  it.each([false, true])('completes a tool round trip (stream: %s): tool_use with its input, then the tool_result reaches the upstream by id', async (stream) => {
    fake.setReply({ toolCalls: [{ name: 'get_weather', arguments: { city: 'Paris' } }] });
    const ask = { model: 'router/frontier', max_tokens: 256, tools: [WEATHER_TOOL], messages: [{ role: 'user' as const, content: 'Weather in Paris?' }] };
    const first = stream ? await client.messages.stream(ask).finalMessage() : await client.messages.create(ask);
    expect(first.stop_reason).toBe('tool_use');
    const toolUse = first.content.find((block) => block.type === 'tool_use');
    expect(toolUse).toMatchObject({ type: 'tool_use', name: 'get_weather', input: { city: 'Paris' } });
    const id = (toolUse as { id: string }).id;

    fake.setReply({ text: 'Sunny.' });
    const second = await client.messages.create({
      ...ask,
      messages: [
        ...ask.messages,
        { role: 'assistant', content: first.content },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content: '21 °C and sunny' }] },
      ],
    });
    expect(second.content).toEqual([{ type: 'text', text: 'Sunny.' }]);
    const sent = sentText(fake.requests.at(-1));
    expect(sent).toContain('21 °C and sunny');
    expect(sent).toContain('get_weather');
    if (provider !== 'gemini') expect(sent).toContain(id);
  });

  it('sends the system prompt as a string and as blocks, the stop sequences and an image block upstream', async () => {
    await client.messages.create({ model: 'router/frontier', max_tokens: 64, system: 'Be terse.', messages: [{ role: 'user', content: 'Hi' }] });
    expect(sentText(fake.requests.at(-1))).toContain('Be terse.');
    await client.messages.create({
      model: 'router/frontier',
      max_tokens: 64,
      system: [{ type: 'text', text: 'Answer in French.', cache_control: { type: 'ephemeral' } }],
      stop_sequences: ['END'],
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'What is this?' },
            { type: 'image', source: { type: 'base64', media_type: 'image/png', data: PIXEL } },
          ],
        },
      ],
    });
    const sent = sentText(fake.requests.at(-1));
    expect(sent).toContain('Answer in French.');
    expect(sent).toContain('END');
    expect(sent).toContain(PIXEL);
  });
});
