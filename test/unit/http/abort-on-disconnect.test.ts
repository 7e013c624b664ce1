import { getEventListeners } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createApp, eventHandler, toNodeListener } from 'h3';
import { Agent, request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { abortOnDisconnect } from '../../../src/http/abort-on-disconnect.js';

interface Served {
  signal: AbortSignal;
  /** Abort listeners on the signal while the request held one of its own (an upstream call's). */
  listenersDuring: number;
}

/**
 * A real node:http server running h3, whose handler takes the disconnect signal and holds a listener
 * on it while it works, as an upstream call does (upstream/upstream-call.ts), unless `hold` keeps the
 * answer back until the client leaves.
 */
async function startServer(deadline: AbortSignal) {
  const served: Served[] = [];
  const aborted: AbortSignal[] = [];
  const state = { entered: 0 };
  const app = createApp();
  app.use(
    '/work',
    eventHandler(async (event) => {
      state.entered += 1;
      const signal = abortOnDisconnect(event, deadline);
      // Asked twice for one request (count_tokens and the model call both may): the same signal.
      expect(abortOnDisconnect(event, deadline)).toBe(signal);
      const listener = () => aborted.push(signal);
      signal.addEventListener('abort', listener);
      try {
        if (event.path.includes('hold')) await new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }));
        served.push({ signal, listenersDuring: getEventListeners(signal, 'abort').length });
        return 'ok';
      } finally {
        signal.removeEventListener('abort', listener);
      }
    }),
  );
  const server = createServer(toNodeListener(app));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, served, aborted, state, origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

let server: Server | undefined;
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve));
  server = undefined;
});

describe('abortOnDisconnect: one signal per client connection', () => {
  it('serves every request of a keep-alive connection the same signal, and leaves no listener on it', async () => {
    const started = await startServer(new AbortController().signal);
    server = started.server;
    const oneConnection = new Agent({ connections: 1 });
    for (let i = 0; i < 20; i += 1) {
      const { body } = await request(`${started.origin}/work`, { dispatcher: oneConnection });
      expect(await body.text()).toBe('ok');
    }
    const signals = new Set(started.served.map((s) => s.signal));
    expect(started.served).toHaveLength(20);
    expect(signals.size).toBe(1);
    // Each request saw only its own listener: the earlier requests' were gone.
    expect(started.served.map((s) => s.listenersDuring)).toEqual(Array(20).fill(1));
    const [signal] = signals;
    expect(getEventListeners(signal!, 'abort')).toHaveLength(0);
    expect(signal!.aborted).toBe(false);
    await oneConnection.close();
  });

  it('gives another connection its own signal', async () => {
    const started = await startServer(new AbortController().signal);
    server = started.server;
    const first = new Agent({ connections: 1 });
    const second = new Agent({ connections: 1 });
    await (await request(`${started.origin}/work`, { dispatcher: first })).body.text();
    await (await request(`${started.origin}/work`, { dispatcher: second })).body.text();
    expect(started.served[0]!.signal).not.toBe(started.served[1]!.signal);
    await Promise.all([first.close(), second.close()]);
  });

  it('fires when the client leaves a request on a connection that served others before', async () => {
    const started = await startServer(new AbortController().signal);
    server = started.server;
    const oneConnection = new Agent({ connections: 1 });
    for (let i = 0; i < 3; i += 1) await (await request(`${started.origin}/work`, { dispatcher: oneConnection })).body.text();
    const leaving = new AbortController();
    const pending = request(`${started.origin}/work/hold`, { dispatcher: oneConnection, signal: leaving.signal });
    await expect.poll(() => started.state.entered).toBe(4);
    leaving.abort();
    await expect(pending).rejects.toThrow();
    await expect.poll(() => started.aborted.length).toBe(1);
    expect(started.aborted[0]).toBe(started.served[0]!.signal);
    await oneConnection.close();
  });

  it('fires for every connection with a request when the drain deadline passes, and at once after it', async () => {
    const deadline = new AbortController();
    const started = await startServer(deadline.signal);
    server = started.server;
    const agents = [new Agent({ connections: 1 }), new Agent({ connections: 1 })];
    const held = agents.map((dispatcher) => request(`${started.origin}/work/hold`, { dispatcher }).then(async ({ body }) => body.text()));
    await expect.poll(() => started.state.entered).toBe(2);
    deadline.abort();
    expect(await Promise.all(held)).toEqual(['ok', 'ok']);
    expect(started.aborted).toHaveLength(2);
    expect(started.aborted[0]).not.toBe(started.aborted[1]);
    // A connection first seen after the deadline gets a signal already aborted.
    const late = new Agent({ connections: 1 });
    await (await request(`${started.origin}/work`, { dispatcher: late })).body.text();
    expect(started.served.at(-1)!.signal.aborted).toBe(true);
    await Promise.all([...agents, late].map((agent) => agent.close()));
  });
});
