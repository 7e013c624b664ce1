/**
 * One attempt at an Anthropic Messages call against one candidate. Every upstream is asked for a chat
 * completion (translators/messages/), answered back as a Message or as Anthropic's stream grammar.
 */
import type { ChatCompletionChunk } from '../formats/openai-chat.js';
import type { MessagesRequest, MessagesResponse, MessagesStreamEvent } from '../formats/anthropic-messages.js';
import { chatCompletionToMessage, type MessageContext } from '../translators/messages/chat-to-message.js';
import { messagesRequestToChat } from '../translators/messages/messages-request-to-chat.js';
import { createMessagesStreamSynthesizer } from '../translators/messages/messages-stream-synthesizer.js';
import { randomResponseId } from '../translators/responses/random-response-id.js';
import { completeChatAttempt, streamChatAttempt, type AttemptDeps, type CommittedStream } from './chat-attempts.js';
import type { Candidate } from './failover.js';

export interface MessagesCall {
  request: MessagesRequest;
  /** The model name the client sees: the one it sent. */
  model: string;
  signal: AbortSignal;
}

export interface MessagesStreamOutcome {
  head: MessagesStreamEvent[];
  tail: AsyncIterator<MessagesStreamEvent>;
  /** The in-stream `error` event to send when the tail fails after the commit point. */
  fail(failure: { type: string; message: string }): MessagesStreamEvent[];
}

function messageContext(call: MessagesCall): MessageContext {
  return { id: randomResponseId('msg'), model: call.model };
}

export async function completeMessagesAttempt(deps: AttemptDeps, candidate: Candidate, call: MessagesCall): Promise<MessagesResponse> {
  const completion = await completeChatAttempt(deps, candidate, messagesRequestToChat({ ...call.request, stream: false }), call.signal);
  return chatCompletionToMessage(completion, messageContext(call));
}

export async function streamMessagesAttempt(deps: AttemptDeps, candidate: Candidate, call: MessagesCall): Promise<MessagesStreamOutcome> {
  const chunks = await streamChatAttempt(deps, candidate, messagesRequestToChat({ ...call.request, stream: true }), call.signal);
  return synthesizeMessagesStream(call, chunks);
}

/** A committed chat stream as the Messages event stream of `call`. */
export function synthesizeMessagesStream(call: MessagesCall, chunks: CommittedStream<ChatCompletionChunk>): MessagesStreamOutcome {
  const synthesizer = createMessagesStreamSynthesizer(messageContext(call));
  const head = [...synthesizer.start(), ...chunks.head.flatMap((chunk) => synthesizer.onChunk(chunk))];
  async function* rest(): AsyncGenerator<MessagesStreamEvent> {
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
