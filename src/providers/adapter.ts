/**
 * The contract every provider adapter (one folder per API format) fulfils: translate the common
 * internal shape (OpenAI chat, formats/openai-chat.ts) to the provider's request, and the provider's
 * responses, stream events and error bodies back. Adapters are pure: no I/O, no clock, no globals.
 */
import type { CatalogModel, ProviderConfig } from '../config/types.js';
import type { ChatCompletion, ChatCompletionChunk, ChatRequest } from '../formats/openai-chat.js';
import type { SseEvent } from '../upstream/sse-event.js';

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

/** What the upstream HTTP client sends. The URL always starts with the provider's configured baseUrl. */
export interface UpstreamRequest {
  url: string;
  headers: Record<string, string>;
  body: string;
}

/**
 * A provider failure mapped to the contract's vocabulary. `status` is the HTTP status to classify for
 * failover and, when passed to the client, the status to return (e.g. Anthropic 529 becomes 503).
 */
export interface UpstreamFailure {
  status: number;
  /** OpenAI-style error type for the client, e.g. `invalid_request_error`, `rate_limit_error`, `server_error`. */
  type: string;
  /** OpenAI-style code, e.g. `context_length_exceeded`, `rate_limit_exceeded`, `overloaded`. */
  code: string | null;
  /** The provider's message, safe to show (provider messages never contain the credential). */
  message: string;
  param?: string | null;
  retryAfterSeconds?: number;
}

/** Raised by a stream translator when the provider reports an error inside a 200 stream. */
export class UpstreamStreamError extends Error {
  constructor(readonly failure: UpstreamFailure) {
    super(failure.message);
    this.name = 'UpstreamStreamError';
  }
}

/**
 * The upstream closed its stream cleanly but before its terminator (a finish reason, `[DONE]`,
 * `response.completed`, `message_stop`): the answer may be cut short, so it must never be passed off
 * as complete. Before the commit point this fails the attempt over; after it, the client gets the
 * in-stream error (chat) or `response.failed` (Responses).
 */
export function truncatedStream(provider: string): UpstreamStreamError {
  return new UpstreamStreamError({
    status: 502,
    type: 'upstream_error',
    code: 'upstream_stream_interrupted',
    message: `The ${provider} stream ended before the answer was complete; it may be cut short.`,
  });
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
}
