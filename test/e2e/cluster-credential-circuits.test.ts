/**
 * Credential circuits in cluster mode (`listen.workers: 2`, the built router spawned on SQLite, memory
 * rate limits: the primary relays the circuits): a key the provider throttled through one worker is
 * skipped by the other too, without a failing call of its own, and another account's key is not.
 */
import type { Client } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jsonLogLines, oneConnectionPerWorker, startSpawnedRouter, type SpawnedRouter } from '../security/process-harness.js';
import { frontierOrder } from './router-harness.js';

const HEADERS = { 'content-type': 'application/json', 'user-agent': 'cluster-credential-tests/1.0' };

describe('credential circuits in cluster mode (two workers, two accounts)', { timeout: 120_000 }, () => {
  let router: SpawnedRouter;

  beforeAll(async () => {
    router = await startSpawnedRouter({ readyTimeoutMs: 40_000, env: { ROUTER_WORKERS: '2' }, patch: { routes: frontierOrder(['openai']) } });
    const deadline = Date.now() + 40_000;
    while (!jsonLogLines(router.output()).some((line) => String(line.msg).includes('with 2 workers')) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
  }, 90_000);
  afterAll(async () => {
    await router?.close();
  });

  async function chat(client: Client, key: string): Promise<{ status: number; retryAfter: string | undefined; skipped: boolean }> {
    const answer = await client.request({
      path: '/v1/chat/completions',
      method: 'POST',
      headers: { ...HEADERS, authorization: `Bearer ${key}` },
      body: JSON.stringify({ model: 'router/frontier', messages: [{ role: 'user', content: 'Say hello' }] }),
    });
    const body = (await answer.body.json()) as { error?: { attempts?: Array<{ skipped?: boolean }> } };
    return { status: answer.statusCode, retryAfter: answer.headers['retry-after'] as string | undefined, skipped: body.error?.attempts?.[0]?.skipped === true };
  }

  it("a throttle seen by one worker is honoured by the other, for that account's key only", async () => {
    const { key: throttled } = await router.account('pro', { openai: 'sk-test-openai-busy-1111' });
    const { key: other } = await router.account('pro', { openai: 'sk-test-openai-calm-2222' });
    const [first, second] = [...(await oneConnectionPerWorker(router)).values()] as [Client, Client];
    router.fakes.openai.failNext({ kind: 'status', status: 429, retryAfterSeconds: 60 });
    expect(await chat(first, throttled)).toEqual({ status: 429, retryAfter: '60', skipped: false });
    const calls = router.fakes.openai.requests.length;
    // The relay through the primary is one IPC hop each way: a moment, not a second.
    let answer = await chat(second, throttled);
    for (let i = 0; i < 20 && !answer.skipped; i++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      answer = await chat(second, throttled);
    }
    expect(answer).toMatchObject({ status: 429, skipped: true });
    expect(Number(answer.retryAfter)).toBeGreaterThan(50);
    // Only probes sent before the relay arrived reached the provider; once it did, none.
    const callsAfterRelay = router.fakes.openai.requests.length;
    expect(await chat(second, throttled)).toMatchObject({ status: 429, skipped: true });
    expect(router.fakes.openai.requests.length).toBe(callsAfterRelay);
    expect(callsAfterRelay - calls).toBeLessThanOrEqual(20);
    expect(await chat(second, other)).toMatchObject({ status: 200 });
    expect(await chat(first, other)).toMatchObject({ status: 200 });
    await Promise.all([first.close(), second.close()]);
  });
});
