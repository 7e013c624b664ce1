/** A whole SSE body as events, through the router's one SSE parser; framing faults are reported, not guessed around. */
import { createSseDecoder } from '../../upstream/sse-decoder.js';
import type { SseEvent } from '../../upstream/sse-event.js';

export function readSseBody(text: string): { events: SseEvent[]; unframed: boolean } {
  const decoder = createSseDecoder();
  const events = [...decoder.push(new TextEncoder().encode(text)), ...decoder.end()];
  // Text outside `field: value` lines, or a body that does not end its last event with a blank line.
  const unframed = events.some((event) => event.raw !== undefined) || !/\n\n$/.test(text);
  return { events, unframed };
}
