/**
 * Writes Server-Sent Events to the client: headers once (at the commit point), every event as
 * serialized JSON (so model text can never inject events), with write backpressure.
 *
 * The events of one tick (those translated from one upstream read, often a dozen in one TCP segment)
 * are joined and leave as one chunk of the response, with the headers when they are the first: one
 * `res.write` and one syscall instead of one each. A `res.write` per event made three buffered writes
 * each (chunk size, data, CRLF) and was 13 KB of the 148 KB a stream allocated; one syscall per event
 * put `writeUtf8String` at 4.6% of the router's busy time. Nothing waits longer than the tick that
 * produced it, and what one tick may hold is bounded (FLUSH_AT_CHARS).
 */
import type { ServerResponse } from 'node:http';

const WRITTEN: Promise<void> = Promise.resolve();

/** Past this many characters held in one tick they are written at once, so backpressure still applies to a fast producer. */
const FLUSH_AT_CHARS = 16 * 1024;

export class SseWriter {
  #corked = false;
  #opened = false;
  /** Frames of this tick not yet handed to the response. */
  #pending = '';

  constructor(private readonly res: ServerResponse) {}

  open(headers: Record<string, string>): void {
    this.#opened = true;
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

  /** The status and headers are sent (a fusion request's keep-alives may open the stream before its answer commits). */
  get opened(): boolean {
    return this.#opened;
  }

  get closed(): boolean {
    return this.res.destroyed || this.res.writableEnded;
  }

  /**
   * `data: <json>` (chat) or `event: <name>\ndata: <json>` (Responses). Resolves once the client can take
   * more: at once, unless the response's buffer is full.
   */
  send(data: unknown, eventName?: string): Promise<void> {
    const frame = eventName === undefined ? `data: ${JSON.stringify(data)}\n\n` : `event: ${eventLine(eventName)}\ndata: ${JSON.stringify(data)}\n\n`;
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
    if (this.res.writableEnded) return;
    const rest = this.#pending;
    this.#pending = '';
    // Node uncorks fully on end: the headers, what this tick held and the terminating chunk leave together.
    if (rest === '') this.res.end();
    else this.res.end(rest);
  }

  /** Holds the headers and this tick's frames until the tick ends. */
  #corkForThisTick(): void {
    if (this.#corked) return;
    this.#corked = true;
    this.res.cork();
    process.nextTick(() => {
      this.#corked = false;
      if (!this.closed) this.#flush();
      this.res.uncork();
    });
  }

  /** Hands the held frames to the response; false when its buffer is full. */
  #flush(): boolean {
    const frames = this.#pending;
    if (frames === '') return !this.res.writableNeedDrain;
    this.#pending = '';
    return this.res.write(frames);
  }

  /**
   * Not an async function: a stream writes every event through here, and without backpressure one
   * shared settled promise costs far less than the two an async function makes per call.
   */
  private write(frame: string): Promise<void> {
    if (this.closed) return WRITTEN;
    this.#corkForThisTick();
    this.#pending += frame;
    const roomLeft = this.#pending.length < FLUSH_AT_CHARS ? !this.res.writableNeedDrain : this.#flush();
    if (roomLeft) return WRITTEN;
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

/**
 * An event name on one line: a native upstream's own event `type` is passed on as the name, and a line
 * break in it must not end the field and start an event of the upstream's making.
 */
function eventLine(name: string): string {
  return LINE_BREAK.test(name) ? name.replace(LINE_BREAKS, ' ') : name;
}

const LINE_BREAK = /[\r\n]/;
const LINE_BREAKS = /[\r\n]+/g;
