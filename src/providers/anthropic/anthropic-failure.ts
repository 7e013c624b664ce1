import { redactKeyLikeTokens } from '../../core/redact-secrets.js';
import type { UpstreamFailure } from '../../upstream/upstream-failure.js';
import type { AnthropicErrorObject } from './anthropic-types.js';

/**
 * The HTTP status Anthropic pairs with each error type; used for errors that arrive inside a 200 stream.
 * A Map: the type is the upstream's text, and `constructor` must not find Object's own members.
 */
const STATUS_OF_TYPE: ReadonlyMap<string, number> = new Map([
  ['invalid_request_error', 400],
  ['authentication_error', 401],
  ['billing_error', 402],
  ['permission_error', 403],
  ['not_found_error', 404],
  ['request_too_large', 413],
  ['rate_limit_error', 429],
  ['api_error', 500],
  ['timeout_error', 504],
  ['overloaded_error', 529],
]);

const CONTEXT_OVERFLOW = /prompt is too long|context window|context length|too many (input )?tokens/i;

/**
 * An Anthropic error object (the `error` member of an error body or of an `event: error`) in the
 * contract's terms (wire-formats §6.7). Inside a stream there is no HTTP status, so it is derived from
 * the error type. `errorValue` is untrusted JSON; fields of the wrong type are ignored. Permanent
 * conditions carry no retryAfterSeconds.
 */
export function anthropicFailure(status: number | undefined, errorValue: unknown, retryAfterSeconds?: number): UpstreamFailure {
  const error = errorObjectOf(errorValue);
  const httpStatus = status ?? STATUS_OF_TYPE.get(error.type ?? '') ?? 500;
  // Key-shaped tokens (sk-ant-…) never leave the router, even ones other than the attempt's own key.
  const message = error.message === undefined ? `Anthropic failed with HTTP ${httpStatus}.` : redactKeyLikeTokens(error.message);
  const retry = retryAfterSeconds === undefined ? {} : { retryAfterSeconds };
  switch (httpStatus) {
    case 400:
      return { status: 400, type: 'invalid_request_error', code: CONTEXT_OVERFLOW.test(message) ? 'context_length_exceeded' : null, message };
    case 401:
      return { status: 401, type: 'authentication_error', code: 'invalid_api_key', message };
    case 402:
      return { status: 402, type: 'insufficient_quota', code: 'insufficient_quota', message };
    case 403:
      return { status: 403, type: 'permission_error', code: null, message };
    case 404:
      return { status: 404, type: 'not_found_error', code: 'model_not_found', message };
    case 413:
      return { status: 413, type: 'invalid_request_error', code: 'request_too_large', message };
    case 429:
      // quirk(anthropic): an exhausted spend limit is a 429 too, but waiting does not help.
      return error.details?.error_code === 'enforced_spend_limit_reached'
        ? { status: 429, type: 'insufficient_quota', code: 'insufficient_quota', message }
        : { status: 429, type: 'rate_limit_error', code: 'rate_limit_exceeded', message, ...retry };
    case 529:
      // quirk(anthropic): 529 means globally overloaded; 503 says the same to every client and SDK.
      return { status: 503, type: 'server_error', code: 'overloaded', message, ...retry };
    case 504:
      return { status: 504, type: 'server_error', code: 'timeout', message, ...retry };
    default:
      return httpStatus >= 500
        ? { status: httpStatus, type: 'server_error', code: null, message, ...retry }
        : { status: httpStatus, type: 'invalid_request_error', code: null, message };
  }
}

function errorObjectOf(value: unknown): AnthropicErrorObject {
  if (typeof value !== 'object' || value === null) return {};
  const { type, message, details } = value as Record<string, unknown>;
  const errorCode = typeof details === 'object' && details !== null ? (details as { error_code?: unknown }).error_code : undefined;
  return {
    ...(typeof type === 'string' ? { type } : {}),
    ...(typeof message === 'string' && message !== '' ? { message } : {}),
    ...(typeof errorCode === 'string' ? { details: { error_code: errorCode } } : {}),
  };
}
