/**
 * A stream that the upstream ends cleanly but without its terminator (no finish reason, no [DONE], no
 * response.completed, no message_stop) is a truncated answer, and must never look complete to the
 * client: chat ends with the in-stream upstream_stream_interrupted error, Responses with response.failed.
 * Before the commit point the same truncation is an attempt failure, and the next candidate answers.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  PROVIDER_KEYS,
  frontierOrder,
  pointProvidersAt,
  postV1,
  readSse,
  startFakes,
  startTestRouter,
  type Fakes,
  type ProviderId,
  type RawSseEvent,
  type TestRouter,
} from './router-harness.js';

const NO_BREAKER = (doc: any) => void (doc.circuitBreaker = { failureThreshold: 1000, cooldownMs: 1000 });
const HELLO = { model: 'router/frontier', messages: [{ role: 'user', content: 'Say hello' }], stream: true };

/** After how many upstream events each fake's stream is cut: past the commit point, before the end. */
const CUT_AFTER: Record<ProviderId, number> = { openai: 3, anthropic: 5, gemini: 2 };
/** Cuts before anything worth sending: OpenAI's and Anthropic's role-only opening event; Gemini's first event already carries text. */
const CUT_BEFORE_OUTPUT: Record<ProviderId, number> = { openai: 1, anthropic: 1, gemini: 0 };
const ORDER: Record<ProviderId, ProviderId[]> = {
  openai: ['openai', 'anthropic', 'gemini'],
  anthropic: ['anthropic', 'gemini', 'openai'],
  gemini: ['gemini', 'openai', 'anthropic'],
};

const chunksOf = (events: RawSseEvent[]) => events.filter((e) => e.data !== '[DONE]').map((e) => JSON.parse(e.data));

describe.each(['openai', 'anthropic', 'gemini'] as const)('a %s stream that ends cleanly without its terminator', (provider) => {
  let fakes: Fakes;
  let router: TestRouter;
  let account: { key: string };
  const quotaUsed = async () => Number((await fetch(`${router.baseURL}/models`, { headers: { authorization: `Bearer ${account.key}`, 'user-agent': 'router-tests/1.0' } })).headers.get('x-quota-used'));

  beforeAll(async () => {
    fakes = await startFakes();
    router = await startTestRouter({ patch: { providers: pointProvidersAt(fakes.urls, NO_BREAKER), routes: frontierOrder(ORDER[provider]) } });
    account = await router.createAccount('pro', { providerKeys: { ...PROVIDER_KEYS } });
  });
  afterEach(() => fakes.reset());
  afterAll(async () => {
    await router.close();
    await fakes.close();
  });

  it('chat: ends with the in-stream upstream_stream_interrupted error, never an invented finish_reason, and costs no quota', async () => {
    fakes[provider].failNext({ kind: 'truncated-stream', afterEvents: CUT_AFTER[provider] });
    const before = await quotaUsed();
    const response = await postV1(router, account.key, '/chat/completions', HELLO);
    expect(response.status).toBe(200);
    expect(response.headers.get('x-router-upstream')).toBe(provider);
    const events = await readSse(response);
    const chunks = chunksOf(events);
    expect(chunks.some((chunk) => chunk.choices?.some((choice: { delta: { content?: string } }) => choice.delta.content))).toBe(true);
    expect(chunks.flatMap((chunk) => chunk.choices ?? []).map((choice: { finish_reason: string | null }) => choice.finish_reason).filter(Boolean)).toEqual([]);
    expect(chunks.at(-1)).toEqual({ error: expect.objectContaining({ code: 'upstream_stream_interrupted' }) });
    // An error finish: zero-completion insurance gives the unit back (docs/usage.md#zero-completion-insurance).
    expect(await quotaUsed()).toBe(before);
  });

  it('Responses: ends with response.failed, never response.completed', async () => {
    fakes[provider].failNext({ kind: 'truncated-stream', afterEvents: provider === 'openai' ? 6 : CUT_AFTER[provider] });
    const response = await postV1(router, account.key, '/responses', { model: 'router/frontier', input: 'Say hello', stream: true });
    expect(response.status).toBe(200);
    const types = (await readSse(response)).map((event) => event.event);
    expect(types).toContain('response.output_text.delta');
    expect(types).not.toContain('response.completed');
    expect(types.at(-1)).toBe('response.failed');
  });

  it('before the commit point: the next candidate answers the whole request', async () => {
    fakes[provider].failNext({ kind: 'truncated-stream', afterEvents: CUT_BEFORE_OUTPUT[provider] });
    const response = await postV1(router, account.key, '/chat/completions', HELLO);
    expect(response.headers.get('x-router-upstream')).toBe(ORDER[provider][1]);
    expect(response.headers.get('x-router-retry-count')).toBe('1');
    const events = await readSse(response);
    expect(events.at(-1)?.data).toBe('[DONE]');
    expect(chunksOf(events).flatMap((chunk) => chunk.choices ?? []).some((choice: { finish_reason: string | null }) => choice.finish_reason === 'stop')).toBe(true);
  });
});

describe.each([true, false])('a Responses stream still running at the drain deadline (native Responses: %s)', (nativeResponses) => {
  let fakes: Fakes;
  let router: TestRouter;

  beforeAll(async () => {
    fakes = await startFakes();
    const native = (doc: any) => {
      NO_BREAKER(doc);
      doc.providers.find((entry: { id: string }) => entry.id === 'openai').nativeResponses = nativeResponses;
    };
    router = await startTestRouter({ patch: { providers: pointProvidersAt(fakes.urls, native), routes: frontierOrder(['openai']) } });
  });
  afterAll(async () => {
    await router.close();
    await fakes.close();
  });

  it('ends with response.failed carrying server_shutting_down, the code docs/api.md names', async () => {
    const { key } = await router.createAccount('pro', { providerKeys: { ...PROVIDER_KEYS } });
    fakes.openai.setReply({ text: Array.from({ length: 20 }, (_, i) => `word${i}`).join(' '), eventDelayMs: 150 });
    const response = await postV1(router, key, '/responses', { model: 'router/frontier', input: 'Tell a long story', stream: true });
    expect(response.status).toBe(200);
    const reader = response.body!.getReader();
    const decoder = new TextDecoder();
    let text = '';
    while (!text.includes('response.output_text.delta')) text += decoder.decode((await reader.read()).value, { stream: true });
    router.server.runtime.drain.cut();
    for (let next = await reader.read(); !next.done; next = await reader.read()) text += decoder.decode(next.value, { stream: true });
    const events = text.split('\n\n').filter((block) => block.includes('data: ')).map((block) => JSON.parse(block.slice(block.indexOf('data: ') + 6)));
    const last = events.at(-1);
    expect(last.type).toBe('response.failed');
    expect(last.response.error.code).toBe('server_shutting_down');
    expect(last.response.status).toBe('failed');
  });
});
