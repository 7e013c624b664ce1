/**
 * The routing engine: route profile in, upstream answer out, with failover. It knows nothing of HTTP
 * servers or databases: credentials, clock, randomness and the upstream client are injected.
 */
import type { ChatCompletion, ChatCompletionChunk, ChatRequest } from '../formats/openai-chat.js';
import { completeChatAttempt, streamChatAttempt, type AttemptDeps, type CommittedStream } from './chat-attempts.js';
import { withCacheBreakpoints } from './prompt-cache-breakpoints.js';
import { cachePrefixKey, responsesCacheKey } from './sticky-routing.js';
import { runWithFailover, type FailoverCall, type FailoverDeps, type RoutedMeta } from './failover.js';
import type { ResponsesRequest } from '../formats/openai-responses.js';
import { chatAnswer, describeMessage, describeMessagesStream, finishWithStream } from './attempt-span.js';
import { testCredential, type CredentialTestOutcome } from './test-credential.js';
import { completeResponsesAttempt, streamResponsesAttempt, type ResponsesOutcome, type ResponsesStreamOutcome } from './responses-attempts.js';
import { completeMessagesAttempt, streamMessagesAttempt, type MessagesCall, type MessagesStreamOutcome } from './messages-attempts.js';
import type { MessagesResponse } from '../formats/anthropic-messages.js';
import { servingTargetsOf, countTokensAttempt, type CountTokensCall } from './count-tokens-attempt.js';
import { embeddingAttempt, rerankAttempt } from './embedding-attempts.js';
import type { EmbeddingCall, EmbeddingResult, RerankCall, RerankResult } from '../formats/embeddings.js';

import {
  completeFusion,
  completeWithFusionTool,
  fusionAccessProblem,
  streamFusion,
  type FusionResult,
  type FusionRun,
  type FusionToolRun,
  type FusionTrace,
} from './fusion/index.js';
import { RouterError } from '../core/errors.js';

export type RoutingEngineDeps = FailoverDeps & AttemptDeps;

export interface Routed<T> {
  value: T;
  meta: RoutedMeta;
}

export class RoutingEngine {
  constructor(private readonly deps: RoutingEngineDeps) {}

  /** Whether the provider's format reads `cache_control` breakpoints (ProviderAdapter.cacheBreakpoints). */
  readonly #readsBreakpoints = (providerId: string): boolean => {
    const provider = this.deps.providers.get(providerId);
    return provider !== undefined && this.deps.adapters[provider.format].cacheBreakpoints === true;
  };

  async completeChat(plain: FailoverCall, asked: ChatRequest): Promise<Routed<ChatCompletion>> {
    const { call, chat } = cachedPrefix(plain, asked, this.#readsBreakpoints);
    const routed = await runWithFailover(this.deps, call, (candidate) => completeChatAttempt(this.deps, candidate, chat, call.signal));
    if (routed.span) call.trace!.request.finishServed(routed.span, chatAnswer(routed.value));
    return routed;
  }

  async streamChat(plain: FailoverCall, asked: ChatRequest): Promise<Routed<CommittedStream<ChatCompletionChunk>>> {
    const { call, chat } = cachedPrefix(plain, asked, this.#readsBreakpoints);
    const routed = await runWithFailover(this.deps, call, (candidate) => streamChatAttempt(this.deps, candidate, chat, call.signal));
    if (routed.span) routed.value = finishWithStream(call.trace!.request, routed.span, routed.value);
    return routed;
  }

  completeResponses(plain: FailoverCall, request: ResponsesRequest): Promise<Routed<ResponsesOutcome>> {
    const { call, responsesCall } = cachedResponses(plain, request);
    return runWithFailover(this.deps, call, (candidate) => completeResponsesAttempt(this.deps, candidate, responsesCall));
  }

  /** A fusion route profile: panel, judge, writer (routing/fusion/). */
  completeFusion(run: FusionRun, chat: ChatRequest, trace: FusionTrace): Promise<FusionResult<ChatCompletion>> {
    return completeFusion(this.deps, run, chat, trace);
  }

  streamFusion(run: FusionRun, chat: ChatRequest, trace: FusionTrace): Promise<FusionResult<CommittedStream<ChatCompletionChunk>>> {
    return streamFusion(this.deps, run, chat, trace);
  }

  /** Why this account's keys cannot run a fusion profile at all (403 no_provider_access), or undefined when they can. */
  fusionAccessProblem(accountId: string, route: FusionRun['route']): Promise<RouterError | undefined> {
    return fusionAccessProblem(this.deps, accountId, route);
  }

  /** Any route profile with the `router:fusion` server tool. */
  completeWithFusionTool(run: FusionToolRun, chat: ChatRequest, trace: FusionTrace): Promise<FusionResult<ChatCompletion>> {
    return completeWithFusionTool(this.deps, run, chat, trace);
  }

  /** One cheap call with this credential to this provider, outside failover and health (the app's "test" button). */
  testCredential(providerId: string, model: string, credential: string, signal: AbortSignal): Promise<CredentialTestOutcome> {
    const provider = this.deps.providers.get(providerId);
    if (!provider) return Promise.resolve({ ok: false, status: null, reason: 'unknown_provider' });
    return testCredential(this.deps, provider, model, credential, signal);
  }

  streamResponses(plain: FailoverCall, request: ResponsesRequest): Promise<Routed<ResponsesStreamOutcome>> {
    const { call, responsesCall } = cachedResponses(plain, request);
    return runWithFailover(this.deps, call, (candidate) => streamResponsesAttempt(this.deps, candidate, responsesCall));
  }

  /** The Messages API over any upstream (messages-attempts.ts). */
  async completeMessages(call: FailoverCall, messages: Omit<MessagesCall, 'signal'>): Promise<Routed<MessagesResponse>> {
    const messagesCall = { ...messages, signal: call.signal };
    const routed = await runWithFailover(this.deps, call, (candidate) => completeMessagesAttempt(this.deps, candidate, messagesCall));
    if (routed.span) describeMessage(call.trace!.request, routed.span, routed.value.stop_reason);
    return routed;
  }

  async streamMessages(call: FailoverCall, messages: Omit<MessagesCall, 'signal'>): Promise<Routed<MessagesStreamOutcome>> {
    const messagesCall = { ...messages, signal: call.signal };
    const routed = await runWithFailover(this.deps, call, (candidate) => streamMessagesAttempt(this.deps, candidate, messagesCall));
    if (routed.span) routed.value = describeMessagesStream(call.trace!.request, routed.span, routed.value);
    return routed;
  }

  /** The token count from the route's native Messages targets (count-tokens-attempt.ts); undefined when the route has none. */
  countMessageTokens(call: FailoverCall, count: Omit<CountTokensCall, 'signal'>): Promise<Routed<{ input_tokens: number }>> | undefined {
    const route = servingTargetsOf(call.route, (providerId) => {
      const provider = this.deps.providers.get(providerId);
      return provider !== undefined && this.deps.adapters[provider.format].messages !== undefined;
    });
    if (!route) return undefined;
    const countCall = { ...count, signal: call.signal };
    return runWithFailover(this.deps, { ...call, route }, (candidate) => countTokensAttempt(this.deps, candidate, countCall));
  }

  /**
   * Embeddings from the route's targets that serve them (embedding-attempts.ts); `dimensions`: the length
   * every vector must have, so a host answering others is failed over.
   */
  embed(call: FailoverCall, embedding: EmbeddingCall, dimensions: number | undefined): Promise<Routed<EmbeddingResult>> {
    const route = this.servingRoute(call.route, 'embeddings');
    return runWithFailover(this.deps, { ...call, route }, (candidate) => embeddingAttempt(this.deps, candidate, embedding, dimensions, call.signal));
  }

  /** A rerank from the route's targets that serve it. */
  rerank(call: FailoverCall, rerank: RerankCall): Promise<Routed<RerankResult>> {
    const route = this.servingRoute(call.route, 'rerank');
    return runWithFailover(this.deps, { ...call, route }, (candidate) => rerankAttempt(this.deps, candidate, rerank, call.signal));
  }

  /** The route's targets whose provider says it serves `endpoint` and whose format has it; a provider without it is never a candidate. */
  private servingRoute(route: FailoverCall['route'], endpoint: 'embeddings' | 'rerank'): FailoverCall['route'] {
    const narrowed = servingTargetsOf(route, (providerId) => {
      const provider = this.deps.providers.get(providerId);
      return provider !== undefined && provider[endpoint] === true && this.deps.adapters[provider.format][endpoint] !== undefined;
    });
    if (!narrowed) throw new RouterError('invalid_request', `The model '${route.id}' has no provider that serves ${endpoint}.`, { param: 'model' });
    return narrowed;
  }
}

/**
 * Prompt caching on a chat call: the route's automatic breakpoints (`promptCaching: auto`), and the key
 * of the cached prefix so the provider holding its cache is tried first (sticky-routing.ts).
 */
function cachedPrefix(call: FailoverCall, asked: ChatRequest, readsBreakpoints: (providerId: string) => boolean): { call: FailoverCall; chat: ChatRequest } {
  const auto = call.route.promptCaching === 'auto';
  const provider = providerOf(call.route);
  // A route of one provider: no sticky key, and breakpoints only where that provider's format reads them
  // (an OpenAI-compatible adapter took them out again, copying the messages twice per request for nothing).
  if (provider !== SEVERAL) return { call, chat: auto && provider !== undefined && readsBreakpoints(provider) ? withCacheBreakpoints(asked) : asked };
  // Several: the breakpoints also mark the prefix the sticky key follows, for every provider's cache.
  const chat = auto ? withCacheBreakpoints(asked) : asked;
  const stickyKey = cachePrefixKey(call.accountId, call.route.id, chat);
  return { call: stickyKey === undefined ? call : { ...call, stickyKey }, chat };
}

/** providerOf's answer for a route whose targets name more than one provider. */
const SEVERAL: unique symbol = Symbol('several providers');

/**
 * The one provider every target of a route names (undefined for a route without targets), or SEVERAL.
 * Only with several can the sticky key change where a request goes, so a route of one provider (the
 * usual case) skips it: its hash of the prompt's prefix was about 3 % of the router's CPU per chat
 * request (bench/README.md).
 */
function providerOf(route: FailoverCall['route']): string | typeof SEVERAL | undefined {
  let first: string | undefined;
  for (const tier of route.tiers) {
    for (const target of tier) {
      if (first === undefined) first = target.provider;
      else if (target.provider !== first) return SEVERAL;
    }
  }
  return first;
}

/** The same for Responses: auto breakpoints on the chat it is translated to, and its sticky key. */
function cachedResponses(call: FailoverCall, request: ResponsesRequest) {
  const auto = call.route.promptCaching === 'auto';
  const stickyKey = providerOf(call.route) === SEVERAL ? responsesCacheKey(call.accountId, call.route.id, request, auto) : undefined;
  const responsesCall = { request, model: call.route.id, signal: call.signal, cacheBreakpoints: auto };
  return { call: stickyKey === undefined ? call : { ...call, stickyKey }, responsesCall };
}
