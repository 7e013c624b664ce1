import { retryAfterSecondsOf, throttleSecondsOf } from '../../core/retry-after.js';
import type { UpstreamFailure } from '../../upstream/upstream-failure.js';
import { tryParseJson } from './try-parse-json.js';
import { defaultCode, openaiFailure, typeForStatus } from './openai-failure.js';

/**
 * Maps a non-2xx answer of an OpenAI-compatible host. A readable error body is passed through with its
 * status; anything else (HTML from a proxy or load balancer, an empty body) becomes a generic message
 * with the status, never the raw body. Never throws. `nowMs` resolves a Retry-After given as an HTTP date.
 * A 429 without Retry-After still says how long to wait in its `x-ratelimit-reset-*` headers.
 */
export function parseError(status: number, bodyText: string, headers: Headers, nowMs: number): UpstreamFailure {
  const failure = openaiFailure(tryParseJson(bodyText), status) ?? {
    status,
    type: typeForStatus(status),
    code: defaultCode(status),
    message: `The upstream provider answered HTTP ${status} without a readable error.`,
    param: null,
  };
  const retryAfterSeconds = status === 429 ? throttleSecondsOf(headers, nowMs) : retryAfterSecondsOf(headers, nowMs);
  if (retryAfterSeconds !== undefined) failure.retryAfterSeconds = retryAfterSeconds;
  return failure;
}
