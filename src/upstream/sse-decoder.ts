/**
 * The one Server-Sent Events parser of the router (WHATWG event-stream framing, wire-formats §7.1).
 * It sits on the hot path of every streamed token, so it works on strings with indexOf/slice instead of
 * per-byte loops or regexes over the buffer, and keeps only the unfinished last line between reads.
 */
import type { SseEvent } from './sse-event.js';

export interface SseDecoder {
  /** Feed one network read; returns the events it completed (often none, sometimes several). */
  push(bytes: Uint8Array): SseEvent[];
  /** The body ended cleanly: flush and return what is left (see `end` below for the salvage rule). */
  end(): SseEvent[];
}

const LF = 10;
const COLON = 58;
const SPACE = 32;

export function createSseDecoder(): SseDecoder {
  // One decoder per stream with {stream:true}: a multi-byte character split across reads is held back
  // until its last byte arrives instead of turning into U+FFFD. It also drops a leading BOM, as the spec asks.
  const decoder = new TextDecoder('utf-8');
  /** The unfinished last line; it never contains \r or \n. */
  let pending = '';
  /** The previous read ended with \r: a \n opening the next read belongs to the same line ending. */
  let skipLeadingLf = false;
  let eventName: string | undefined;
  let data: string | undefined;
  let id: string | undefined;
  let raw: string | undefined;

  function dispatch(out: SseEvent[]): void {
    if (data !== undefined || raw !== undefined) {
      const event: SseEvent = { event: eventName, data: data ?? '' };
      if (id !== undefined) event.id = id;
      if (raw !== undefined) event.raw = raw;
      out.push(event);
    }
    eventName = undefined;
    data = undefined;
    id = undefined;
    raw = undefined;
  }

  function handleLine(line: string, out: SseEvent[]): void {
    if (line.length === 0) return dispatch(out);
    if (line.charCodeAt(0) === COLON) return; // comment, e.g. `: keep-alive`
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = '';
    if (colon !== -1) value = line.charCodeAt(colon + 1) === SPACE ? line.slice(colon + 2) : line.slice(colon + 1);
    switch (field) {
      case 'data':
        data = data === undefined ? value : `${data}\n${value}`;
        return;
      case 'event':
        eventName = value;
        return;
      case 'id':
        id = value;
        return;
      case 'retry':
        return; // we never reconnect, so the reconnection delay means nothing here
      default:
        // quirk(gemini): a bare JSON error object can arrive inside a 200 stream, possibly pretty-printed
        // over several lines; the spec would drop these lines, we keep them for the translator to read.
        raw = raw === undefined ? line : `${raw}\n${line}`;
    }
  }

  function feed(text: string, out: SseEvent[]): void {
    if (skipLeadingLf && text.length > 0) {
      skipLeadingLf = false;
      if (text.charCodeAt(0) === LF) text = text.slice(1);
    }
    // `pending` holds no line break, so the search for the next one can start where the new text begins.
    const searchFrom = pending.length;
    const buffer = searchFrom === 0 ? text : pending + text;
    let lf = buffer.indexOf('\n', searchFrom);
    let cr = buffer.indexOf('\r', searchFrom);
    let start = 0;
    while (lf !== -1 || cr !== -1) {
      let lineEnd: number;
      let next: number;
      if (cr === -1 || (lf !== -1 && lf < cr)) {
        lineEnd = lf;
        next = lf + 1;
      } else {
        lineEnd = cr;
        next = cr + 1;
        if (next === buffer.length) skipLeadingLf = true;
        else if (buffer.charCodeAt(next) === LF) next += 1;
      }
      handleLine(buffer.slice(start, lineEnd), out);
      start = next;
      if (lf !== -1 && lf < start) lf = buffer.indexOf('\n', start);
      if (cr !== -1 && cr < start) cr = buffer.indexOf('\r', start);
    }
    pending = start === 0 ? buffer : buffer.slice(start);
  }

  return {
    push(bytes) {
      const out: SseEvent[] = [];
      feed(decoder.decode(bytes, { stream: true }), out);
      return out;
    },
    /**
     * The spec drops a final event that lacks its blank line. We dispatch it instead: `end()` is only
     * called on a clean end of body (a transport error never reaches it), and hosts that close right after
     * their last `data:` line would otherwise lose the finish or usage chunk. A truncated payload still
     * fails loudly in the translator's JSON.parse rather than vanishing here.
     */
    end() {
      const out: SseEvent[] = [];
      feed(decoder.decode(), out);
      if (pending.length > 0) handleLine(pending, out);
      pending = '';
      dispatch(out);
      return out;
    },
  };
}

/** Convenience over a byte stream (e.g. a fetch body): yields events as they complete. */
export async function* parseSseStream(body: AsyncIterable<Uint8Array>): AsyncGenerator<SseEvent> {
  const decoder = createSseDecoder();
  for await (const bytes of body) yield* decoder.push(bytes);
  yield* decoder.end();
}
