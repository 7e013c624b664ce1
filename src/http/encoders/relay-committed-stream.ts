import { UpstreamStreamError, type UpstreamFailure } from '../../upstream/upstream-failure.js';
import { hasBufferedItems, NOT_BUFFERED } from '../../routing/translate-stream.js';
import type { SseWriter } from '../sse-writer.js';
import type { CommittedItems } from './client-stream-encoder.js';

export const INTERRUPTED_CODE = 'upstream_stream_interrupted';

const INTERRUPTED: UpstreamFailure = {
  status: 502,
  type: 'upstream_error',
  code: INTERRUPTED_CODE,
  message: 'The upstream connection failed mid-stream.',
};

const SHUT_DOWN: UpstreamFailure = {
  status: 503,
  type: 'server_error',
  code: 'server_shutting_down',
  message: 'This router instance shut down before the answer was complete. Retry; another instance will answer.',
};

/** Upstream codes a Responses stream passes on in `response.failed`: Codex acts on these (insufficient_quota: it stops retrying). */
const UPSTREAM_CODES_KEPT: ReadonlySet<string> = new Set(['rate_limit_exceeded', 'context_length_exceeded', 'insufficient_quota']);

/**
 * The code a Responses stream's `response.failed` carries for a failure after the commit point: the
 * drain's own `server_shutting_down`, as docs/api.md promises (a client may retry at once, elsewhere),
 * one of the upstream codes Codex acts on, or `server_error`.
 */
export function responsesFailureCode(failure: UpstreamFailure): string {
  if (failure === SHUT_DOWN) return 'server_shutting_down';
  return failure.code !== null && UPSTREAM_CODES_KEPT.has(failure.code) ? failure.code : 'server_error';
}

/**
 * Sends a committed stream: its head, then its tail until it ends or the client leaves; the upstream
 * is always released. Returns how the stream failed mid-way, if it did (the upstream, or the instance's
 * drain deadline, `stopped`, which aborts the upstream): the status is already sent, so the caller
 * reports it in-band, in its format's own error shape.
 */
export async function relayCommittedStream<T>(
  writer: SseWriter,
  stream: CommittedItems<T>,
  encoder: { frame(item: T): Promise<void> | undefined },
  stopped: AbortSignal,
): Promise<UpstreamFailure | undefined> {
  try {
    // A frame the socket took at once returns undefined: awaiting that would still cost a promise and a
    // microtask turn per chunk, so only a frame waiting for the socket to drain is awaited.
    for (const item of stream.head) {
      const pending = encoder.frame(item);
      if (pending) await pending;
    }
    // Items the tail already holds are taken without awaiting (translate-stream.ts): a stream's chunks
    // come a dozen to a network read, and each await cost a promise, a result object and a microtask.
    const tail = stream.tail;
    const buffered = hasBufferedItems(tail) ? tail : undefined;
    for (;;) {
      let item = buffered ? buffered.takeBuffered() : NOT_BUFFERED;
      if (item === NOT_BUFFERED) {
        const next = await tail.next();
        if (next.done) break;
        item = next.value;
      }
      if (writer.closed) break;
      const pending = encoder.frame(item);
      if (pending) await pending;
    }
    return undefined;
  } catch (error) {
    if (stopped.aborted) return SHUT_DOWN;
    return error instanceof UpstreamStreamError ? error.failure : INTERRUPTED;
  } finally {
    await stream.tail.return?.(undefined);
  }
}
