/**
 * Requests Node's HTTP server answers or drops below h3 get the contract's JSON error with a request id
 * instead, and `Connection: close`:
 * - what the parser refuses (NUL or obs-fold in a header, both Content-Length and Transfer-Encoding,
 *   duplicate Content-Length, a bad chunk size, an unknown method, headers past 16 KiB, garbage instead
 *   of a request line) and requests that time out before they are complete: a bare status line from Node;
 * - an HTTP/1.1 request without exactly one Host (RFC 9112 §3.2): a bare 400 from Node, which also lets
 *   a second Host through;
 * - `Expect` other than `100-continue`: a bare 417 from Node;
 * - CONNECT: Node destroys the socket without a word when nothing listens for it.
 */
import type { IncomingMessage, RequestListener, Server, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type { ServerConfig } from '../config/types.js';
import { RouterError } from '../core/errors.js';
import { isHeaderName } from './is-header-name.js';
import { errorBody, errorHeaders, rawErrorResponse } from './send-error.js';
import { newRequestId, requestIdOf } from './stages/request-id.js';

/** The methods the router serves anywhere (the API, the pages, the account app). */
const SERVED_METHODS = 'GET, HEAD, POST';

export type OnRefused = (requestId: string, reason: string) => void;

export function answerClientErrors(server: Server, config: ServerConfig, onRefused: OnRefused): void {
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => {
    // Nothing can be answered on a connection that is gone or already carries a response.
    const answered = (socket as { _httpMessage?: { headersSent?: boolean } })._httpMessage?.headersSent === true;
    if (error.code === 'ECONNRESET' || !socket.writable || answered) {
      socket.destroy();
      return;
    }
    const requestId = newRequestId();
    onRefused(requestId, error.code ?? 'unknown');
    socket.end(rawErrorResponse(parserRefusal(error.code), config, requestId));
  });
  // The router is no proxy. The socket is past the HTTP parser here, so the answer is written raw.
  server.on('connect', (req: IncomingMessage, socket: Duplex) => {
    const requestId = requestIdOf(req.headers['x-request-id']);
    onRefused(requestId, 'CONNECT');
    const refusal = new RouterError('method_not_allowed', `CONNECT is not supported: the router is not a proxy. It serves ${SERVED_METHODS}.`, { headers: { allow: SERVED_METHODS } });
    socket.on('error', () => socket.destroy());
    if (socket.writable) socket.end(rawErrorResponse(refusal, config, requestId));
    else socket.destroy();
  });
  // Emitted instead of 'request' for an Expect other than 100-continue; the body was not read.
  server.on('checkExpectation', (req: IncomingMessage, res: ServerResponse) => {
    const refusal =
      hostRefusal(req) ??
      new RouterError('expectation_failed', 'The Expect header asks for something the router cannot meet; only "100-continue" is understood. Drop the header and retry.');
    refuse(req, res, refusal, config, onRefused, 'Expect');
  });
}

/**
 * Wraps the app's listener so an HTTP/1.1 request without exactly one Host never reaches it (the
 * server must be created with `requireHostHeader: false`, or Node answers first with a bare 400).
 */
export function requireOneHost(listener: RequestListener, config: ServerConfig, onRefused: OnRefused): RequestListener {
  return (req, res) => {
    const refusal = hostRefusal(req);
    if (refusal) refuse(req, res, refusal, config, onRefused, 'Host');
    else listener(req, res);
  };
}

/** Why a request's Host is unacceptable, or undefined. HTTP/1.0 may omit it; nobody may send two. */
export function hostRefusal(req: Pick<IncomingMessage, 'httpVersionMajor' | 'httpVersionMinor' | 'headers' | 'rawHeaders'>): RouterError | undefined {
  const http11 = req.httpVersionMajor === 1 && req.httpVersionMinor >= 1;
  if (req.headers.host === undefined) {
    return http11 ? new RouterError('invalid_request', 'An HTTP/1.1 request must carry a Host header; add one naming the server (for example "Host: api.example.com").') : undefined;
  }
  let hosts = 0;
  // Node keeps the first of two Host headers in req.headers; only the raw list shows the second.
  for (let i = 0; i < req.rawHeaders.length; i += 2) {
    if (isHeaderName(req.rawHeaders[i] ?? '', 'host', 'Host') && ++hosts > 1) {
      return new RouterError('invalid_request', 'The request carries more than one Host header; send exactly one.');
    }
  }
  return undefined;
}

function refuse(req: IncomingMessage, res: ServerResponse, refusal: RouterError, config: ServerConfig, onRefused: OnRefused, reason: string): void {
  const requestId = requestIdOf(req.headers['x-request-id']);
  onRefused(requestId, reason);
  const body = JSON.stringify(errorBody(refusal, config));
  // The body, if any, was not read: the connection cannot carry another request.
  res.writeHead(refusal.status, { ...errorHeaders(refusal), 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), 'x-request-id': requestId, connection: 'close' });
  res.end(body);
}

/** The answer to a request the parser refused, by llhttp's error code. */
function parserRefusal(code: string | undefined): RouterError {
  switch (code) {
    case 'HPE_HEADER_OVERFLOW':
      return new RouterError('request_header_too_large', 'The request line and headers are larger than the server accepts (16 KiB in all).');
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return new RouterError('request_timeout', 'The request was not completed in time. Send the whole request promptly, or retry.');
    case 'HPE_INVALID_METHOD':
      return new RouterError('invalid_request', `The request method is not one HTTP defines. The router serves ${SERVED_METHODS}.`);
    case 'HPE_INVALID_VERSION':
      return new RouterError('invalid_request', 'The request line names an HTTP version the router does not speak; send HTTP/1.1.');
    case 'HPE_PAUSED_H2_UPGRADE':
      return new RouterError('invalid_request', 'HTTP/2 without TLS ("prior knowledge") is not spoken on this port; send HTTP/1.1.');
    case 'HPE_INVALID_CHUNK_SIZE':
    case 'HPE_CHUNK_EXTENSIONS_OVERFLOW':
    case 'HPE_INVALID_TRANSFER_ENCODING':
    case 'HPE_INVALID_CONTENT_LENGTH':
    case 'HPE_UNEXPECTED_CONTENT_LENGTH':
      return new RouterError('invalid_request', 'The request body is framed wrongly (a malformed chunk, an unsupported Transfer-Encoding, or a conflicting or malformed Content-Length) and was not read.');
    default:
      return new RouterError('invalid_request', 'The HTTP request is malformed (for example a control character or a folded line in a header, or a request line that is not HTTP) and was not read.');
  }
}
