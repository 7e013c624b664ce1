/**
 * `stop_reason: "stop_sequence"` and the sequence that matched, through the Anthropic SDK: relayed from
 * an Anthropic upstream, taken from an OpenAI-compatible host that names it (vLLM's `stop_reason`), and
 * `end_turn` from a host that does not say (OpenAI's own API cannot tell a matched sequence from a natural end).
 */
import Anthropic from '@anthropic-ai/sdk';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { PROVIDER_KEYS, frontierOrder, pointProvidersAt, startFakes, startTestRouter, type Fakes, type ProviderId, type TestRouter } from './router-harness.js';

const ASK = { model: 'router/frontier', max_tokens: 256, stop_sequences: ['###', 'END'], messages: [{ role: 'user' as const, content: 'Count to three' }] };

describe.each(['openai', 'anthropic'] as const)('stop sequences served by the %s upstream', (provider: ProviderId) => {
  let fakes: Fakes;
  let router: TestRouter;
  let client: Anthropic;

  beforeAll(async () => {
    fakes = await startFakes();
    const others = (['openai', 'anthropic', 'gemini'] as const).filter((other) => other !== provider);
    router = await startTestRouter({ patch: { providers: pointProvidersAt(fakes.urls), routes: frontierOrder([provider, ...others]) } });
    const { key } = await router.createAccount('pro', { providerKeys: { ...PROVIDER_KEYS } });
    client = new Anthropic({ apiKey: key, baseURL: router.url, maxRetries: 0 });
  });
  afterEach(() => fakes.reset());
  afterAll(async () => {
    await router.close();
    await fakes.close();
  });

  it('reports the sequence the upstream says matched, in a message and a stream', async () => {
    fakes[provider].setReply({ text: 'one, two, three', stopReason: 'END' });
    const message = await client.messages.create(ASK);
    expect(message).toMatchObject({ stop_reason: 'stop_sequence', stop_sequence: 'END' });
    const streamed = await client.messages.stream(ASK).finalMessage();
    expect(streamed).toMatchObject({ stop_reason: 'stop_sequence', stop_sequence: 'END' });
  });

  it('reports end_turn when the upstream names no sequence', async () => {
    fakes[provider].setReply({ text: 'one, two, three' });
    expect(await client.messages.create(ASK)).toMatchObject({ stop_reason: 'end_turn', stop_sequence: null });
    expect(await client.messages.stream(ASK).finalMessage()).toMatchObject({ stop_reason: 'end_turn', stop_sequence: null });
  });
});

describe('a sequence an OpenAI-compatible host names that the client did not ask for', () => {
  let fakes: Fakes;
  let router: TestRouter;
  let client: Anthropic;

  beforeAll(async () => {
    fakes = await startFakes();
    router = await startTestRouter({ patch: { providers: pointProvidersAt(fakes.urls), routes: frontierOrder(['openai']) } });
    const { key } = await router.createAccount('pro', { providerKeys: { ...PROVIDER_KEYS } });
    client = new Anthropic({ apiKey: key, baseURL: router.url, maxRetries: 0 });
  });
  afterAll(async () => {
    await router.close();
    await fakes.close();
  });

  it('is a natural end, not a stop sequence (a host’s own end-of-turn marker)', async () => {
    fakes.openai.setReply({ text: 'done', stopReason: '<|eot_id|>' });
    expect(await client.messages.create(ASK)).toMatchObject({ stop_reason: 'end_turn', stop_sequence: null });
  });
});
