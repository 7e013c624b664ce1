import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { NOT_BUFFERED, translateStream } from '../../../src/routing/translate-stream.js';
import type { SseEvent } from '../../../src/upstream/sse-event.js';

const event = (data: string): SseEvent => ({ event: undefined, data });

/** Batches as the upstream body would deliver them, recording whether the consumer released them. */
function upstream(batches: SseEvent[][]): { iterator: AsyncGenerator<SseEvent[]>; released: () => boolean; pulled: () => number } {
  let released = false;
  let pulled = 0;
  async function* body() {
    try {
      for (const batch of batches) {
        pulled += 1;
        yield batch;
      }
    } finally {
      released = true;
    }
  }
  return { iterator: body(), released: () => released, pulled: () => pulled };
}

async function drain<T>(iterator: AsyncIterator<T>): Promise<T[]> {
  const out: T[] = [];
  for (let next = await iterator.next(); !next.done; next = await iterator.next()) out.push(next.value);
  return out;
}

describe('translateStream', () => {
  it('gives the same items, in order, however the events are split into network reads', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.string({ maxLength: 6 }), { maxLength: 30 }),
        fc.array(fc.nat(5), { maxLength: 30 }),
        fc.array(fc.string({ maxLength: 3 }), { maxLength: 3 }),
        async (datas, cuts, closing) => {
          // Each event becomes 0–2 items depending on its text; the split into batches comes from `cuts`.
          const translate = (e: SseEvent) => (e.data.length % 3 === 0 ? [] : e.data.length % 3 === 1 ? [e.data] : [e.data, `${e.data}!`]);
          const batches: SseEvent[][] = [];
          let at = 0;
          for (const cut of cuts) {
            if (at >= datas.length) break;
            batches.push(datas.slice(at, at + cut).map(event));
            at += cut;
          }
          if (at < datas.length) batches.push(datas.slice(at).map(event));
          const got = await drain(translateStream(upstream(batches).iterator, translate, () => closing));
          expect(got).toEqual([...datas.map(event).flatMap(translate), ...closing]);
        },
      ),
    );
  });

  it('translates each event only when the consumer reaches it, as a generator would', async () => {
    const seen: string[] = [];
    const stream = translateStream(upstream([[event('a'), event('b'), event('c')]]).iterator, (e) => (seen.push(e.data), [e.data]), () => []);
    expect(await stream.next()).toEqual({ done: false, value: 'a' });
    expect(seen).toEqual(['a']);
    expect(await stream.next()).toEqual({ done: false, value: 'b' });
    expect(seen).toEqual(['a', 'b']);
  });

  it('delivers the items before a failing event, then the failure, then nothing more', async () => {
    const failure = new Error('upstream error event');
    const source = upstream([[event('a'), event('boom'), event('c')]]);
    const stream = translateStream(
      source.iterator,
      (e) => {
        if (e.data === 'boom') throw failure;
        return [e.data];
      },
      () => ['end'],
    );
    expect(await stream.next()).toEqual({ done: false, value: 'a' });
    await expect(stream.next()).rejects.toBe(failure);
    expect(await stream.next()).toEqual({ done: true, value: undefined });
  });

  it('passes a failure of the upstream body through, after what it delivered', async () => {
    const cut = new Error('connection reset');
    async function* broken() {
      yield [event('a')];
      throw cut;
    }
    const stream = translateStream(broken(), (e) => [e.data], () => ['end']);
    expect(await stream.next()).toEqual({ done: false, value: 'a' });
    await expect(stream.next()).rejects.toBe(cut);
  });

  it('releases the upstream body when the consumer returns early, without reading the rest', async () => {
    const source = upstream([[event('a')], [event('b')], [event('c')]]);
    const stream = translateStream(source.iterator, (e) => [e.data], () => []);
    expect(await stream.next()).toEqual({ done: false, value: 'a' });
    await stream.return!();
    expect(source.released()).toBe(true);
    expect(source.pulled()).toBe(1);
    expect(await stream.next()).toEqual({ done: true, value: undefined });
  });

  it('hands over what the last network read holds without an await, one event translated at a time, then asks for next()', async () => {
    const { iterator, pulled } = upstream([[event('a'), event('b'), event('c')], [event('d')]]);
    const translated: string[] = [];
    const items = translateStream(iterator, (e) => (translated.push(e.data), [e.data.toUpperCase()]), () => ['end']);
    expect(items.takeBuffered()).toBe(NOT_BUFFERED); // nothing read yet
    expect(await items.next()).toEqual({ done: false, value: 'A' });
    expect(items.takeBuffered()).toBe('B');
    expect(translated).toEqual(['a', 'b']); // lazily: 'c' is not translated before it is taken
    expect(items.takeBuffered()).toBe('C');
    expect(items.takeBuffered()).toBe(NOT_BUFFERED);
    expect(pulled()).toBe(1);
    expect(await drain(items)).toEqual(['D', 'end']);
  });

  it('throws from takeBuffered as next() would, and gives nothing more after', async () => {
    const { iterator } = upstream([[event('a'), event('bad'), event('c')]]);
    const items = translateStream(iterator, (e) => {
      if (e.data === 'bad') throw new Error('untranslatable');
      return [e.data];
    }, () => ['end']);
    expect(await items.next()).toEqual({ done: false, value: 'a' });
    expect(() => items.takeBuffered()).toThrow('untranslatable');
    expect(items.takeBuffered()).toBe(NOT_BUFFERED);
    expect(await items.next()).toEqual({ done: true, value: undefined });
  });
});
