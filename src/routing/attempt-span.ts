/**
 * The client span of one upstream attempt (tracing on only): named and described by the GenAI
 * conventions (`chat {model}`, provider, model), with how the attempt ended in the router's words (served,
 * failed over and why, rejected by the upstream as the request's fault, unfit, skipped, aborted).
 * Reasons are error codes already reduced to one word; nothing the upstream wrote is copied in.
 */
import { isRouterError } from '../core/errors.js';
import { UpstreamStreamError } from '../upstream/upstream-failure.js';
import type { ProviderConfig } from '../config/types.js';
import type { UpstreamRequest } from '../upstream/upstream-request.js';
import { ERROR_TYPE, GEN_AI_OPERATION_NAME, GEN_AI_PROVIDER_NAME, GEN_AI_REQUEST_MODEL, HTTP_RESPONSE_STATUS_CODE, ROUTER, SERVER_ADDRESS, SERVER_PORT, genAiProviderName } from '../tracing/span-attributes.js';
import { injectTraceContext, SpanKind, SpanStatusCode, type RequestTrace, type ServedAnswer, type Span, type SpanScope } from '../tracing/tracing.js';
import { tokenUsageFromChat } from '../translators/chat-token-usage.js';
import type { ChatCompletionChunk } from '../formats/openai-chat.js';
import type { CommittedStream, MessagesStreamOutcome } from './committed-stream.js';
import type { MessagesStreamEvent } from '../formats/anthropic-messages.js';
import { UpstreamTransportError, type UpstreamClient, type UpstreamResponse } from '../upstream/upstream-client.js';
import { shouldFailOver } from './failover-policy.js';
import { AttemptFailed, CandidateUnfit, oneWord, type Candidate } from './attempt.js';

export function startAttemptSpan(parent: SpanScope, candidate: Candidate, number: number): SpanScope {
  return parent.request.startSpan(`chat ${candidate.target.model}`, SpanKind.CLIENT, {
    [GEN_AI_OPERATION_NAME]: 'chat',
    [GEN_AI_PROVIDER_NAME]: genAiProviderName(candidate.provider),
    [GEN_AI_REQUEST_MODEL]: candidate.target.model,
    [ROUTER.providerId]: candidate.provider.id,
    [ROUTER.credentialSource]: candidate.credentialSource,
    [ROUTER.attemptNumber]: number,
  }, parent);
}

/** A candidate passed over without a call (its circuit, or the account's key's circuit, is open). */
export function recordSkippedAttempt(parent: SpanScope, candidate: Candidate, number: number, reason: string): void {
  const { span } = startAttemptSpan(parent, candidate, number);
  span.setAttributes({ [ROUTER.attemptOutcome]: 'skipped', [ROUTER.failoverReason]: reason });
  span.end();
}

/** The attempt served: its span stays open while the answer streams; the request (or its stage) ends it. */
export function attemptServed(scope: SpanScope): void {
  scope.span.setAttribute(ROUTER.attemptOutcome, 'served');
  scope.request.holdServed(scope.span);
}

/**
 * One upstream call of an attempt with its span: the call carries the span's `traceparent` (and the
 * client's `tracestate`) to the provider, and the span gets the provider's host, status and time to
 * first byte (response headers).
 */
export async function sendInAttemptSpan(client: UpstreamClient, scope: SpanScope, provider: ProviderConfig, request: UpstreamRequest, signal: AbortSignal): Promise<UpstreamResponse> {
  const headers = { ...request.headers };
  injectTraceContext(scope, headers);
  const startedAt = performance.now();
  const response = await client.send(provider, { ...request, headers }, signal);
  const host = hostOf(provider.baseUrl);
  scope.span.setAttributes({
    [SERVER_ADDRESS]: host.address,
    [SERVER_PORT]: host.port,
    [HTTP_RESPONSE_STATUS_CODE]: response.status,
    [ROUTER.timeToFirstByteMs]: Math.round(performance.now() - startedAt),
  });
  return response;
}

const hosts = new Map<string, { address: string; port: number }>();

/** server.address and server.port of a provider's base URL (operator configuration), parsed once. */
function hostOf(baseUrl: string): { address: string; port: number } {
  let host = hosts.get(baseUrl);
  if (!host) {
    const url = new URL(baseUrl);
    host = { address: url.hostname, port: Number(url.port || (url.protocol === 'https:' ? 443 : 80)) };
    hosts.set(baseUrl, host);
  }
  return host;
}

/** Ends the span of an attempt that threw, classified as the failover loop will treat it. */
export function attemptThrew(span: Span, error: unknown, signal: AbortSignal): void {
  span.setAttributes(outcomeOf(error, signal));
  span.setStatus({ code: SpanStatusCode.ERROR });
  span.end();
}

function outcomeOf(error: unknown, signal: AbortSignal): Record<string, string | number> {
  if (signal.aborted) return { [ROUTER.attemptOutcome]: 'aborted', [ERROR_TYPE]: 'aborted' };
  if (error instanceof AttemptFailed || error instanceof UpstreamStreamError) {
    const { failure } = error;
    const transport = error instanceof AttemptFailed ? error.transport : undefined;
    const reason = oneWord(failure.code ?? failure.type);
    const failsOver = transport !== undefined || shouldFailOver(failure.status);
    return {
      [ROUTER.attemptOutcome]: failsOver ? 'failed' : 'rejected',
      [ERROR_TYPE]: reason,
      ...(transport ? {} : { [HTTP_RESPONSE_STATUS_CODE]: failure.status }),
      ...(failsOver ? { [ROUTER.failoverReason]: reason } : {}),
    };
  }
  if (error instanceof UpstreamTransportError) return { [ROUTER.attemptOutcome]: 'failed', [ERROR_TYPE]: error.reason, [ROUTER.failoverReason]: error.reason };
  if (error instanceof CandidateUnfit) {
    const code = oneWord(error.code);
    return { [ROUTER.attemptOutcome]: 'unfit', [ERROR_TYPE]: code, [ROUTER.failoverReason]: code };
  }
  if (isRouterError(error) && error.status < 500) return { [ROUTER.attemptOutcome]: 'refused', [ERROR_TYPE]: error.code };
  return { [ROUTER.attemptOutcome]: 'error', [ERROR_TYPE]: error instanceof Error ? error.name : 'error' };
}

/** What a chat answer says of itself, for its attempt span: the model that answered, why it stopped, its tokens. */
export function chatAnswer(answer: { model?: string; choices: ReadonlyArray<{ finish_reason: string | null }>; usage?: Parameters<typeof tokenUsageFromChat>[0] | null }, reasons: string[] = []): ServedAnswer {
  for (const choice of answer.choices) {
    const reason = choice.finish_reason ? oneWord(choice.finish_reason) : undefined;
    if (reason && !reasons.includes(reason)) reasons.push(reason);
  }
  return { ...(answer.model ? { model: answer.model } : {}), finishReasons: reasons, ...(answer.usage ? { usage: tokenUsageFromChat(answer.usage) } : {}) };
}

/**
 * A served chat stream's attempt span ends with the stream (its last chunk, an error, or the relay
 * letting go), with the model, finish reasons and usage its chunks reported.
 */
export function finishWithStream(request: RequestTrace, span: Span, stream: CommittedStream<ChatCompletionChunk>): CommittedStream<ChatCompletionChunk> {
  const reasons: string[] = [];
  const seen: ServedAnswer = { finishReasons: reasons };
  const see = (chunk: ChatCompletionChunk) => {
    const { model, usage } = chatAnswer(chunk, reasons);
    if (model) seen.model = model;
    if (usage) seen.usage = usage;
  };
  for (const chunk of stream.head) see(chunk);
  const finish = () => request.finishServed(span, seen);
  const tail = stream.tail;
  return {
    head: stream.head,
    tail: {
      async next() {
        try {
          const next = await tail.next();
          if (next.done) finish();
          else see(next.value);
          return next;
        } catch (error) {
          span.setStatus({ code: SpanStatusCode.ERROR });
          finish();
          throw error;
        }
      },
      async return(value?: unknown) {
        finish();
        return (await tail.return?.(value)) ?? { done: true, value: undefined };
      },
    },
  };
}

/**
 * A served Messages answer's stop reason for its attempt span (`gen_ai.response.finish_reasons`). The
 * span ends with the request, with the request's usage and served model (the ledger's figures): a
 * Message names the model the client asked for, not the upstream's.
 */
export function describeMessage(request: RequestTrace, span: Span, stopReason: string | null | undefined): void {
  if (stopReason) request.describeServed(span, { finishReasons: [oneWord(stopReason)] });
}

/** A served Messages stream: its `message_delta` events' stop reason goes on the attempt span as it passes. */
export function describeMessagesStream(request: RequestTrace, span: Span, stream: MessagesStreamOutcome): MessagesStreamOutcome {
  const see = (event: MessagesStreamEvent) => {
    if (event.type !== 'message_delta') return;
    const reason = (event.delta as { stop_reason?: unknown } | undefined)?.stop_reason;
    if (typeof reason === 'string') request.describeServed(span, { finishReasons: [oneWord(reason)] });
  };
  for (const event of stream.head) see(event);
  const tail = stream.tail;
  return {
    ...stream,
    tail: {
      async next() {
        const next = await tail.next();
        if (!next.done) see(next.value);
        return next;
      },
      return: async (value?: unknown) => (await tail.return?.(value)) ?? { done: true, value: undefined },
    },
  };
}
