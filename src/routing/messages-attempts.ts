/**
 * One attempt at a Messages API call against one candidate. A provider whose adapter has the `messages`
 * capability gets the body passed through and its answer relayed event by event, with the model
 * rewritten both ways; every other provider is asked for a chat completion (translators/messages/),
 * answered back as a Message or as the Messages stream grammar.
 */
import type { ChatCompletionChunk } from '../formats/openai-chat.js';
import type { MessagesRequest, MessagesResponse, MessagesStreamEvent } from '../formats/anthropic-messages.js';
import { chatCompletionToMessage, type MessageContext } from '../translators/messages/chat-to-message.js';
import { messagesRequestToChat } from '../translators/messages/messages-request-to-chat.js';
import { createMessagesStreamSynthesizer } from '../translators/messages/messages-stream-synthesizer.js';
import { randomResponseId } from '../translators/responses/random-response-id.js';
import type { NativeMessagesCapability, NativeMessagesHeaders } from '../providers/adapter.js';
import { UpstreamStreamError, truncatedStream } from '../upstream/upstream-failure.js';
import { adapterContext, adapterOf, commitWhen, completeChatAttempt, parseJsonBody, sendOrFail, streamChatAttempt, type AttemptDeps, type CommittedStream } from './chat-attempts.js';
import { synthesizeCommittedStream } from './synthesize-committed-stream.js';
import { AttemptFailed, type Candidate } from './failover.js';
import { translateStream } from './translate-stream.js';
import { withinCandidateLimit } from './output-limits.js';
import type { MessagesStreamOutcome } from './committed-stream.js';

export type { MessagesStreamOutcome };

export interface MessagesCall {
  request: MessagesRequest;
  /** The model name the client sees: the one it sent. */
  model: string;
  /** The client's Messages API headers, for a native upstream. */
  client: NativeMessagesHeaders;
  signal: AbortSignal;
}

function messageContext(call: MessagesCall): MessageContext {
  return { id: randomResponseId('msg'), model: call.model, stopSequences: call.request.stop_sequences };
}

export async function completeMessagesAttempt(deps: AttemptDeps, candidate: Candidate, call: MessagesCall): Promise<MessagesResponse> {
  const adapter = adapterOf(deps, candidate);
  const native = adapter.messages;
  if (native) {
    const request = native.buildRequest(withinCandidateLimit(deps.outputLimits, candidate, call.request, 'messages'), adapterContext(candidate, false), call.client);
    const reply = await sendOrFail(deps, adapter, candidate, request, call.signal);
    const message = parseJsonBody(await reply.text()) as MessagesResponse;
    if (typeof message !== 'object' || message === null || message.type !== 'message') {
      throw new AttemptFailed({ status: 502, type: 'server_error', code: 'invalid_upstream_response', message: `The ${native.upstreamName} upstream answered with a body that is not a message.` });
    }
    return { ...message, model: call.model };
  }
  const completion = await completeChatAttempt(deps, candidate, messagesRequestToChat({ ...call.request, stream: false }), call.signal);
  return chatCompletionToMessage(completion, messageContext(call));
}

export async function streamMessagesAttempt(deps: AttemptDeps, candidate: Candidate, call: MessagesCall): Promise<MessagesStreamOutcome> {
  const native = adapterOf(deps, candidate).messages;
  if (native) return relayNativeStream(deps, native, candidate, call);
  const chunks = await streamChatAttempt(deps, candidate, messagesRequestToChat({ ...call.request, stream: true }), call.signal);
  return synthesizeMessagesStream(call, chunks);
}

/** A committed chat stream as the Messages event stream of `call`. */
export function synthesizeMessagesStream(call: MessagesCall, chunks: CommittedStream<ChatCompletionChunk>): MessagesStreamOutcome {
  return synthesizeCommittedStream(createMessagesStreamSynthesizer(messageContext(call)), chunks);
}

/** Events before the first content: an upstream failing after these is still failed over. */
const PRELUDE = new Set(['message_start', 'ping']);

/**
 * A native Messages stream relayed event by event (unknown event types included), the model rewritten in
 * message_start. An `error` event fails the attempt before the commit point and ends the client's
 * stream with the router's own `error` event after it; a stream closed before message_stop is cut short.
 */
async function relayNativeStream(deps: AttemptDeps, native: NativeMessagesCapability, candidate: Candidate, call: MessagesCall): Promise<MessagesStreamOutcome> {
  const request = native.buildRequest(withinCandidateLimit(deps.outputLimits, candidate, call.request, 'messages'), adapterContext(candidate, true), call.client);
  const reply = await sendOrFail(deps, adapterOf(deps, candidate), candidate, request, call.signal);
  let stopped = false;
  const events = translateStream<MessagesStreamEvent>(
    reply.eventBatches(),
    (event) => {
      if (stopped || event.data === '') return [];
      const json = parseJsonBody(event.data) as MessagesStreamEvent;
      // The `event:` name is what clients dispatch on; data.type repeats it.
      const type = event.event !== undefined && event.event !== 'message' ? event.event : json.type;
      if (type === 'error') throw new UpstreamStreamError(native.streamFailure(json.error));
      if (type === 'message_start') json.message = { ...(json.message as object), model: call.model };
      if (type === 'message_stop') stopped = true;
      return [{ ...json, type }];
    },
    () => {
      if (!stopped) throw truncatedStream(native.upstreamName);
      return [];
    },
  );
  const { head, tail } = await commitWhen(events, (event) => !PRELUDE.has(event.type));
  return { head, tail, fail: (failure) => [{ type: 'error', error: { type: failure.type, message: failure.message } }] };
}
