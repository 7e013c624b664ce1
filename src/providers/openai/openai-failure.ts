import { redactKeyLikeTokens } from '../../core/redact-secrets.js';
import type { UpstreamFailure } from '../../upstream/upstream-failure.js';
import { isRecord } from './is-record.js';

/** The error types the contract's clients understand, with the status each one implies. */
const TYPE_STATUS: Readonly<Record<string, number>> = {
  invalid_request_error: 400,
  authentication_error: 401,
  permission_error: 403,
  not_found_error: 404,
  rate_limit_error: 429,
  insufficient_quota: 429,
  server_error: 500,
};

const MAX_MESSAGE_LENGTH = 500;

/**
 * Maps an OpenAI-style error payload to the contract's terms, or undefined when the payload carries no
 * readable message. Accepted shapes: `{error:{message,type,param,code}}` (OpenAI, Groq, Together,
 * DeepSeek), `{error:"text"}` (Ollama), and a top-level `{message,type,code}` (Mistral, older vLLM).
 * `status` is the HTTP status, or undefined for an error inside a 200 stream (then it is inferred).
 */
export function openaiFailure(payload: unknown, status: number | undefined): UpstreamFailure | undefined {
  if (!isRecord(payload)) return undefined;
  const source = isRecord(payload.error) ? payload.error : typeof payload.error === 'string' ? { message: payload.error } : payload;
  if (typeof source.message !== 'string' || source.message.length === 0) return undefined;
  const upstreamCode = typeof source.code === 'string' ? source.code : null;
  const upstreamType = typeof source.type === 'string' ? source.type : undefined;
  const resolvedStatus = status ?? inferStatus(source, upstreamType);
  const failure: UpstreamFailure = {
    status: resolvedStatus,
    type: upstreamType !== undefined && Object.hasOwn(TYPE_STATUS, upstreamType) ? upstreamType : typeForStatus(resolvedStatus),
    code: upstreamCode ?? defaultCode(resolvedStatus),
    message: safeMessage(source.message),
    param: typeof source.param === 'string' ? source.param : null,
  };
  // quirk(openai): an exhausted balance is a 429 like a rate limit, but waiting does not help.
  if (upstreamCode === 'insufficient_quota' || upstreamType === 'insufficient_quota') {
    failure.type = 'insufficient_quota';
    failure.code = 'insufficient_quota';
  }
  return failure;
}

/** A failure for an upstream that answered but with something that is not its API's shape. */
export function malformedUpstreamFailure(what: string): UpstreamFailure {
  return { status: 502, type: 'server_error', code: 'invalid_upstream_response', message: `The upstream provider sent ${what}.`, param: null };
}

export function typeForStatus(status: number): string {
  if (status === 401) return 'authentication_error';
  if (status === 403) return 'permission_error';
  if (status === 404) return 'not_found_error';
  if (status === 429) return 'rate_limit_error';
  if (status >= 400 && status < 500) return 'invalid_request_error';
  return 'server_error';
}

export function defaultCode(status: number): string | null {
  if (status === 429) return 'rate_limit_exceeded';
  if (status === 503) return 'overloaded';
  if (status === 504) return 'timeout';
  return null;
}

/** vLLM puts the HTTP status in a numeric `code`; otherwise the type says what kind of failure it was. */
function inferStatus(source: Record<string, unknown>, type: string | undefined): number {
  if (typeof source.code === 'number' && source.code >= 400 && source.code <= 599) return source.code;
  if (source.code === 'rate_limit_exceeded') return 429;
  return type !== undefined && Object.hasOwn(TYPE_STATUS, type) ? (TYPE_STATUS[type] ?? 502) : 502;
}

/**
 * quirk(openai): 401 messages quote the rejected key ("Incorrect API key provided: sk-proj-****abcd");
 * other compatible hosts may quote more of it. Key-shaped tokens never leave the router (the exact
 * credential of the attempt is already gone: routing/chat-attempts.ts).
 */
function safeMessage(message: string): string {
  const redacted = redactKeyLikeTokens(message);
  return redacted.length > MAX_MESSAGE_LENGTH ? `${redacted.slice(0, MAX_MESSAGE_LENGTH)}…` : redacted;
}
