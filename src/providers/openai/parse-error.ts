import type { UpstreamFailure } from '../../upstream/upstream-failure.js';
import { tryParseJson } from './try-parse-json.js';
import { defaultCode, openaiFailure, typeForStatus } from './openai-failure.js';

/**
 * Maps a non-2xx answer of an OpenAI-compatible host. A readable error body is passed through with its
 * status; anything else (HTML from a proxy or load balancer, an empty body) becomes a generic message
 * with the status, never the raw body. Never throws.
 */
export function parseError(status: number, bodyText: string, headers: Headers): UpstreamFailure {
  const failure = openaiFailure(tryParseJson(bodyText), status) ?? {
    status,
    type: typeForStatus(status),
    code: defaultCode(status),
    message: `The upstream provider answered HTTP ${status} without a readable error.`,
    param: null,
  };
  const retryAfterSeconds = parseRetryAfter(headers);
  if (retryAfterSeconds !== undefined) failure.retryAfterSeconds = retryAfterSeconds;
  return failure;
}

/**
 * Same source order as the OpenAI SDKs: `retry-after-ms` (float ms), then `retry-after` in seconds.
 * The HTTP-date form of `retry-after` is ignored: this code has no clock, and OpenAI-compatible hosts
 * send seconds.
 */
function parseRetryAfter(headers: Headers): number | undefined {
  const ms = nonNegativeNumber(headers.get('retry-after-ms'));
  if (ms !== undefined) return ms / 1000;
  return nonNegativeNumber(headers.get('retry-after'));
}

function nonNegativeNumber(text: string | null): number | undefined {
  if (text === null || text.trim() === '') return undefined;
  const value = Number(text);
  return Number.isFinite(value) && value >= 0 ? value : undefined;
}
