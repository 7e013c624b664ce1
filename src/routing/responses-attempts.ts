/**
 * One attempt at a Responses API call against one candidate. Providers that serve `/responses`
 * natively (configured `nativeResponses`, with an adapter that has the `responses` capability) get the
 * body passed through (model rewritten both ways); every other provider is asked for a chat
 * completion, translated back into a Response object or a synthesized event stream.
 */
import { randomResponseId } from '../translators/responses/random-response-id.js';
import type { ResponseContext } from '../translators/responses/build-response-object.js';
import { chatCompletionToResponse } from '../translators/responses/chat-to-responses.js';
import { responsesRequestToChat } from '../translators/responses/responses-request-to-chat.js';
import {
  createResponsesStreamSynthesizer,
  type ResponsesStreamFailure,
} from '../translators/responses/responses-stream-synthesizer.js';
import type { ResponsesRequest } from '../formats/openai-responses.js';
import type { NativeResponsesCapability } from '../providers/adapter.js';
import { truncatedStream } from '../upstream/upstream-failure.js';
import type { Clock } from '../core/clock.js';
import {
  adapterContext,
  adapterOf,
  commitWhen,
  completeChatAttempt,
  parseJsonBody,
  sendOrFail,
  streamChatAttempt,
  type AttemptDeps,
  type CommittedStream,
} from './chat-attempts.js';
import { synthesizeCommittedStream } from './synthesize-committed-stream.js';
import type { ChatCompletionChunk, ChatRequest } from '../formats/openai-chat.js';
import { withCacheBreakpoints } from './prompt-cache-breakpoints.js';
import { AttemptFailed, type Candidate } from './failover.js';
import { translateStream } from './translate-stream.js';
import { withinCandidateLimit } from './output-limits.js';

/** A Responses stream event as sent to the client (`event:` is its `type`). */
export interface ResponsesOutEvent {
  type: string;
  sequence_number?: number;
  response?: unknown;
}

export type ResponsesOutcome = Record<string, unknown>;

export interface ResponsesStreamOutcome {
  head: ResponsesOutEvent[];
  tail: AsyncIterator<ResponsesOutEvent>;
  /** The terminal event(s) to send when the tail fails after the commit point. */
  fail(failure: ResponsesStreamFailure): ResponsesOutEvent[];
}

export interface ResponsesCall {
  request: ResponsesRequest;
  /** The model name the client sees: its route profile. */
  model: string;
  signal: AbortSignal;
  /** The route's `promptCaching: auto`: breakpoints on the translated chat request (prompt-cache-breakpoints.ts). */
  cacheBreakpoints?: boolean;
}

type Deps = AttemptDeps & { clock: Clock };

/** The candidate's native Responses pass-through, when its provider is configured for one and its adapter has one. */
function nativeResponses(deps: AttemptDeps, candidate: Candidate): NativeResponsesCapability | undefined {
  return candidate.provider.nativeResponses ? adapterOf(deps, candidate).responses : undefined;
}

export function responseContext(deps: { clock: Clock }, call: ResponsesCall): ResponseContext {
  return {
    responseId: randomResponseId('resp'),
    model: call.model,
    request: call.request,
    createdAt: Math.floor(deps.clock.now() / 1000),
    clock: deps.clock,
    newId: randomResponseId,
  };
}

export async function completeResponsesAttempt(deps: Deps, candidate: Candidate, call: ResponsesCall): Promise<ResponsesOutcome> {
  const native = nativeResponses(deps, candidate);
  if (native) {
    const request = native.buildRequest(withinCandidateLimit(deps.outputLimits, candidate, call.request as unknown as Record<string, unknown>, 'responses'), adapterContext(candidate, false));
    const reply = await sendOrFail(deps, adapterOf(deps, candidate), candidate, request, call.signal);
    return native.rewriteModel(parseJsonBody(await reply.text()) as ResponsesOutcome, call.model);
  }
  const completion = await completeChatAttempt(deps, candidate, asChat(deps, candidate, call, false), call.signal);
  return chatCompletionToResponse(completion, responseContext(deps, call)) as unknown as ResponsesOutcome;
}

export async function streamResponsesAttempt(deps: Deps, candidate: Candidate, call: ResponsesCall): Promise<ResponsesStreamOutcome> {
  const native = nativeResponses(deps, candidate);
  return native ? streamNative(deps, native, candidate, call) : streamSynthesized(deps, candidate, call);
}

async function streamSynthesized(deps: Deps, candidate: Candidate, call: ResponsesCall): Promise<ResponsesStreamOutcome> {
  const chunks = await streamChatAttempt(deps, candidate, asChat(deps, candidate, call, true), call.signal);
  return synthesizeResponsesStream(deps, call, chunks);
}

/** The request as a chat for this candidate, with `promptCaching: auto`'s breakpoints when its format reads them. */
function asChat(deps: Deps, candidate: Candidate, call: ResponsesCall, stream: boolean): ChatRequest {
  const chat = responsesRequestToChat({ ...call.request, stream });
  return call.cacheBreakpoints && adapterOf(deps, candidate).cacheBreakpoints ? withCacheBreakpoints(chat) : chat;
}

/** A committed chat stream as the Responses event stream of `call` (also fusion's writer stream). */
export function synthesizeResponsesStream(deps: { clock: Clock }, call: ResponsesCall, chunks: CommittedStream<ChatCompletionChunk>): ResponsesStreamOutcome {
  return synthesizeCommittedStream(createResponsesStreamSynthesizer(responseContext(deps, call)), chunks);
}

const PRELUDE = new Set(['response.created', 'response.in_progress', 'response.queued']);
/** The events that end a Responses stream; one of them must arrive before the upstream closes. */
const TERMINAL = new Set(['response.completed', 'response.incomplete', 'response.failed', 'error']);

async function streamNative(deps: Deps, native: NativeResponsesCapability, candidate: Candidate, call: ResponsesCall): Promise<ResponsesStreamOutcome> {
  const request = native.buildRequest(withinCandidateLimit(deps.outputLimits, candidate, call.request as unknown as Record<string, unknown>, 'responses'), adapterContext(candidate, true));
  const reply = await sendOrFail(deps, adapterOf(deps, candidate), candidate, request, call.signal);
  let lastSequence = -1;
  let lastResponse: Record<string, unknown> | undefined;
  let committed = false;
  let ended = false;
  const events = translateStream<ResponsesOutEvent>(
    reply.eventBatches(),
    (event) => {
      if (event.data === '' || event.data === '[DONE]') return [];
      const json = native.rewriteModel(parseJsonBody(event.data), call.model) as ResponsesOutEvent;
      if (!committed && (json.type === 'response.failed' || json.type === 'error')) {
        throw new AttemptFailed(native.streamFailure(json as unknown as Record<string, unknown>));
      }
      if (typeof json.sequence_number === 'number') lastSequence = json.sequence_number;
      if (json.response !== null && typeof json.response === 'object') lastResponse = json.response as Record<string, unknown>;
      if (TERMINAL.has(json.type)) ended = true;
      return [json];
    },
    () => {
      // A stream that closed before its terminal event is cut short: the client gets response.failed.
      if (!ended) throw truncatedStream('upstream');
      return [];
    },
  );
  const { head, tail } = await commitWhen(events, (event) => !PRELUDE.has(event.type));
  committed = true;
  return {
    head,
    tail,
    fail: (failure) => [
      {
        type: 'response.failed',
        sequence_number: lastSequence + 1,
        response: { ...lastResponse, model: call.model, status: 'failed', error: { code: failure.code, message: failure.message } },
      },
    ],
  };
}
