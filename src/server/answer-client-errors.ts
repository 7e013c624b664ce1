/**
 * Requests Node's HTTP parser refuses (NUL or obs-fold in a header, both Content-Length and
 * Transfer-Encoding, duplicate Content-Length, headers past 16 KiB, garbage instead of a request line)
 * and requests that time out before they are complete never reach h3. Node's default answer is a bare
 * status line; this one is the contract's JSON error with a request id, then the connection closes.
 */
import type { Server } from 'node:http';
import type { Duplex } from 'node:stream';
import type { ServerConfig } from '../config/types.js';
import { RouterError } from '../core/errors.js';
import { rawErrorResponse } from './send-error.js';
import { newRequestId } from './stages/request-id.js';

export function answerClientErrors(server: Server, config: ServerConfig, onRefused: (requestId: string, reason: string) => void): void {
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => {
    // Nothing can be answered on a connection that is gone or already carries a response.
    const answered = (socket as { _httpMessage?: { headersSent?: boolean } })._httpMessage?.headersSent === true;
    if (error.code === 'ECONNRESET' || !socket.writable || answered) {
      socket.destroy();
      return;
    }
    const requestId = newRequestId();
    onRefused(requestId, error.code ?? 'unknown');
    socket.end(rawErrorResponse(refusal(error.code), config, requestId));
  });
}

function refusal(code: string | undefined): RouterError {
  if (code === 'HPE_HEADER_OVERFLOW') {
    return new RouterError('request_header_too_large', 'The request line and headers are larger than the server accepts (16 KiB in all).');
  }
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT') {
    return new RouterError('request_timeout', 'The request was not completed in time. Send the whole request promptly, or retry.');
  }
  return new RouterError('invalid_request', 'The HTTP request is malformed (for example a control character or a folded line in a header, or conflicting Content-Length and Transfer-Encoding) and was not read.');
}
