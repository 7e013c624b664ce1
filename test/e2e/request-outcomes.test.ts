import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { RequestOutcome } from '../../src/http/request-outcome.js';
import {
  PROVIDER_KEYS,
  frontierOrder,
  pointProvidersAt,
  postV1,
  readSse,
  sdkClient,
  startFakes,
  startTestRouter,
  waitFor,
  type Fakes,
  type TestRouter,
} from './router-harness.js';

const HELLO = { model: 'router/frontier', messages: [{ role: 'user' as const, content: 'Say hello' }] };
const NO_BREAKER = (doc: any) => void (doc.circuitBreaker = { failureThreshold: 1000, cooldownMs: 1000 });

describe('request outcomes reported to observers (the seam for logs, the usage ledger and metrics)', () => {
  let fakes: Fakes;
  let router: TestRouter;
  let account: { accountId: string; key: string; keyId: string };
  const outcomes: RequestOutcome[] = [];
  /** The one outcome of the request with this id, once its response has closed. */
  const outcomeOf = async (requestId: string | null): Promise<RequestOutcome> => {
    await waitFor(() => outcomes.some((outcome) => outcome.requestId === requestId));
    const found = outcomes.filter((outcome) => outcome.requestId === requestId);
    expect(found).toHaveLength(1);
    return found[0]!;
  };

  beforeAll(async () => {
    fakes = await startFakes();
    router = await startTestRouter({
      patch: { providers: pointProvidersAt(fakes.urls, NO_BREAKER), routes: frontierOrder(['openai', 'anthropic', 'gemini']) },
      build: { observers: [{ onRequestFinished: (outcome) => void outcomes.push(outcome) }] },
    });
    account = await router.createAccount('pro', { providerKeys: { ...PROVIDER_KEYS } });
  });
  afterEach(() => fakes.reset());
  afterAll(async () => {
    await router.close();
    await fakes.close();
  });

  it('reports a served chat completion with its upstream, tokens and timings', async () => {
    const { response, data } = await sdkClient(router, account.key).chat.completions.create(HELLO).withResponse();
    const outcome = await outcomeOf(response.headers.get('x-request-id'));
    expect(outcome).toMatchObject({
      kind: 'model',
      endpoint: '/v1/chat/completions',
      accountId: account.accountId,
      keyId: account.keyId,
      routeId: 'router/frontier',
      admitted: true,
      counted: true,
      status: 200,
      errorCode: null,
      servedBy: { providerId: 'openai', upstreamModel: 'gpt-4.1', credentialSource: 'byok' },
      retryCount: 0,
      clientClosed: false,
    });
    expect(outcome.usage).toEqual({
      prompt: data.usage!.prompt_tokens,
      completion: data.usage!.completion_tokens,
      reasoning: data.usage!.completion_tokens_details?.reasoning_tokens ?? 0,
      cached: data.usage!.prompt_tokens_details?.cached_tokens ?? 0,
    });
    expect(outcome.attempts).toEqual([{ provider: 'openai', model: 'gpt-4.1', status: 200, error: null, latencyMs: expect.any(Number) }]);
    expect(outcome.firstByteMs).not.toBeNull();
    expect(outcome.firstByteMs!).toBeLessThanOrEqual(outcome.totalMs);
  });

  it('reports the failed attempt and the serving one of a request that failed over, and stream usage', async () => {
    fakes.openai.failNext({ kind: 'status', status: 503 });
    const response = await postV1(router, account.key, '/chat/completions', { ...HELLO, stream: true, stream_options: { include_usage: true } });
    const events = await readSse(response);
    const usageChunk = events.map((e) => (e.data === '[DONE]' ? null : JSON.parse(e.data))).find((chunk) => chunk?.usage);
    const outcome = await outcomeOf(response.headers.get('x-request-id'));
    expect(outcome.servedBy?.providerId).toBe('anthropic');
    expect(outcome.retryCount).toBe(1);
    expect(outcome.attempts.map((a) => [a.provider, a.status, a.error])).toEqual([
      ['openai', 503, expect.any(String)],
      ['anthropic', 200, null],
    ]);
    expect(outcome.usage?.prompt).toBe(usageChunk.usage.prompt_tokens);
    expect(outcome.usage?.completion).toBe(usageChunk.usage.completion_tokens);
  });

  it('reports a request no upstream served as uncounted, with every attempt', async () => {
    for (const fake of [fakes.openai, fakes.anthropic, fakes.gemini]) fake.failNext({ kind: 'status', status: 500 });
    const response = await postV1(router, account.key, '/chat/completions', HELLO);
    expect(response.status).toBe(502);
    const outcome = await outcomeOf(response.headers.get('x-request-id'));
    expect(outcome).toMatchObject({ status: 502, errorCode: 'all_upstreams_failed', admitted: true, counted: false, servedBy: null, usage: null, retryCount: 2 });
    expect(outcome.attempts.map((a) => a.provider)).toEqual(['openai', 'anthropic', 'gemini']);
  });

  it('reports a client that left before any upstream answered as 499 client_closed_request, given back', async () => {
    fakes.openai.setReply({ latencyMs: 2000 });
    const requestId = `left-early-${Date.now()}`;
    const controller = new AbortController();
    const sent = fetch(`${router.baseURL}/chat/completions`, {
      method: 'POST',
      signal: controller.signal,
      headers: { 'user-agent': 'router-tests/1.0', authorization: `Bearer ${account.key}`, 'content-type': 'application/json', 'x-request-id': requestId },
      body: JSON.stringify(HELLO),
    });
    await waitFor(() => fakes.openai.requests.length > 0);
    controller.abort();
    await expect(sent).rejects.toThrow();
    const outcome = await outcomeOf(requestId);
    expect(outcome).toMatchObject({ status: 499, errorCode: 'client_closed_request', clientClosed: true, admitted: true, counted: false, servedBy: null });
  });

  it('reports a Responses request with its tokens', async () => {
    const { response, data } = await sdkClient(router, account.key).responses.create({ model: 'router/frontier', input: 'Say hello' }).withResponse();
    const outcome = await outcomeOf(response.headers.get('x-request-id'));
    expect(outcome.endpoint).toBe('/v1/responses');
    expect(outcome.usage?.prompt).toBe(data.usage!.input_tokens);
    expect(outcome.usage?.completion).toBe(data.usage!.output_tokens);
  });

  it('reports an unauthenticated request without an account, and the model list as other traffic', async () => {
    const anonymous = await fetch(`${router.baseURL}/chat/completions`, { method: 'POST', headers: { 'user-agent': 'router-tests/1.0' }, body: '{}' });
    expect(await outcomeOf(anonymous.headers.get('x-request-id'))).toMatchObject({ status: 401, errorCode: 'missing_api_key', accountId: null, admitted: false, counted: false });
    const list = await fetch(`${router.baseURL}/models`, { headers: { 'user-agent': 'router-tests/1.0', authorization: `Bearer ${account.key}` } });
    expect(await outcomeOf(list.headers.get('x-request-id'))).toMatchObject({ kind: 'other', status: 200, accountId: account.accountId, admitted: false, counted: false });
  });
});
