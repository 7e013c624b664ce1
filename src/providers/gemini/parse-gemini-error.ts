import { redactKeyLikeTokens } from '../../core/redact-secrets.js';
import { parseProtobufDuration, retryAfterSecondsOf, throttleSecondsOf } from '../../core/retry-after.js';
import type { UpstreamFailure } from '../../upstream/upstream-failure.js';
import type { GeminiErrorStatus } from './gemini-types.js';
import { nextPacificMidnight } from './pacific-midnight.js';

const RETRY_INFO = 'type.googleapis.com/google.rpc.RetryInfo';
const ERROR_INFO = 'type.googleapis.com/google.rpc.ErrorInfo';
const QUOTA_FAILURE = 'type.googleapis.com/google.rpc.QuotaFailure';
/**
 * A QuotaFailure violation naming a per-day quota (quotaId `GenerateRequestsPerDayPerProjectPerModel-FreeTier`,
 * quotaMetric `…/generate_requests_per_model_per_day`): waiting minutes does not help, whatever RetryInfo says.
 */
const PER_DAY_QUOTA = /PerDay|per_day/i;
/** ErrorInfo reasons that mean the credential itself is bad, whatever HTTP status carried them. */
const BAD_KEY_REASONS = new Set(['API_KEY_INVALID', 'API_KEY_EXPIRED']);
const CONTEXT_OVERFLOW = /input token count|maximum number of tokens|context (window|length)/i;

/**
 * A non-2xx Gemini response → the contract's terms. Never throws; bodies may be JSON, HTML or empty.
 * `nowMs` resolves a Retry-After given as an HTTP date.
 */
export function parseGeminiError(status: number, bodyText: string, headers: Headers, nowMs: number): UpstreamFailure {
  const wait = status === 429 ? throttleSecondsOf(headers, nowMs) : retryAfterSecondsOf(headers, nowMs);
  return failureFromStatus(status, readErrorStatus(bodyText), wait, nowMs);
}

/**
 * The `google.rpc.Status` inside an error body, or undefined. quirk(gemini): error bodies are sometimes
 * wrapped in a one-element array (`[{"error": …}]`), as the non-SSE stream endpoint sends them.
 */
export function readErrorStatus(text: string): GeminiErrorStatus | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return undefined;
  }
  const body: unknown = Array.isArray(parsed) ? parsed[0] : parsed;
  if (typeof body !== 'object' || body === null) return undefined;
  const error = (body as { error?: unknown }).error;
  return typeof error === 'object' && error !== null ? (error as GeminiErrorStatus) : undefined;
}

/**
 * `headerRetryAfterSeconds`: the answer's Retry-After, when it had one; a RetryInfo in the body wins over
 * it. `nowMs` dates a per-day quota's reset (absent inside a stream: the refusal is then insufficient_quota
 * all the same, without a reset instant).
 */
export function failureFromStatus(status: number, error: GeminiErrorStatus | undefined, headerRetryAfterSeconds?: number, nowMs?: number): UpstreamFailure {
  // Key-shaped tokens (AIza…) never leave the router, even ones other than the attempt's own key.
  const message = typeof error?.message === 'string' && error.message !== '' ? redactKeyLikeTokens(error.message) : `Gemini returned HTTP ${status}.`;
  const failure = (type: string, code: string | null, httpStatus = status): UpstreamFailure => ({ status: httpStatus, type, code, message });

  // quirk(gemini): an invalid or expired API key is a 400 INVALID_ARGUMENT, not a 401; report it as the
  // authentication failure it is so the router fails over like for any upstream 401.
  if (hasBadKeyReason(error)) return failure('authentication_error', 'invalid_api_key', 401);
  switch (status) {
    case 400:
      return failure('invalid_request_error', CONTEXT_OVERFLOW.test(message) ? 'context_length_exceeded' : null);
    case 401:
      return failure('authentication_error', 'invalid_api_key');
    case 403:
      return failure('permission_error', 'permission_denied');
    case 404:
      return failure('not_found_error', 'model_not_found');
    case 429:
      // A per-day quota is used up until Google's reset: insufficient_quota, not a rate limit to retry.
      if (hasPerDayQuotaViolation(error)) return { ...failure('insufficient_quota', 'insufficient_quota'), ...(nowMs === undefined ? {} : { quotaResetsAt: nextPacificMidnight(nowMs) }) };
      return withRetryAfter(failure('rate_limit_error', 'rate_limit_exceeded'), retryDelaySeconds(error) ?? headerRetryAfterSeconds);
    case 503:
      return withRetryAfter(failure('server_error', 'overloaded'), headerRetryAfterSeconds);
    case 504:
      return failure('server_error', 'timeout');
    default:
      return status >= 500 ? failure('server_error', null) : failure('invalid_request_error', null);
  }
}

function hasBadKeyReason(error: GeminiErrorStatus | undefined): boolean {
  return detailsOf(error).some((detail) => detail['@type'] === ERROR_INFO && BAD_KEY_REASONS.has(String(detail.reason)));
}

function hasPerDayQuotaViolation(error: GeminiErrorStatus | undefined): boolean {
  return detailsOf(error).some((detail) => detail['@type'] === QUOTA_FAILURE && Array.isArray(detail.violations) && detail.violations.some(namesPerDayQuota));
}

function namesPerDayQuota(violation: unknown): boolean {
  if (typeof violation !== 'object' || violation === null) return false;
  const { quotaId, quotaMetric } = violation as { quotaId?: unknown; quotaMetric?: unknown };
  return [quotaId, quotaMetric].some((name) => typeof name === 'string' && name.length <= 200 && PER_DAY_QUOTA.test(name));
}

/** `google.rpc.RetryInfo.retryDelay` is a protobuf Duration in JSON form: "30s", "27.5s". */
function retryDelaySeconds(error: GeminiErrorStatus | undefined): number | undefined {
  return parseProtobufDuration(detailsOf(error).find((entry) => entry['@type'] === RETRY_INFO)?.retryDelay);
}

/** Untrusted JSON: `details` may be anything, its entries too. */
function detailsOf(error: GeminiErrorStatus | undefined): Array<{ '@type'?: unknown; [key: string]: unknown }> {
  const details: unknown = error?.details;
  return Array.isArray(details) ? details.filter((entry): entry is Record<string, unknown> => typeof entry === 'object' && entry !== null) : [];
}

function withRetryAfter(failure: UpstreamFailure, seconds: number | undefined): UpstreamFailure {
  return seconds === undefined ? failure : { ...failure, retryAfterSeconds: seconds };
}
