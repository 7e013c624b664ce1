/**
 * How an upstream failed, in the contract's vocabulary: what adapters map a provider's errors to and
 * what the routing engine decides failover on. Here, in the transport layer, because both sides use it
 * and neither may import the other's internals.
 */

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
  /**
   * A used-up quota that resets at a known instant (epoch ms; Gemini's per-day quotas): the credential is
   * skipped until then, and the client is told not to retry (it is never a Retry-After).
   */
  quotaResetsAt?: number;
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
