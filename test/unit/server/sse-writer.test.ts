import { createServer, type Server, type ServerResponse } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { SseWriter } from '../../../src/http/sse-writer.js';

/** A server whose one response is handed to `handle`, and a raw client socket that records each read. */
async function serveOnce(handle: (res: ServerResponse) => Promise<void>): Promise<{ server: Server; client: Socket; reads: Buffer[]; done: Promise<void> }> {
  let settle!: { resolve: () => void; reject: (error: unknown) => void };
  const done = new Promise<void>((resolve, reject) => (settle = { resolve, reject }));
  const server = createServer((_req, res) => void handle(res).then(settle.resolve, settle.reject));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const client = connect((server.address() as AddressInfo).port, '127.0.0.1');
  const reads: Buffer[] = [];
  client.on('data', (chunk: Buffer) => reads.push(chunk));
  client.write('GET / HTTP/1.1\r\nHost: x\r\n\r\n');
  return { server, client, reads, done };
}

describe('SseWriter', () => {
  const cleanups: Array<() => void> = [];
  afterEach(() => {
    for (const cleanup of cleanups.splice(0)) cleanup();
  });

  it('sends the headers and every event written in one tick in a single socket write', async () => {
    const writes: number[] = [];
    const { server, client, reads, done } = await serveOnce(async (res) => {
      // Node's one path to the socket's write/writev syscalls: counting its calls counts the syscalls.
      type WriteGeneric = (writev: boolean, data: unknown, encoding: string, cb: (error?: Error | null) => void) => unknown;
      const socket = res.socket as Socket & { _writeGeneric: WriteGeneric };
      const socketWrite = socket._writeGeneric.bind(socket);
      socket._writeGeneric = (writev, data, encoding, cb) => {
        writes.push(writev ? (data as unknown[]).length : 1);
        return socketWrite(writev, data, encoding, cb);
      };
      const writer = new SseWriter(res);
      writer.open({ 'x-router-provider': 'openai' });
      const sent = [writer.send({ n: 1 }), writer.send({ n: 2 }), writer.send({ n: 3 })];
      expect(writes).toEqual([]);
      await Promise.all(sent);
      await new Promise((resolve) => setImmediate(resolve));
      // One syscall (writev of headers + three frames), not four.
      expect(writes).toHaveLength(1);
      await writer.done();
      writer.end();
    });
    cleanups.push(() => client.destroy(), () => server.close());
    await done;
    await new Promise((resolve) => setTimeout(resolve, 50));
    const text = Buffer.concat(reads).toString('utf8');
    expect(text).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    expect(text).toContain('x-router-provider: openai');
    const frames = text.split('\r\n\r\n').slice(1).join('\r\n\r\n');
    expect(frames.match(/data: \{"n":\d\}/g)).toEqual(['data: {"n":1}', 'data: {"n":2}', 'data: {"n":3}']);
    expect(text).toContain('data: [DONE]');
  });

  it('hands the frames of one tick to the response as one chunk, and the rest with the end', async () => {
    const chunks: string[] = [];
    const { server, client, reads, done } = await serveOnce(async (res) => {
      const write = res.write.bind(res) as (chunk: string) => boolean;
      res.write = ((chunk: string) => {
        chunks.push(chunk);
        return write(chunk);
      }) as typeof res.write;
      const writer = new SseWriter(res);
      writer.open({});
      await Promise.all([writer.send({ n: 1 }), writer.send({ n: 2 }, 'delta')]);
      await new Promise((resolve) => setImmediate(resolve));
      expect(chunks).toEqual(['data: {"n":1}\n\nevent: delta\ndata: {"n":2}\n\n']);
      await writer.send({ n: 3 });
      await writer.done();
      writer.end();
      // Held in the same tick as the end: written by res.end, not by a write of their own.
      expect(chunks).toHaveLength(1);
    });
    cleanups.push(() => client.destroy(), () => server.close());
    await done;
    await new Promise((resolve) => setTimeout(resolve, 50));
    const text = Buffer.concat(reads).toString('utf8');
    expect(text).toContain('data: {"n":3}\n\ndata: [DONE]\n\n');
    expect(text.endsWith('0\r\n\r\n')).toBe(true);
  });

  it("keeps an event name on one line: a native upstream's event type cannot start an event of its own", async () => {
    const { server, client, reads, done } = await serveOnce(async (res) => {
      const writer = new SseWriter(res);
      writer.open({});
      await writer.send({ n: 1 }, 'response.output_text.delta\r\n\ndata: {"injected":true}\n\nevent: x');
      writer.end();
    });
    cleanups.push(() => client.destroy(), () => server.close());
    await done;
    await new Promise((resolve) => setTimeout(resolve, 50));
    const body = Buffer.concat(reads).toString('utf8');
    expect(body).toContain('event: response.output_text.delta data: {"injected":true} event: x\ndata: {"n":1}\n\n');
    expect(body).not.toContain('\ndata: {"injected"');
  });

  it('still waits for a slow reader to drain when the buffer is full, and finishes once it reads', async () => {
    const big = 'x'.repeat(256 * 1024);
    let paused = 0;
    const { server, client, reads, done } = await serveOnce(async (res) => {
      const writer = new SseWriter(res);
      writer.open({});
      for (let i = 0; i < 40; i++) {
        const before = Date.now();
        await writer.send({ i, big });
        paused += Date.now() - before;
      }
      await writer.done();
      writer.end();
    });
    cleanups.push(() => client.destroy(), () => server.close());
    client.pause();
    await new Promise((resolve) => setTimeout(resolve, 200));
    client.resume();
    await done;
    await new Promise((resolve) => setTimeout(resolve, 100));
    const text = Buffer.concat(reads).toString('utf8');
    expect(text.match(/"i":\d+/g)).toHaveLength(40);
    expect(text).toContain('data: [DONE]');
    // The writer waited while the client was not reading (10 MB cannot all sit in socket buffers).
    expect(paused).toBeGreaterThanOrEqual(100);
  });
});
