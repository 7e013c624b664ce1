/**
 * What an operator sees in the logs (JSON lines): one line per failed upstream attempt and per request
 * that did not end in a clean 2xx, circuit transitions, and nothing secret. Driven through HTTP.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/runtime/create-logger.js';
import {
  PROVIDER_KEYS,
  frontierOrder,
  pointProvidersAt,
  postV1,
  readSse,
  startFakes,
  startTestRouter,
  waitFor,
  type Fakes,
  type TestRouter,
} from './router-harness.js';

const PROMPT = 'operator-logs prompt that must never be logged';
const HELLO = { model: 'router/frontier', messages: [{ role: 'user', content: PROMPT }] };

describe('operator logs', () => {
  let fakes: Fakes;
  let router: TestRouter;
  let account: { accountId: string; key: string };
  const written: string[] = [];
  const lines = () => written.map((line) => JSON.parse(line) as Record<string, any>);
  const about = (requestId: string | null) => lines().filter((line) => line.requestId === requestId);

  beforeAll(async () => {
    fakes = await startFakes();
    const logger = createLogger({ level: 'info', format: 'json', isTerminal: false, write: (line) => void written.push(line) });
    router = await startTestRouter({
      patch: {
        providers: pointProvidersAt(fakes.urls, (doc) => void (doc.circuitBreaker = { failureThreshold: 2, cooldownMs: 200 })),
        routes: frontierOrder(['openai', 'anthropic']),
      },
      build: { logger },
    });
    account = await router.createAccount('pro', { providerKeys: { ...PROVIDER_KEYS } });
  });
  afterEach(() => fakes.reset());
  afterAll(async () => {
    await router.close();
    await fakes.close();
  });

  it('logs each failed attempt (provider, status or transport reason, latency) and the 502, as JSON lines', async () => {
    fakes.openai.failNext({ kind: 'status', status: 503 });
    fakes.anthropic.failNext({ kind: 'hang' });
    const response = await postV1(router, account.key, '/chat/completions', HELLO);
    expect(response.status).toBe(502);
    const requestId = response.headers.get('x-request-id');
    await waitFor(() => about(requestId).length >= 3);
    const [openai, anthropic, outcome] = about(requestId);
    expect(openai).toMatchObject({ level: 'warn', tag: 'router', provider: 'openai', upstreamStatus: 503, reason: 'overloaded', latencyMs: expect.any(Number) });
    expect(anthropic).toMatchObject({ level: 'warn', provider: 'anthropic', upstreamStatus: null, reason: 'first_byte_timeout' });
    expect(outcome).toMatchObject({ level: 'warn', status: 502, code: 'all_upstreams_failed', accountId: account.accountId, attempts: 2, counted: false });
    for (const line of about(requestId)) expect(Date.parse(line.time)).not.toBeNaN();
  });

  it('logs a 4xx outcome at info, and nothing for a clean 200', async () => {
    const ok = await postV1(router, account.key, '/chat/completions', HELLO);
    const bad = await postV1(router, account.key, '/chat/completions', { model: 'router/nope', messages: HELLO.messages });
    await waitFor(() => about(bad.headers.get('x-request-id')).length === 1);
    expect(about(bad.headers.get('x-request-id'))[0]).toMatchObject({ level: 'info', status: 404, code: 'unknown_model' });
    expect(about(ok.headers.get('x-request-id'))).toEqual([]);
  });

  it('logs a stream that failed after its 200 as a warning with its in-stream code', async () => {
    fakes.openai.failNext({ kind: 'mid-stream-disconnect', afterEvents: 3 });
    const response = await postV1(router, account.key, '/chat/completions', { ...HELLO, stream: true });
    await readSse(response);
    const requestId = response.headers.get('x-request-id');
    await waitFor(() => about(requestId).length === 1);
    expect(about(requestId)[0]).toMatchObject({ level: 'warn', status: 200, code: 'upstream_stream_interrupted', upstream: 'openai' });
  });

  it('logs when a circuit opens and when it closes again', async () => {
    fakes.openai.failNext({ kind: 'status', status: 500 }, 2);
    await postV1(router, account.key, '/chat/completions', HELLO);
    await postV1(router, account.key, '/chat/completions', HELLO);
    expect(lines().filter((line) => line.circuit === 'open' && line.provider === 'openai')).toHaveLength(1);
    await new Promise((resolve) => setTimeout(resolve, 250));
    await postV1(router, account.key, '/chat/completions', HELLO);
    expect(lines().filter((line) => line.circuit === 'closed' && line.provider === 'openai')).toHaveLength(1);
  });

  it('never logs the prompt, the router key or a provider key', () => {
    const text = written.join('\n');
    expect(text.length).toBeGreaterThan(0);
    for (const secret of [PROMPT, account.key, ...Object.values(PROVIDER_KEYS)]) expect(text).not.toContain(secret);
  });
});
