/**
 * A body past the limit, in any framing, gets 413 and nothing else: the process keeps serving, and a
 * stream another account has in flight finishes normally.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readSse } from '../e2e/router-harness.js';
import { postChunked, startSpawnedRouter, type SpawnedRouter } from './process-harness.js';

describe('oversized request bodies (a spawned router)', () => {
  let router: SpawnedRouter;
  let attacker: { key: string };
  let bystander: { key: string };

  beforeAll(async () => {
    router = await startSpawnedRouter();
    [attacker, bystander] = await Promise.all([router.account('free'), router.account('pro')]);
  });
  afterAll(async () => {
    await router?.close();
  });

  it('answers 413 to 11 MB and 30 MB chunked bodies, keeps serving, and lets an in-flight stream of another account finish', async () => {
    router.fakes.openai.setReply({ latencyMs: 1500 });
    const stream = fetch(`${router.baseURL}/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${bystander.key}`, 'content-type': 'application/json', 'user-agent': 'router-tests/1.0' },
      body: JSON.stringify({ model: 'router/frontier', stream: true, messages: [{ role: 'user', content: 'hi' }] }),
    }).then(readSse);
    stream.catch(() => undefined); // awaited below; a dead process must fail the assertion, not the run
    const headers = { authorization: `Bearer ${attacker.key}`, 'content-type': 'application/json', 'user-agent': 'router-tests/1.0' };
    for (const size of [11 * 1024 * 1024, 30 * 1024 * 1024]) {
      const answer = await postChunked(`${router.baseURL}/chat/completions`, headers, size);
      expect(answer.status).toBe(413);
      expect(JSON.parse(answer.body).error).toMatchObject({ code: 'request_too_large', type: 'invalid_request_error' });
      expect(answer.headers['x-request-id']).toMatch(/^req_/);
    }

    const events = await stream;
    expect(events.at(-1)?.data).toBe('[DONE]');
    expect(events.some((event) => event.data.includes('"error"'))).toBe(false);

    // Give a crash that would follow the 413 time to happen, then check the process still serves.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(router.exitCode()).toBeNull();
    expect((await fetch(`${router.url}/healthz`)).status).toBe(200);
    expect(router.output()).not.toMatch(/TypeError|uncaught/i);
  });
});
