/**
 * The control surface every fake upstream (OpenAI-compatible, Anthropic, Gemini) exposes to tests and
 * the benchmark. Fakes listen on 127.0.0.1 only and speak the provider's real wire format, including
 * its error bodies, SSE framing and failure modes.
 */
import type { RecordedAnswer } from './recorded-answer.js';

export interface RecordedRequest {
  method: string;
  path: string; // path + query, e.g. /v1/chat/completions or /v1beta/models/m:streamGenerateContent?alt=sse
  headers: Record<string, string | string[] | undefined>;
  body: unknown; // parsed JSON (or the raw string when not JSON)
}

export type FakeFailure =
  /**
   * Answer with this HTTP status and the provider's real error body for it (e.g. 401, 429, 500, 502, 503,
   * 504, 529, 400). With `echoCredential`, the error message quotes the credential the fake received,
   * verbatim and URL-encoded after `Bearer%20`, as misbehaving hosts and proxies do.
   */
  | { kind: 'status'; status: number; retryAfterSeconds?: number; echoCredential?: boolean }
  /** Accept the connection and never answer (the router's first-byte timeout must fire). */
  | { kind: 'hang' }
  /** Wait this long before sending the status line and headers. */
  | { kind: 'slow-first-byte'; delayMs: number }
  /** Stream requests: send the first events normally, then fail in the provider's in-stream error format (quoting the credential with `echoCredential`). */
  | { kind: 'mid-stream-error'; afterEvents: number; echoCredential?: boolean }
  /** Stream requests: send the first events normally, then destroy the socket. */
  | { kind: 'mid-stream-disconnect'; afterEvents: number }
  /**
   * Stream requests: send the first events normally, then end the response cleanly, without the
   * stream's terminator (no finish reason, no `[DONE]`, no `response.completed`, no `message_stop`).
   */
  | { kind: 'truncated-stream'; afterEvents: number }
  /**
   * The provider account is out of quota or credit: OpenAI's 429 `insufficient_quota` (with `inStream`,
   * a native Responses stream that starts and then sends `response.failed` with that code before any
   * output), Anthropic's 402 `billing_error`, Gemini's 429 RESOURCE_EXHAUSTED naming a per-day quota
   * (`GenerateRequestsPerDayPerProjectPerModel-FreeTier`) in its QuotaFailure.
   */
  | { kind: 'out-of-credit'; inStream?: boolean };

export interface FakeReply {
  /** Anthropic and Gemini fakes: answer with this recorded answer (test/fixtures/providers/) instead of a generated one. */
  recorded?: RecordedAnswer;
  /** Text the fake model answers with (default: "Hello from <fake name>"). */
  text?: string;
  /** When set, the model answers with these tool calls instead of text. */
  toolCalls?: Array<{ name: string; arguments: Record<string, unknown> }>;
  /**
   * Answer with `toolCalls` only to a request that offers tools and does not end with a tool result, and
   * with text otherwise, as a model does in a tool round trip.
   */
  toolCallsWhenOffered?: boolean;
  /**
   * Reasoning the model shows before its answer, only to a request that asks for it: the OpenAI fake's
   * `reasoning_content` when `reasoning_effort` is set, the Gemini fake's thought part when
   * `thinkingConfig.includeThoughts` is.
   */
  thoughts?: string;
  /**
   * OpenAI fake, chat: an empty answer that never ends, as some hosts send one (no content, no finish
   * reason, 0 completion tokens, then [DONE] on a stream): what zero-completion insurance is for.
   */
  emptyCompletion?: boolean;
  /** Usage the fake reports. */
  usage?: { inputTokens: number; outputTokens: number };
  /** Anthropic fake: `usage.server_tool_use` (e.g. `{ web_search_requests: 3 }`), in the message and the stream's message_delta. */
  serverToolUse?: Record<string, number>;
  /** OpenAI fake, Responses: hosted tool call items (e.g. `web_search_call`) put before the answer's message. */
  hostedCalls?: readonly string[];
  /** Fixed latency before answering, in ms (the benchmark uses 20). */
  latencyMs?: number;
  /** OpenAI fake: answer only once this settles (after latencyMs), so a test ends slow requests when it has seen what it waits for, not when a timer it races runs out. */
  heldUntil?: Promise<unknown>;
  /** Stream framing: split every written SSE event into pieces of this many BYTES (1 = byte by byte). */
  splitBytes?: number;
  /** Streams: wait this long before each event after the first (a long generation). OpenAI fake only. */
  eventDelayMs?: number;
  /** The stop sequence that matched: Anthropic's `stop_sequence`, or the OpenAI fake's vLLM-style `stop_reason` beside a `stop` finish. */
  stopReason?: string;
  /** OpenAI fake: per upstream model, settings that replace the ones above (so one host can serve several models deterministically). */
  byModel?: Readonly<Record<string, Omit<FakeReply, 'byModel'>>>;
}

export interface FakeProvider {
  /** Base URL to put in providers.yaml, e.g. http://127.0.0.1:PORT/v1 (openai, anthropic) or …/v1beta (gemini). */
  readonly baseUrl: string;
  /** Every request received, in order (the credential header included, so tests can check BYOK routing). */
  readonly requests: RecordedRequest[];
  /** Make the next `times` requests fail this way (default once); later requests succeed. */
  failNext(failure: FakeFailure, times?: number): void;
  /** Make every request fail this way until `reset()`. */
  failAlways(failure: FakeFailure): void;
  /** Set how successful requests are answered. */
  setReply(reply: FakeReply): void;
  /** Clear failures, reply settings and recorded requests. */
  reset(): void;
  /** Number of requests whose connection the client aborted before the fake finished answering. */
  readonly abortedRequests: number;
  close(): Promise<void>;
}

/** What a misbehaving upstream says when it quotes the credential it got: raw, and URL-encoded after `Bearer%20`. */
export function credentialEcho(credential: string): string {
  return `Invalid credential ${credential} (sent as Authorization: Bearer%20${encodeURIComponent(credential)}).`;
}
