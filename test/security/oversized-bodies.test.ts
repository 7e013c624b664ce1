/**
 * A body past the limit, in any framing, gets 413 and nothing else: the process keeps serving, and a
 * stream another account has in flight finishes normally.
 */
import { connect } from 'node:net';
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

  it('cuts a client that ignores the 413 and keeps uploading, within bounds, and keeps serving', async () => {
    const target = new URL(router.baseURL);
    const socket = connect(Number(target.port), target.hostname);
    await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
    socket.write(
      ['POST /v1/chat/completions HTTP/1.1', 'Host: 127.0.0.1', 'User-Agent: router-tests/1.0', `Authorization: Bearer ${attacker.key}`, 'Content-Type: application/json', 'Transfer-Encoding: chunked', '', ''].join('\r\n'),
    );
    let received = '';
    socket.on('data', (data) => void (received += data.toString('latin1')));
    const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
    socket.on('error', () => undefined);
    const chunk = Buffer.concat([Buffer.from('10000\r\n'), Buffer.alloc(0x10000, 0x61), Buffer.from('\r\n')]);
    const startedAt = Date.now();
    let sent = 0;
    // Never ends the body: 100 MB unless the server cuts the connection first.
    while (!socket.destroyed && sent < 100 * 1024 * 1024) {
      if (!socket.write(chunk)) await new Promise((resolve) => socket.once('drain', resolve).once('close', resolve));
      sent += chunk.length;
    }
    await closed;
    expect(received).toMatch(/^HTTP\/1\.1 413 /);
    expect(sent).toBeLessThan(100 * 1024 * 1024);
    expect(Date.now() - startedAt).toBeLessThan(10_000);
    expect(router.exitCode()).toBeNull();
    expect((await fetch(`${router.url}/healthz`)).status).toBe(200);
  });
});
