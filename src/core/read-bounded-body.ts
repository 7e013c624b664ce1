/**
 * The one bounded reader of a request body, used by the /v1 body stage and by the account app's forms
 * and webhook: the body up to a limit, never buffered past it. Node's streams only (no h3), so both
 * sides may import it.
 */
import type { IncomingMessage } from 'node:http';

/** The errors a caller answers with, made once by the caller (no closure per request on the hot path). */
export interface BodyReadErrors {
  /** The body is larger than the limit (declared in Content-Length, or counted on a chunked upload). */
  tooLarge: () => Error;
  /** The upload was cut off half-way (the client left, or its framing broke). */
  aborted: () => Error;
}

/**
 * Past the limit, how much more of an upload is read and thrown away (and for how long) before the
 * connection is cut. Closing at once while the client is still sending makes its TCP stack reset the
 * connection, and many clients then never read the 413; lingering this long lets them.
 */
const LINGER_BYTES = 16 * 1024 * 1024;
const LINGER_MS = 5000;

/**
 * Reads the body up to `limitBytes`. Past it (declared, or counted on a chunked upload) it rejects with
 * `errors.tooLarge()` at once, so the caller's answer goes out while the rest of the upload is
 * discarded within bounds (discardRest); never buffered.
 */
export function readBoundedBody(req: IncomingMessage, limitBytes: number, errors: BodyReadErrors): Promise<Buffer> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limitBytes) {
    discardRest(req);
    return Promise.reject(errors.tooLarge());
  }
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const settle = (outcome: () => void) => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
      req.off('aborted', onError);
      outcome();
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size <= limitBytes) return void chunks.push(chunk);
      settle(() => {
        discardRest(req);
        reject(errors.tooLarge());
      });
    };
    const onEnd = () => settle(() => resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size)));
    // An upload cut off half-way ends in 'aborted' or an error.
    const onError = () => settle(() => reject(errors.aborted()));
    req.on('data', onData);
    req.once('end', onEnd);
    req.once('error', onError);
    req.once('aborted', onError);
  });
}

/**
 * Reads and drops the rest of an oversized upload: if it ends within LINGER_BYTES and LINGER_MS the
 * connection stays usable; otherwise the request (and with it the connection) is destroyed. Never
 * through `req.socket`, which Node sets to null once the response has released it.
 */
function discardRest(req: IncomingMessage): void {
  let discarded = 0;
  const cut = () => {
    stop();
    req.destroy();
  };
  const onData = (chunk: Buffer) => {
    discarded += chunk.length;
    if (discarded > LINGER_BYTES) cut();
  };
  const timer = setTimeout(cut, LINGER_MS);
  timer.unref();
  const stop = () => {
    clearTimeout(timer);
    req.off('data', onData);
    req.off('end', stop);
    req.off('close', stop);
  };
  req.on('data', onData);
  req.once('end', stop);
  req.once('close', stop);
  req.resume();
}
