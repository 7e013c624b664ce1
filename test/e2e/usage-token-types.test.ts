/**
 * Every token type a provider reports reaches the client: recorded Anthropic and Gemini answers
 * (test/fixtures/providers/) replayed by the fakes, read through the official openai SDK as chat and
 * Responses, JSON and streams.
 */
import type OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadRecorded } from '../fakes/recorded-answer.js';
import { PROVIDER_KEYS, pointProvidersAt, sdkClient, startFakes, startTestRouter, type Fakes, type ProviderId, type TestRouter } from './router-harness.js';

const HELLO = { model: 'router/frontier', messages: [{ role: 'user' as const, content: 'Summarize the contract' }] };

const CASES = [
  {
    provider: 'anthropic',
    fixture: 'anthropic/cache-write-1h',
    // 2048 uncached + 556 written + 1800 read; 100 of the writes for one hour.
    chat: { prompt_tokens: 4404, completion_tokens: 503, total_tokens: 4907, prompt_tokens_details: { cached_tokens: 1800, cache_write_tokens: 556, cache_write_1h_tokens: 100 } },
    responses: { input_tokens: 4404, input_tokens_details: { cached_tokens: 1800, cache_write_tokens: 556, cache_write_1h_tokens: 100 }, output_tokens: 503, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 4907 },
  },
  {
    provider: 'gemini',
    fixture: 'gemini/thinking-cached-usage',
    // Thoughts are billed as output: 80 + 350.
    chat: { prompt_tokens: 1200, completion_tokens: 430, total_tokens: 1630, prompt_tokens_details: { cached_tokens: 1024 }, completion_tokens_details: { reasoning_tokens: 350 } },
    responses: { input_tokens: 1200, input_tokens_details: { cached_tokens: 1024, cache_write_tokens: 0 }, output_tokens: 430, output_tokens_details: { reasoning_tokens: 350 }, total_tokens: 1630 },
  },
] as const;

describe.each(CASES)('token types from a recorded $provider answer', ({ provider, fixture, chat, responses }) => {
  let fakes: Fakes;
  let router: TestRouter;
  let client: OpenAI;

  beforeAll(async () => {
    fakes = await startFakes();
    router = await startTestRouter({
      patch: {
        providers: pointProvidersAt(fakes.urls),
        routes: (doc: any) => {
          const frontier = doc.routes.find((route: { id: string }) => route.id === 'router/frontier');
          frontier.tiers = [[{ provider, model: provider === 'anthropic' ? 'claude-sonnet-4-5' : 'gemini-2.5-pro' }]];
        },
      },
    });
    const id = provider as ProviderId;
    const { key } = await router.createAccount('pro', { providerKeys: { [id]: PROVIDER_KEYS[id] } });
    client = sdkClient(router, key);
    fakes[id].setReply({ recorded: loadRecorded(fixture) });
  });
  afterAll(async () => {
    await router.close();
    await fakes.close();
  });

  it('chat JSON', async () => {
    const completion = await client.chat.completions.create(HELLO);
    expect(completion.usage).toMatchObject(chat);
  });

  it('chat stream: the final usage chunk', async () => {
    const stream = await client.chat.completions.create({ ...HELLO, stream: true, stream_options: { include_usage: true } });
    let usage: unknown;
    for await (const chunk of stream) if (chunk.usage) usage = chunk.usage;
    expect(usage).toMatchObject(chat);
  });

  it('Responses JSON', async () => {
    const response = await client.responses.create({ model: 'router/frontier', input: 'Summarize the contract' });
    expect(response.usage).toMatchObject(responses);
  });

  it('Responses stream: response.completed', async () => {
    const stream = await client.responses.create({ model: 'router/frontier', input: 'Summarize the contract', stream: true });
    let usage: unknown;
    for await (const event of stream) if (event.type === 'response.completed') usage = event.response.usage;
    expect(usage).toMatchObject(responses);
  });
});
