/**
 * SIGTERM drains within shutdown.drainTimeoutMs: /readyz says `draining` at once, new requests get 503,
 * requests in flight finish if they can, a stream still running at the deadline ends with its in-stream
 * error event, counts settle, and the process exits 0. A second signal ends the remaining requests at once.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { json, postChat, type RawSseEvent } from '../e2e/router-harness.js';
import { jsonLogLines, startSpawnedRouter, usedThisMonth, type SpawnedRouter } from './process-harness.js';

const DRAIN_MS = 1500;
const UA = 'router-tests/1.0';
/**
 * Each test starts a router process, creates an account with the CLI and streams for seconds: 9 s on a
 * quiet 2-core VM, past vitest's 20 s on a loaded one (a fresh-clone CI run). The timings the tests
 * assert are measured from the signal, not bounded by this.
 */
const SPAWNED_TEST_MS = 60_000;

/** A stream that keeps going: 20 words, 300 ms apart (about 6 s). */
const LONG_REPLY = { text: Array.from({ length: 20 }, (_, i) => `word${i}`).join(' '), eventDelayMs: 300 };

/** Start a stream and resolve once its first event has arrived; `rest` resolves with every event. */
async function startStream(router: SpawnedRouter, key: string): Promise<{ rest: Promise<RawSseEvent[]> }> {
  const response = await fetch(`${router.baseURL}/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'user-agent': UA },
    body: JSON.stringify({ model: 'router/frontier', stream: true, messages: [{ role: 'user', content: 'Tell a long story' }] }),
  });
  expect(response.status).toBe(200);
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let text = '';
  while (!text.includes('\n\n')) {
    const { value, done } = await reader.read();
    if (done) break;
    text += decoder.decode(value, { stream: true });
  }
  const rest = (async () => {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      text += decoder.decode(value, { stream: true });
    }
    return text
      .split('\n\n')
      .filter((block) => block.startsWith('data: '))
      .map((block) => ({ data: block.slice('data: '.length) }));
  })();
  return { rest };
}


describe('graceful drain on SIGTERM (a spawned router)', () => {
  let router: SpawnedRouter | undefined;
  afterEach(async () => {
    await router?.close();
    router = undefined;
  });

  it('reports draining at once, refuses new work, lets short requests finish, ends a long stream with its error event at the deadline, and exits 0', async () => {
    router = await startSpawnedRouter({ patch: { server: (doc) => void (doc.shutdown = { drainTimeoutMs: DRAIN_MS }) } });
    const { accountId, key } = await router.account('pro');
    router.fakes.openai.setReply(LONG_REPLY);
    const long = await startStream(router, key);
    router.fakes.openai.setReply({ latencyMs: 400 });
    const short = postChat(router.baseURL, key);
    await new Promise((resolve) => setTimeout(resolve, 100));

    const signalledAt = Date.now();
    router.signal('SIGTERM');
    await new Promise((resolve) => setTimeout(resolve, 100));
    const ready = await fetch(`${router.url}/readyz`);
    expect(ready.status).toBe(503);
    expect((await json(ready)).status).toBe('draining');
    const refused = await postChat(router.baseURL, key);
    expect(refused.status).toBe(503);
    expect((await json(refused)).error).toMatchObject({ code: 'server_shutting_down', type: 'server_error' });
    expect(refused.headers.get('retry-after')).toBe('1');

    expect((await short).status).toBe(200);
    const events = await long.rest;
    const last = JSON.parse(events.at(-2)!.data);
    expect(last.error).toMatchObject({ code: 'server_shutting_down' });
    expect(events.at(-1)?.data).toBe('[DONE]');
    expect(await router.exited).toBe(0);
    const drainedIn = Date.now() - signalledAt;
    expect(drainedIn).toBeGreaterThanOrEqual(DRAIN_MS - 100);
    expect(drainedIn).toBeLessThan(DRAIN_MS + 5000);
    // The short request was served and counted; the stream the deadline cut off ended in an error event,
    // which zero-completion insurance gives back (docs/usage.md#zero-completion-insurance); the refused
    // one was never admitted.
    expect(usedThisMonth(router, accountId)).toBe(1);
    const logged = jsonLogLines(router.output()).map((line) => String(line.msg));
    expect(logged.some((msg) => msg.startsWith('SIGTERM received: draining'))).toBe(true);
    expect(logged.some((msg) => msg.startsWith('drain: ending 1 request(s) still in flight'))).toBe(true);
  }, SPAWNED_TEST_MS);

  it('a second SIGTERM ends the remaining streams at once, still with their error event, and exits 0', async () => {
    router = await startSpawnedRouter({ patch: { server: (doc) => void (doc.shutdown = { drainTimeoutMs: 60_000 }) } });
    const { key } = await router.account('pro');
    router.fakes.openai.setReply(LONG_REPLY);
    const long = await startStream(router, key);
    const signalledAt = Date.now();
    router.signal('SIGTERM');
    await new Promise((resolve) => setTimeout(resolve, 200));
    router.signal('SIGTERM');
    const events = await long.rest;
    expect(JSON.parse(events.at(-2)!.data).error).toMatchObject({ code: 'server_shutting_down' });
    expect(await router.exited).toBe(0);
    expect(Date.now() - signalledAt).toBeLessThan(5000);
  }, SPAWNED_TEST_MS);
});
