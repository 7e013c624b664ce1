/**
 * A provider's answer as recorded in test/fixtures/providers/ (from its documentation or public SDK
 * fixtures, named in the file's `source`), for a fake to replay byte-for-byte in its own framing.
 */
import { readFileSync } from 'node:fs';

export interface RecordedAnswer {
  /** The non-stream response body. */
  json: unknown;
  /** The stream: `event` is the SSE event name where the provider sends one (Anthropic), absent otherwise (Gemini). */
  events: ReadonlyArray<{ event?: string; data: unknown }>;
}

const FIXTURES = new URL('../fixtures/providers/', import.meta.url);

/** Reads `test/fixtures/providers/<name>.json`, e.g. `anthropic/cache-write-1h`. */
export function loadRecorded(name: string): RecordedAnswer & { source: string } {
  return JSON.parse(readFileSync(new URL(`${name}.json`, FIXTURES), 'utf8')) as RecordedAnswer & { source: string };
}

/** The SSE bytes of a recorded stream, with the provider's line ending (Gemini frames with CRLF). */
export function recordedStream(answer: RecordedAnswer, lineEnd = '\n'): Buffer[] {
  return answer.events.map(({ event, data }) =>
    Buffer.from(`${event === undefined ? '' : `event: ${event}${lineEnd}`}data: ${JSON.stringify(data)}${lineEnd}${lineEnd}`),
  );
}
