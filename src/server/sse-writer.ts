/**
 * Writes Server-Sent Events to the client: headers once (at the commit point), every event as
 * serialized JSON (so model text can never inject events), with write backpressure.
 *
 * Writes are corked until the end of the current tick: the events translated from one upstream read
 * (often a dozen in one TCP segment) leave in one syscall instead of one each, and nothing waits longer
 * than the tick that produced it (one write per event: `writeUtf8String` alone was 4.6% of the
 * router's busy time on streams).
 */
import type { ServerResponse } from 'node:http';

const WRITTEN: Promise<void> = Promise.resolve();

export class SseWriter {
  #corked = false;

  constructor(private readonly res: ServerResponse) {}

  open(headers: Record<string, string>): void {
    this.#corkForThisTick();
    this.res.writeHead(200, {
      ...headers,
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache',
      // No Connection header of our own: Node keeps HTTP/1.1 connections alive unless the client (or a
      // draining server) asked for close, and a hard-coded keep-alive overrode the client's close.
      'x-accel-buffering': 'no',
    });
    this.res.flushHeaders();
  }

  get closed(): boolean {
    return this.res.destroyed || this.res.writableEnded;
  }

  /**
   * `data: <json>` (chat) or `event: <name>\ndata: <json>` (Responses). Resolves once the client can take
   * more: at once, unless the response's buffer is full.
   */
  send(data: unknown, eventName?: string): Promise<void> {
    const frame = eventName === undefined ? `data: ${JSON.stringify(data)}\n\n` : `event: ${eventName}\ndata: ${JSON.stringify(data)}\n\n`;
    return this.write(frame);
  }

  /** A comment line (`: text`), which SSE clients ignore: keeps proxies and clients from timing out while nothing else is ready. */
  comment(text: string): Promise<void> {
    return this.write(`: ${text.replace(/[\r\n]+/g, ' ')}\n\n`);
  }

  /** The chat stream terminator. */
  done(): Promise<void> {
    return this.write('data: [DONE]\n\n');
  }

  end(): void {
    if (!this.res.writableEnded) this.res.end();
  }

  /** Holds writes until the tick ends; `end()` flushes at once (Node uncorks fully on end). */
  #corkForThisTick(): void {
    if (this.#corked) return;
    this.#corked = true;
    this.res.cork();
    process.nextTick(() => {
      this.#corked = false;
      this.res.uncork();
    });
  }

  /**
   * Not an async function: a stream writes every event through here, and without backpressure one
   * shared settled promise costs far less than the two an async function makes per call.
   */
  private write(frame: string): Promise<void> {
    if (this.closed) return WRITTEN;
    this.#corkForThisTick();
    if (this.res.write(frame)) return WRITTEN;
    return new Promise<void>((resolve) => {
      const settle = () => {
        this.res.off('drain', settle);
        this.res.off('close', settle);
        resolve();
      };
      this.res.on('drain', settle);
      this.res.on('close', settle);
    });
  }
}
