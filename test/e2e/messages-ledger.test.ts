/**
 * /v1/messages in the usage ledger: one record per request with the tokens the client saw and their cost,
 * JSON and streamed, translated and native; a token count writes none.
 */
import Anthropic from '@anthropic-ai/sdk';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { PROVIDER_KEYS, frontierOrder, ledgerRecordsOf, pointProvidersAt, startFakes, startTestRouter, type Fakes, type TestRouter } from './router-harness.js';

const HELLO = { model: 'claude-sonnet-5-5', max_tokens: 64, messages: [{ role: 'user' as const, content: 'Say hello' }] };
/** gpt-4.1 at 2 / 8 USD per million tokens (config/providers.yaml): nano-USD per token. */
const GPT41 = { input: 2000, output: 8000 };

describe('the Messages API in the usage ledger', () => {
  let fakes: Fakes;
  let router: TestRouter;
  let account: { accountId: string; key: string; keyId: string };
  let client: Anthropic;

  const recordsOf = (requestId: string | null) => ledgerRecordsOf(router, requestId);

  beforeAll(async () => {
    fakes = await startFakes();
    router = await startTestRouter({ patch: { providers: pointProvidersAt(fakes.urls), routes: frontierOrder(['openai', 'anthropic']), server: (doc) => void (doc.ledger = { flushIntervalMs: 100 }) } });
    account = await router.createAccount('pro', { providerKeys: { ...PROVIDER_KEYS } });
    client = new Anthropic({ apiKey: account.key, baseURL: router.url, maxRetries: 0 });
  });
  afterEach(() => fakes.reset());
  afterAll(async () => {
    await router.close();
    await fakes.close();
  });

  it('records a message with the tokens the client saw and their cost', async () => {
    const { data, response } = await client.messages.create(HELLO).withResponse();
    const [record] = await recordsOf(response.headers.get('x-request-id'));
    expect(record).toMatchObject({
      call: 'main',
      accountId: account.accountId,
      keyId: account.keyId,
      routeId: 'router/frontier',
      endpoint: '/v1/messages',
      providerId: 'openai',
      status: 200,
      usage: { prompt: data.usage.input_tokens, completion: data.usage.output_tokens },
      costNanoUsd: data.usage.input_tokens * GPT41.input + data.usage.output_tokens * GPT41.output,
    });
  });

  it('records a streamed message, translated and native, with the stream’s own usage', async () => {
    const stream = client.messages.stream(HELLO);
    const message = await stream.finalMessage();
    const requestId = (await stream.withResponse()).response.headers.get('x-request-id');
    expect(await recordsOf(requestId)).toMatchObject([{ providerId: 'openai', usage: { prompt: message.usage.input_tokens, completion: message.usage.output_tokens } }]);

    fakes.openai.failNext({ kind: 'status', status: 503 });
    const native = client.messages.stream(HELLO);
    const nativeMessage = await native.finalMessage();
    const nativeId = (await native.withResponse()).response.headers.get('x-request-id');
    expect(await recordsOf(nativeId)).toMatchObject([{ providerId: 'anthropic', retryCount: 1, usage: { prompt: nativeMessage.usage.input_tokens, completion: nativeMessage.usage.output_tokens } }]);
  });

  it('writes no record for a token count', async () => {
    const { response } = await client.messages.countTokens({ model: HELLO.model, messages: HELLO.messages }).withResponse();
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await router.server.runtime.usage.store.findRecords({ requestId: response.headers.get('x-request-id') ?? '' })).toEqual([]);
  });
});
