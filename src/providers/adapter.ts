/**
 * The contract every provider adapter (one folder per API format) fulfils: translate the common
 * internal shape (OpenAI chat, formats/openai-chat.ts) to the provider's request, and the provider's
 * responses, stream events and error bodies back. Adapters are pure: no I/O, no clock, no globals.
 * An adapter whose provider can serve a client API as it is (no translation through chat) says so with
 * a native capability (`responses`, `messages`): the routing engine asks for the capability, never for a
 * format name.
 */
import type { CatalogModel, ProviderConfig, ProviderFormat } from '../config/types.js';
import type { MessagesRequest } from '../formats/anthropic-messages.js';
import type { EmbeddingCall, EmbeddingResult, RerankCall, RerankResult } from '../formats/embeddings.js';
import type { ChatCompletion, ChatCompletionChunk, ChatRequest, ReasoningDetail } from '../formats/openai-chat.js';
import type { SseEvent } from '../upstream/sse-event.js';
import type { UpstreamFailure } from '../upstream/upstream-failure.js';
import type { UpstreamRequest } from '../upstream/upstream-request.js';

export interface AdapterContext {
  provider: ProviderConfig;
  /** The upstream model id from the route profile (never the client's `model`). */
  upstreamModel: string;
  /** The provider credential to send (BYOK or managed). Never logged. */
  credential: string;
  stream: boolean;
  /** The served model's catalog entry (output limit, thinking budgets), when catalog.yaml has one. */
  model?: CatalogModel;
}

/** Per-request, stateful: upstream SSE events in, chat chunks out. */
export interface ChatStreamTranslator {
  onEvent(event: SseEvent): ChatCompletionChunk[];
  /**
   * The upstream closed. Returns closing chunks (usage) not yet emitted, or throws truncatedStream()
   * when the stream ended without its terminator: a finish reason is never invented.
   */
  onEnd(): ChatCompletionChunk[];
}

export interface ProviderAdapter {
  /** Build the upstream request. Throws RouterError('unsupported_parameter' | 'invalid_request') for fields the provider cannot honour. */
  buildChatRequest(request: ChatRequest, ctx: AdapterContext): UpstreamRequest;
  /** Translate a successful non-stream JSON body. */
  parseChatResponse(body: unknown, ctx: AdapterContext): ChatCompletion;
  createChatStreamTranslator(ctx: AdapterContext): ChatStreamTranslator;
  /** Map a non-2xx response (status, raw body text) to the contract's terms. Must not throw. */
  parseError(status: number, bodyText: string, headers: Headers): UpstreamFailure;
  /**
   * The format reads `cache_control` breakpoints (Anthropic's prompt caching). The others take them out
   * again, so `promptCaching: auto` adds none for a call only they will see (routing-engine.ts).
   */
  cacheBreakpoints?: true;
  /** Native Responses pass-through, used for the providers configured with `nativeResponses: true`. */
  responses?: NativeResponsesCapability;
  /** Native Messages pass-through: every provider of this adapter serves the Messages API as it is. */
  messages?: NativeMessagesCapability;
  /** The provider signs tool calls and wants the signatures back (Gemini's thought signatures). */
  toolCallSignatures?: ToolCallSignatureCapability;
  /** The format has an embeddings API; a provider of it serves it when providers.yaml says `embeddings: true`. */
  embeddings?: EmbeddingsCapability;
  /** The format carries the Cohere/Jina rerank API; a provider of it serves it when providers.yaml says `rerank: true`. */
  rerank?: RerankCapability;
}

/** Embeddings in the format's own API (OpenAI's /embeddings, Gemini's batchEmbedContents). */
export interface EmbeddingsCapability {
  /** Throws RouterError('unsupported_parameter') for what the format cannot carry (token arrays on Gemini). */
  buildRequest(call: EmbeddingCall, ctx: AdapterContext): UpstreamRequest;
  /** The vectors of a 2xx answer in input order, or undefined when the answer is not one (routing fails the attempt over). */
  parseResponse(body: unknown, inputs: number): EmbeddingResult | undefined;
}

/** POST /rerank in the Cohere/Jina shape. */
export interface RerankCapability {
  buildRequest(call: RerankCall, ctx: AdapterContext): UpstreamRequest;
  /** The scored documents of a 2xx answer, or undefined when the answer is not one. */
  parseResponse(body: unknown, documents: number): RerankResult | undefined;
}

/** One tool call's signature, by the id the router gave the call. */
export interface IssuedSignature {
  callId: string;
  signature: string;
}

/**
 * How an upstream's tool-call signatures ride in the chat shape, so routing can keep each one under the
 * call's id for clients that send back only `id`, `type` and `function` (routing/tool-call-signatures.ts).
 */
export interface ToolCallSignatureCapability {
  /** Ids of the request's tool calls that came back without their signature and that this adapter issued (worth looking up), newest first, at most `limit`. */
  unsignedCallIds(request: ChatRequest, limit: number): string[];
  /** A copy of the request with these signatures put back on their calls. */
  withSignatures(request: ChatRequest, signatures: ReadonlyMap<string, string>): ChatRequest;
  /** The signatures an answer's (or a stream delta's) reasoning_details carry. */
  issuedIn(details: readonly ReasoningDetail[] | undefined): IssuedSignature[];
}

/** The adapter of each format; routing looks a candidate's up by its provider's format. */
export type AdapterRegistry = Readonly<Record<ProviderFormat, ProviderAdapter>>;

/**
 * The client's `/v1/responses` body sent upstream as it is (the route's model, the router's own tools
 * removed), and the upstream's answer and stream events relayed with the client's model name.
 */
export interface NativeResponsesCapability {
  buildRequest(body: Record<string, unknown>, ctx: AdapterContext): UpstreamRequest;
  /** `json` (a Response or a stream event) showing `model` instead of the upstream model; a copy, never mutated. */
  rewriteModel<T>(json: T, model: string): T;
  /** A stream's `response.failed` or `error` event before any output, in the contract's terms. */
  streamFailure(event: Record<string, unknown>): UpstreamFailure;
}

/** The client's Messages API headers that a native upstream receives. */
export interface NativeMessagesHeaders {
  /** The client's `anthropic-version`, when it sent one. */
  version?: string | undefined;
  /** The client's `anthropic-beta` values (comma-separated in one or more headers). */
  betas: readonly string[];
}

/**
 * The client's `/v1/messages` body (and `/v1/messages/count_tokens`) sent upstream as it is, with only
 * the model and the credential rewritten; the upstream's events are relayed one by one.
 */
export interface NativeMessagesCapability {
  /** How the router's own messages name this upstream ("The … stream ended before the answer was complete"). */
  upstreamName: string;
  buildRequest(request: MessagesRequest, ctx: AdapterContext, client: NativeMessagesHeaders): UpstreamRequest;
  /** Only a native Messages upstream can count its model's tokens. */
  buildCountTokensRequest(request: MessagesRequest, ctx: AdapterContext, client: NativeMessagesHeaders): UpstreamRequest;
  /** The `error` member of an in-stream `error` event (untrusted JSON), in the contract's terms. */
  streamFailure(error: unknown): UpstreamFailure;
}
