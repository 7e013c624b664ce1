import { describe, expect, it } from 'vitest';
import { createSseDecoder, parseSseStream } from '../../../src/upstream/sse-decoder.js';
import type { SseEvent } from '../../../src/upstream/sse-event.js';

const encoder = new TextEncoder();

function decodeChunks(chunks: Uint8Array[]): SseEvent[] {
  const decoder = createSseDecoder();
  const events = chunks.flatMap((chunk) => decoder.push(chunk));
  return [...events, ...decoder.end()];
}

function decodeText(text: string): SseEvent[] {
  return decodeChunks([encoder.encode(text)]);
}

/** Mixed line endings, comments, named events, multi-line data, an id, retry, raw JSON and non-ASCII text. */
const FIXTURE =
  ': keep-alive\r\n\r\n' +
  'data: {"content":"héllo 👋 世界"}\n\n' +
  'event: response.output_text.delta\r\ndata: {"delta":"🎉"}\r\n\r\n' +
  'data: first line\rdata: second 世界\r\r' +
  'id: 42\nretry: 3000\ndata:no-space\n\n' +
  '{"error": {"code": 429,\n  "message": "Resource exhausted ✗"}}\n\n' +
  'data: [DONE]\n\n';

const FIXTURE_EVENTS: SseEvent[] = [
  { event: undefined, data: '{"content":"héllo 👋 世界"}' },
  { event: 'response.output_text.delta', data: '{"delta":"🎉"}' },
  { event: undefined, data: 'first line\nsecond 世界' },
  { event: undefined, data: 'no-space', id: '42' },
  { event: undefined, data: '', raw: '{"error": {"code": 429,\n  "message": "Resource exhausted ✗"}}' },
  { event: undefined, data: '[DONE]' },
];

describe('createSseDecoder framing', () => {
  it('parses the fixture stream into exactly the expected events', () => {
    expect(decodeText(FIXTURE)).toEqual(FIXTURE_EVENTS);
  });

  it('treats LF, CRLF and CR line endings alike', () => {
    const expected = [{ event: 'x', data: 'a\nb' }];
    expect(decodeText('event: x\ndata: a\ndata: b\n\n')).toEqual(expected);
    expect(decodeText('event: x\r\ndata: a\r\ndata: b\r\n\r\n')).toEqual(expected);
    expect(decodeText('event: x\rdata: a\rdata: b\r\r')).toEqual(expected);
  });

  it('strips exactly one space after the colon', () => {
    expect(decodeText('data:  two spaces\n\n')).toEqual([{ event: undefined, data: ' two spaces' }]);
    expect(decodeText('data:none\n\n')).toEqual([{ event: undefined, data: 'none' }]);
  });

  it('ignores comments and does not dispatch an event without data', () => {
    expect(decodeText(': ping\n\n:another\n\nevent: lonely\n\nretry: 10\n\n')).toEqual([]);
  });

  it('dispatches an empty data line as an event with empty data', () => {
    expect(decodeText('data:\n\n')).toEqual([{ event: undefined, data: '' }]);
  });

  it('resets event name and id after each dispatch', () => {
    expect(decodeText('event: a\nid: 1\ndata: x\n\ndata: y\n\n')).toEqual([
      { event: 'a', data: 'x', id: '1' },
      { event: undefined, data: 'y' },
    ]);
  });

  it('collects non-field lines into raw, alongside data of the same event', () => {
    expect(decodeText('data: d\n[{\n"k": 1}]\n\n')).toEqual([{ event: undefined, data: 'd', raw: '[{\n"k": 1}]' }]);
  });

  it('salvages a final event that lacks its blank line', () => {
    expect(decodeText('data: one\n\ndata: {"usage":1}\n')).toEqual([
      { event: undefined, data: 'one' },
      { event: undefined, data: '{"usage":1}' },
    ]);
    expect(decodeText('data: {"usage":1}')).toEqual([{ event: undefined, data: '{"usage":1}' }]);
  });

  it('salvages a bare JSON error that ends the body without a newline', () => {
    expect(decodeText('{"error":{"code":500}}')).toEqual([{ event: undefined, data: '', raw: '{"error":{"code":500}}' }]);
  });

  it('treats a CR ending one read and an LF starting the next as one line ending', () => {
    const events = decodeChunks([encoder.encode('data: a\r'), encoder.encode('\ndata: b\r\n\r\n')]);
    expect(events).toEqual([{ event: undefined, data: 'a\nb' }]);
  });

  it('keeps the CR/LF pairing across an empty read', () => {
    const events = decodeChunks([encoder.encode('data: a\r'), new Uint8Array(0), encoder.encode('\n\r\n')]);
    expect(events).toEqual([{ event: undefined, data: 'a' }]);
  });

  it('returns events as soon as their blank line arrives', () => {
    const decoder = createSseDecoder();
    expect(decoder.push(encoder.encode('data: a\n'))).toEqual([]);
    expect(decoder.push(encoder.encode('\ndata: b\n\ndata: c'))).toEqual([
      { event: undefined, data: 'a' },
      { event: undefined, data: 'b' },
    ]);
    expect(decoder.end()).toEqual([{ event: undefined, data: 'c' }]);
  });

  it('drops a leading byte order mark', () => {
    expect(decodeText('\uFEFFdata: x\n\n')).toEqual([{ event: undefined, data: 'x' }]);
  });
});

describe('createSseDecoder across read boundaries', () => {
  const bytes = encoder.encode(FIXTURE);

  it('yields identical events for a split at every byte boundary', () => {
    for (let cut = 1; cut < bytes.length; cut += 1) {
      const events = decodeChunks([bytes.subarray(0, cut), bytes.subarray(cut)]);
      expect(events, `split at byte ${cut}`).toEqual(FIXTURE_EVENTS);
    }
  });

  it('yields identical events when fed one byte at a time', () => {
    const chunks = Array.from(bytes, (byte) => Uint8Array.of(byte));
    expect(decodeChunks(chunks)).toEqual(FIXTURE_EVENTS);
  });

  it('yields identical events for pseudo-random three-way splits', () => {
    let seed = 7;
    const next = (limit: number): number => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed % limit;
    };
    for (let round = 0; round < 200; round += 1) {
      const [a, b] = [next(bytes.length), next(bytes.length)].sort((x, y) => x - y) as [number, number];
      const chunks = [bytes.subarray(0, a), bytes.subarray(a, b), bytes.subarray(b)];
      expect(decodeChunks(chunks), `splits at ${a}/${b}`).toEqual(FIXTURE_EVENTS);
    }
  });
});

describe('parseSseStream', () => {
  it('yields every event of an async byte stream, including a salvaged last one', async () => {
    async function* body(): AsyncGenerator<Uint8Array> {
      yield encoder.encode('data: 世');
      yield encoder.encode('界\n\nevent: done\n');
      yield encoder.encode('data: end');
    }
    const events: SseEvent[] = [];
    for await (const event of parseSseStream(body())) events.push(event);
    expect(events).toEqual([
      { event: undefined, data: '世界' },
      { event: 'done', data: 'end' },
    ]);
  });
});
