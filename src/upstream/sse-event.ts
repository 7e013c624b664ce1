/** One dispatched Server-Sent Event, as parsed by upstream/sse-decoder.ts (the only SSE parser). */
export interface SseEvent {
  /** The `event:` field; undefined means the default `message`. */
  event: string | undefined;
  /** `data:` lines joined with `\n`. */
  data: string;
  id?: string;
  /**
   * Lines that were not SSE fields at all, joined with `\n`. quirk(gemini): an error can arrive as a bare
   * JSON object inside a 200 stream instead of a `data:` line; this is where it lands.
   */
  raw?: string;
}
