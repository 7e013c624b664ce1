/**
 * A committed chat stream re-encoded as another API's event stream (Responses, Messages): the
 * synthesizer's opening events and the head's chunks at once, the rest as the tail is read, then its
 * closing events. Returning the tail early also returns the chat stream under it (the upstream is aborted).
 */
import type { ChatCompletionChunk } from '../formats/openai-chat.js';
import type { CommittedStream } from './chat-attempts.js';

export interface StreamSynthesizer<Event, Failure> {
  start(): Event[];
  onChunk(chunk: ChatCompletionChunk): Event[];
  finish(): Event[];
  /** The in-stream error events for a tail that fails after the commit point. */
  fail(failure: Failure): Event[];
}

export function synthesizeCommittedStream<Event, Failure>(
  synthesizer: StreamSynthesizer<Event, Failure>,
  chunks: CommittedStream<ChatCompletionChunk>,
): { head: Event[]; tail: AsyncGenerator<Event>; fail(failure: Failure): Event[] } {
  const head = [...synthesizer.start(), ...chunks.head.flatMap((chunk) => synthesizer.onChunk(chunk))];
  async function* rest(): AsyncGenerator<Event> {
    for (let next = await chunks.tail.next(); !next.done; next = await chunks.tail.next()) {
      yield* synthesizer.onChunk(next.value);
    }
    yield* synthesizer.finish();
  }
  const tail = rest();
  const close = tail.return.bind(tail);
  tail.return = async (value) => {
    await chunks.tail.return?.(undefined);
    return close(value);
  };
  return { head, tail, fail: (failure) => synthesizer.fail(failure) };
}
