/**
 * A stream committed to its client: what the upstream produced before the commit point, and the rest.
 * Apart from chat-attempts.ts and messages-attempts.ts, which use attempt-span.ts, so that attempt-span.ts
 * can name them without importing those back (no import cycles, .dependency-cruiser.cjs); both re-export
 * theirs, and importers keep naming them from there.
 */
import type { MessagesStreamEvent } from '../formats/anthropic-messages.js';

export interface CommittedStream<T> {
  /** Output produced before the commit point, to send first. */
  head: T[];
  /** The rest of the upstream stream; throws UpstreamStreamError or UpstreamTransportError mid-stream. */
  tail: AsyncIterator<T>;
}

export interface MessagesStreamOutcome {
  head: MessagesStreamEvent[];
  tail: AsyncIterator<MessagesStreamEvent>;
  /** The in-stream `error` event to send when the tail fails after the commit point. */
  fail(failure: { type: string; message: string }): MessagesStreamEvent[];
}
