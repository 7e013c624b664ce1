/**
 * Routing is format-blind: whether a Responses or Messages call passes through natively is decided by
 * the candidate's adapter having the capability (and, for Responses, its provider's `nativeResponses`),
 * never by the provider's format. Proven by giving the Gemini adapter capabilities it does not have.
 */
import { describe, expect, it } from 'vitest';
import type { ProviderConfig, ProviderFormat } from '../../../src/config/types.js';
import type { MessagesRequest } from '../../../src/formats/anthropic-messages.js';
import type { ResponsesRequest } from '../../../src/formats/openai-responses.js';
import type { AdapterRegistry, NativeMessagesCapability, NativeResponsesCapability } from '../../../src/providers/adapter.js';
import { createAdapterRegistry } from '../../../src/providers/registry.js';
import type { AttemptDeps } from '../../../src/routing/chat-attempts.js';
import type { Candidate } from '../../../src/routing/failover.js';
import { completeMessagesAttempt } from '../../../src/routing/messages-attempts.js';
import { outputLimitsFrom } from '../../../src/routing/output-limits.js';
import { completeResponsesAttempt } from '../../../src/routing/responses-attempts.js';
import type { UpstreamClient } from '../../../src/upstream/upstream-client.js';
import type { UpstreamRequest } from '../../../src/upstream/upstream-request.js';
import { testProvider } from './test-provider.js';

const clock = { now: () => 1_760_000_000_000 };

function provider(format: ProviderFormat, nativeResponses: boolean): ProviderConfig {
  return testProvider(`p-${format}`, format, { name: format, baseUrl: 'http://upstream.test/v1', nativeResponses });
}

const candidateOf = (config: ProviderConfig): Candidate => ({ target: { provider: config.id, model: 'upstream-model', weight: 1 }, provider: config, credential: 'k', credentialSource: 'byok' });

/** An upstream that answers every request with `answer` and remembers the URLs it was sent. */
function fakeClient(answer: unknown): { client: UpstreamClient; urls: string[] } {
  const urls: string[] = [];
  const text = JSON.stringify(answer);
  const client: UpstreamClient = {
    send: async (_provider, request: UpstreamRequest) => {
      urls.push(request.url);
      return { status: 200, headers: new Headers(), body: (async function* () {})(), text: async () => text };
    },
    close: async () => {},
  };
  return { client, urls };
}

function deps(adapters: AdapterRegistry, client: UpstreamClient): AttemptDeps & { clock: typeof clock } {
  return { adapters, client, outputLimits: outputLimitsFrom([]), clock };
}

const nativeRequest = (path: string): UpstreamRequest => ({ url: `http://native.test${path}`, headers: {}, body: '{}' });

const messagesCapability: NativeMessagesCapability = {
  upstreamName: 'Native',
  buildRequest: () => nativeRequest('/messages'),
  buildCountTokensRequest: () => nativeRequest('/messages/count_tokens'),
  streamFailure: () => ({ status: 500, type: 'server_error', code: null, message: 'failed' }),
};

const responsesCapability: NativeResponsesCapability = {
  buildRequest: () => nativeRequest('/responses'),
  rewriteModel: (json, model) => ({ ...(json as object), model }) as typeof json,
  streamFailure: () => ({ status: 500, type: 'server_error', code: null, message: 'failed' }),
};

const message = { type: 'message', id: 'msg_1', role: 'assistant', model: 'upstream-model', content: [{ type: 'text', text: 'hi' }], stop_reason: 'end_turn', stop_sequence: null, usage: { input_tokens: 1, output_tokens: 1 } };
const messagesCall = { request: { model: 'router/frontier', max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] } as MessagesRequest, model: 'router/frontier', client: { betas: [] }, signal: new AbortController().signal };
const responsesCall = { request: { model: 'router/frontier', input: 'hi' } as ResponsesRequest, model: 'router/frontier', signal: new AbortController().signal };

describe('native pass-through is chosen by the adapter’s capability, not by the format', () => {
  it('passes a Messages call through any adapter that has the messages capability, with the client’s model on the answer', async () => {
    const real = createAdapterRegistry(clock);
    const adapters = { ...real, gemini: { ...real.gemini, messages: messagesCapability } };
    const { client, urls } = fakeClient(message);
    const answer = await completeMessagesAttempt(deps(adapters, client), candidateOf(provider('gemini', false)), messagesCall);
    expect(urls).toEqual(['http://native.test/messages']);
    expect(answer).toMatchObject({ type: 'message', model: 'router/frontier' });
  });

  it('translates a Messages call through chat for an adapter without it', async () => {
    const { client, urls } = fakeClient({ candidates: [{ content: { role: 'model', parts: [{ text: 'hi' }] }, finishReason: 'STOP' }] });
    const answer = await completeMessagesAttempt(deps(createAdapterRegistry(clock), client), candidateOf(provider('gemini', false)), messagesCall);
    expect(urls).toHaveLength(1);
    expect(urls[0]).toContain(':generateContent');
    expect(answer).toMatchObject({ type: 'message', model: 'router/frontier' });
  });

  it('passes a Responses call through only when the provider is configured nativeResponses and its adapter has the capability', async () => {
    const real = createAdapterRegistry(clock);
    const adapters = { ...real, gemini: { ...real.gemini, responses: responsesCapability } };
    const native = fakeClient({ object: 'response', id: 'resp_1', model: 'upstream-model', output: [] });
    const answer = await completeResponsesAttempt(deps(adapters, native.client), candidateOf(provider('gemini', true)), responsesCall);
    expect(native.urls).toEqual(['http://native.test/responses']);
    expect(answer).toMatchObject({ object: 'response', model: 'router/frontier' });

    const chat = fakeClient({ candidates: [{ content: { role: 'model', parts: [{ text: 'hi' }] }, finishReason: 'STOP' }] });
    await completeResponsesAttempt(deps(adapters, chat.client), candidateOf(provider('gemini', false)), responsesCall);
    expect(chat.urls[0]).toContain(':generateContent');
  });

  it('sends the OpenAI-compatible host’s native Responses to its /responses, and its chat otherwise', async () => {
    const native = fakeClient({ object: 'response', id: 'resp_1', model: 'upstream-model', output: [] });
    await completeResponsesAttempt(deps(createAdapterRegistry(clock), native.client), candidateOf(provider('openai', true)), responsesCall);
    expect(native.urls).toEqual(['http://upstream.test/v1/responses']);
    const chat = fakeClient({ id: 'c', object: 'chat.completion', created: 1, model: 'upstream-model', choices: [{ index: 0, message: { role: 'assistant', content: 'hi' }, finish_reason: 'stop' }] });
    await completeResponsesAttempt(deps(createAdapterRegistry(clock), chat.client), candidateOf(provider('openai', false)), responsesCall);
    expect(chat.urls).toEqual(['http://upstream.test/v1/chat/completions']);
  });
});
