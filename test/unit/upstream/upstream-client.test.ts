/**
 * The upstream client against a real HTTP server on loopback (its answers, failures and the caller's
 * abort), and the call's body queue against a controller that records what undici was told
 * (backpressure), where a socket's kernel buffers would make the pause unobservable.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Dispatcher } from 'undici';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { openaiContext } from '../providers/openai/openai-context.js';
import { UpstreamCall } from '../../../src/upstream/upstream-call.js';
import { createUpstreamClient, UpstreamTransportError, type UpstreamClient } from '../../../src/upstream/upstream-client.js';

type Route = (req: IncomingMessage, res: ServerResponse) => void;

let server: Server;
let origin: string;
let route: Route = (_req, res) => res.end();
/** Resolves when the server saw the current request's connection close (an abort reaching the upstream). */
let requestClosed: Promise<void>;
/** Every client a test made (one per call, so each call gets the timeouts it names), closed after it. */
const clients: UpstreamClient[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    requestClosed = new Promise((resolve) => res.on('close', resolve));
    route(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close()));
});

function newClient(): UpstreamClient {
  const client = createUpstreamClient({ connectionsPerProvider: 4 });
  clients.push(client);
  return client;
}

function provider(timeouts = { connectMs: 2000, firstByteMs: 2000, idleMs: 2000 }) {
  return openaiContext({ baseUrl: origin, timeouts }).provider;
}

function send(signal = new AbortController().signal, timeouts?: { connectMs: number; firstByteMs: number; idleMs: number }) {
  return newClient().send(provider(timeouts), { url: `${origin}/v1/chat/completions`, headers: { 'content-type': 'application/json' }, body: '{"model":"m"}' }, signal);
}

async function readChunks(body: AsyncIterable<Uint8Array>): Promise<string> {
  let text = '';
  for await (const chunk of body) text += Buffer.from(chunk).toString('latin1');
  return text;
}

async function transportFailure(promise: Promise<unknown>): Promise<UpstreamTransportError['reason']> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(UpstreamTransportError);
  return (error as UpstreamTransportError).reason;
}

describe('upstream client over HTTP', () => {
  it('answers the status, headers on demand and the whole body as UTF-8, split characters and a byte-order mark included', async () => {
    const text = '{"answer":"héllo 👋 世界"}';
    const bytes = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(text)]);
    route = (req, res) => {
      req.resume();
      res.writeHead(429, { 'content-type': 'application/json', 'retry-after': '7', 'set-cookie': ['a=1', 'b=2'] });
      // The emoji's four bytes cut across two writes.
      const cut = bytes.indexOf(0xf0) + 2;
      res.write(bytes.subarray(0, cut));
      setTimeout(() => res.end(bytes.subarray(cut)), 20);
    };
    const response = await send();
    expect(response.status).toBe(429);
    expect(response.headers.get('retry-after')).toBe('7');
    expect(response.headers.get('set-cookie')).toBe('a=1, b=2');
    expect(await response.text()).toBe(text);
  });

  it('hands a streamed body over chunk by chunk, in order, to its end', async () => {
    route = (req, res) => {
      req.resume();
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      let sent = 0;
      const timer = setInterval(() => {
        res.write(`data: ${sent}\n\n`);
        if (++sent === 5) {
          clearInterval(timer);
          res.end();
        }
      }, 5);
    };
    const response = await send();
    expect(await readChunks(response.body)).toBe('data: 0\n\ndata: 1\n\ndata: 2\n\ndata: 3\n\ndata: 4\n\n');
  });

  it('keeps what arrived before the reader asked, and reads a body once', async () => {
    route = (req, res) => {
      req.resume();
      res.end('{"all":"here"}');
    };
    const response = await send();
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(await response.text()).toBe('{"all":"here"}');
    expect(() => response.body[Symbol.asyncIterator]()).toThrow(/read once/);
  });

  it('aborts the upstream call when the reader stops before the end', async () => {
    route = (req, res) => {
      req.resume();
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('data: first\n\n');
      // Never ends on its own: only the client's abort closes it.
    };
    const response = await send();
    for await (const chunk of response.body) {
      expect(Buffer.from(chunk).toString()).toBe('data: first\n\n');
      break;
    }
    await requestClosed;
  });

  it("fails as aborted when the caller's signal fires before the headers, during the body, or before the call", async () => {
    route = (req) => req.resume(); // never answers
    const early = new AbortController();
    const pending = send(early.signal);
    setTimeout(() => early.abort(), 20);
    expect(await transportFailure(pending)).toBe('aborted');
    await requestClosed;

    route = (req, res) => {
      req.resume();
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('data: first\n\n');
    };
    const late = new AbortController();
    const response = await send(late.signal);
    const reading = readChunks(response.body);
    setTimeout(() => late.abort(), 20);
    expect(await transportFailure(reading)).toBe('aborted');
    await requestClosed;

    const gone = new AbortController();
    gone.abort();
    expect(await transportFailure(send(gone.signal))).toBe('aborted');
  });

  it('fails a body cut off half-way as a connection error, read whole or in chunks', async () => {
    route = (req, res) => {
      req.resume();
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': '100' });
      res.write('{"partial":');
      setTimeout(() => res.socket?.destroy(), 20);
    };
    expect(await transportFailure((await send()).text())).toBe('connection_error');
    expect(await transportFailure(readChunks((await send()).body))).toBe('connection_error');
  });

  it('tells a first-byte timeout from an idle one, and a refused connection from both', async () => {
    route = (req) => req.resume();
    expect(await transportFailure(send(undefined, { connectMs: 2000, firstByteMs: 100, idleMs: 2000 }))).toBe('first_byte_timeout');

    route = (req, res) => {
      req.resume();
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('data: first\n\n');
    };
    const response = await send(undefined, { connectMs: 2000, firstByteMs: 2000, idleMs: 100 });
    expect(await transportFailure(readChunks(response.body))).toBe('idle_timeout');

    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const refused = newClient().send(openaiContext({ id: 'gone', baseUrl: `http://127.0.0.1:${port}` }).provider, { url: `http://127.0.0.1:${port}/v1/chat/completions`, headers: {}, body: '{}' }, new AbortController().signal);
    expect(await transportFailure(refused)).toBe('connection_error');
  });
});

/** A dispatch controller that records whether undici was told to pause. */
function recordingController(): Dispatcher.DispatchController & { pauses: number; resumes: number } {
  let paused = false;
  return {
    pauses: 0,
    resumes: 0,
    aborted: false,
    reason: null,
    get paused() {
      return paused;
    },
    abort() {},
    pause() {
      paused = true;
      this.pauses++;
    },
    resume() {
      paused = false;
      this.resumes++;
    },
  };
}

describe('upstream call body queue', () => {
  const KB32 = Buffer.alloc(32 * 1024, 'a');

  async function startedCall(): Promise<{ call: UpstreamCall; controller: ReturnType<typeof recordingController> }> {
    const call = new UpstreamCall(new AbortController().signal, (error) => error as Error);
    const started = call.started();
    const controller = recordingController();
    call.onRequestStart(controller);
    call.onResponseStart(controller, 200, {});
    await started;
    return { call, controller };
  }

  it('pauses the socket past 64 KB nobody took, and resumes it once the reader took them', async () => {
    const { call, controller } = await startedCall();
    const chunks = call.body[Symbol.asyncIterator]();
    call.onResponseData(controller, KB32);
    expect(controller.paused).toBe(false);
    call.onResponseData(controller, KB32);
    expect(controller.paused).toBe(true);
    expect((await chunks.next()).value).toHaveLength(KB32.length);
    expect(controller.paused).toBe(false);
    expect(controller.resumes).toBe(1);
  });

  it('never pauses a reader of the whole body', async () => {
    const { call, controller } = await startedCall();
    const text = call.text();
    for (let i = 0; i < 8; i++) call.onResponseData(controller, KB32);
    call.onResponseEnd();
    expect(controller.pauses).toBe(0);
    expect(await text).toHaveLength(8 * KB32.length);
  });

  it('resumes a body paused before its reader chose to read it whole', async () => {
    const { call, controller } = await startedCall();
    call.onResponseData(controller, KB32);
    call.onResponseData(controller, KB32);
    expect(controller.paused).toBe(true);
    const text = call.text();
    expect(controller.paused).toBe(false);
    call.onResponseEnd();
    expect(await text).toHaveLength(2 * KB32.length);
  });
});
