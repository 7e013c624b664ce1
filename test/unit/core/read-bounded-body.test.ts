import type { IncomingMessage } from 'node:http';
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { readBoundedBody, type BodyReadErrors } from '../../../src/core/read-bounded-body.js';

class TooLarge extends Error {}
class Aborted extends Error {}
const ERRORS: BodyReadErrors = { tooLarge: () => new TooLarge(), aborted: () => new Aborted() };

/** A request body as a stream with headers, which is all the reader reads of an IncomingMessage. */
function upload(headers: Record<string, string> = {}) {
  // Not auto-destroyed at its end, as a request on a kept-alive connection is not: destroyed means the reader cut it.
  const stream = new PassThrough({ autoDestroy: false });
  return Object.assign(stream, { headers }) as PassThrough & IncomingMessage;
}

describe('readBoundedBody', () => {
  it('returns the whole body when it fits, however it was chunked', async () => {
    const req = upload();
    const read = readBoundedBody(req, 10, ERRORS);
    req.write('hello ');
    req.end('body');
    expect((await read).toString('utf8')).toBe('hello body');
  });

  it('refuses a declared Content-Length over the limit before reading any of it, and drains the rest', async () => {
    const req = upload({ 'content-length': '11' });
    await expect(readBoundedBody(req, 10, ERRORS)).rejects.toBeInstanceOf(TooLarge);
    req.end('01234567890');
    await new Promise((resolve) => req.once('end', resolve));
    expect(req.destroyed).toBe(false); // drained, not cut: the connection stays usable
    expect(req.listenerCount('data')).toBe(0);
  });

  it('refuses a chunked upload once it counts past the limit, without buffering the rest', async () => {
    const req = upload();
    const read = readBoundedBody(req, 10, ERRORS);
    req.write('0123456789');
    req.write('x');
    await expect(read).rejects.toBeInstanceOf(TooLarge);
    req.end('more that is thrown away');
    await new Promise((resolve) => req.once('end', resolve));
    expect(req.destroyed).toBe(false);
  });

  it('gives the aborted error when the upload is cut off half-way', async () => {
    const req = upload();
    const read = readBoundedBody(req, 10, ERRORS);
    req.write('0123');
    req.emit('aborted');
    await expect(read).rejects.toBeInstanceOf(Aborted);
  });
});
