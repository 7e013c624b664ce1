/**
 * The one way a committed stream reaches a client, whatever its API (the encoder) and whoever produced
 * it (a single model's failover, or fusion's writer): start it (behind keep-alive comments when it may
 * take long), send the status and routing headers unless keep-alives already did, relay every item
 * through the encoder, report a mid-stream failure in the encoder's own shape, write its terminator.
 */
import { isRouterError } from '../../core/errors.js';
import type { RoutedMeta } from '../../routing/failover.js';
import { routingHeaders } from '../routes/routing-headers.js';
import type { ClientStreamEncoder, CommittedItems } from './client-stream-encoder.js';
import { INTERRUPTED_CODE, relayCommittedStream } from './relay-committed-stream.js';

export interface StreamServing {
  /** The instance's drain deadline: a stream still running then ends with the encoder's failure. */
  stopped: AbortSignal;
  /**
   * Set when starting may take long (fusion's panel and judge, of which nothing reaches the client):
   * an SSE comment every this many ms keeps proxies and clients from timing out.
   */
  keepAliveMs?: number;
}

/**
 * Serves the stream `start` commits. A failure before the commit point is thrown for the pipeline's
 * error response, unless keep-alives opened the stream: then it is reported in-band first.
 */
export async function serveClientStream<Item, Stream extends CommittedItems<Item>>(
  encoder: ClientStreamEncoder<Item, Stream>,
  start: () => Promise<{ value: Stream; meta: RoutedMeta }>,
  serving: StreamServing,
): Promise<void> {
  const { writer, record, clock } = encoder.target;
  const { value: stream, meta } = serving.keepAliveMs === undefined ? await start() : await startBehindKeepAlive(encoder, start, serving.keepAliveMs);
  record.served = meta;
  if (!writer.opened) writer.open(routingHeaders(meta));
  record.firstByteAt = clock.now();
  const failure = await relayCommittedStream(writer, stream, encoder, serving.stopped);
  if (failure) {
    record.errorCode = failure.code ?? INTERRUPTED_CODE;
    await encoder.failure(failure, stream);
  }
  await encoder.terminator(failure === undefined);
  writer.end();
}

/**
 * The stream opens at the first keep-alive, so an answer that starts sooner still gets its status and
 * routing headers (X-Router-Upstream) as usual; one that needed keep-alives names its upstream in the
 * body only (fusion's `router` object).
 */
async function startBehindKeepAlive<Item, Stream extends CommittedItems<Item>, Started>(
  encoder: ClientStreamEncoder<Item, Stream>,
  start: () => Promise<Started>,
  intervalMs: number,
): Promise<Started> {
  const { writer, record } = encoder.target;
  const timer = setInterval(() => {
    if (!writer.opened) writer.open({});
    void writer.comment('keep-alive');
  }, intervalMs);
  try {
    return await start();
  } catch (error) {
    // No keep-alive may slip in between the in-band error and the end.
    clearInterval(timer);
    if (writer.opened) {
      if (isRouterError(error)) {
        record.errorCode = error.code;
        await encoder.error(error);
        await encoder.terminator(false);
      }
      writer.end();
    }
    // Re-thrown for the pipeline's accounting, which sends nothing more once the headers are out.
    throw error;
  } finally {
    clearInterval(timer);
  }
}
