/**
 * When every candidate refused for the same reason a client can act on, the answer says that reason
 * instead of a 502 the SDKs retry at once:
 * - every provider rate-limited the request, or its key is still throttled from an earlier refusal (skipped
 *   without asking) → 429 `rate_limit_exceeded` with the smallest Retry-After any of them gave or has left
 *   (so the SDK waits as long as the first one needs, not longer) and `x-should-retry: true`;
 * - every provider is out of quota or credit (OpenAI's 429 `insufficient_quota`, Anthropic's 402
 *   `billing_error` or spend limit) → `insufficient_quota` with `x-should-retry: false`: 402 when every
 *   refusal was a 402, else 429 (OpenAI's own status for it, as the contract's monthly quota); a key
 *   skipped as exhausted (`credential_exhausted`: e.g. Gemini's per-day quota until its reset) counts as one;
 * - a mix of the two is the rate limit's answer, since waiting helps one of them.
 * Anything else among the attempts (a 5xx, a timeout, a rejected key, an open circuit) keeps the 502.
 * The RouterError keeps its code `all_upstreams_failed` (the refund, the ledger's attempts and the metrics
 * read it); only the wire type/code, status and headers change, as for an upstream 4xx passed through.
 */
import { RouterError } from '../core/errors.js';
import type { UpstreamFailure } from '../upstream/upstream-failure.js';

/** Without a Retry-After from any provider, the SDKs are told to wait this long. */
const DEFAULT_RETRY_AFTER_SECONDS = 1;

/** Skip reasons that are themselves rate limiting: the key is throttled for a while. */
const RATE_LIMITED_SKIPS: ReadonlySet<string> = new Set(['credential_throttled']);
/** Skip reasons that are themselves out of quota: the key's quota or credit is used up. */
const EXHAUSTED_SKIPS: ReadonlySet<string> = new Set(['credential_exhausted']);
/** Candidates never tried for reasons that do not change the verdict on those that were. */
const NEUTRAL_SKIPS: ReadonlySet<string> = new Set(['no_credential', 'retry_budget']);

export function isOutOfCredit(failure: UpstreamFailure): boolean {
  return failure.code === 'insufficient_quota' || failure.type === 'insufficient_quota' || failure.status === 402;
}

function isRateLimited(failure: UpstreamFailure): boolean {
  return failure.status === 429 && !isOutOfCredit(failure);
}

/**
 * `failed` is the route's all_upstreams_failed error; `failures` what each attempt that was made failed
 * with (one per attempt, in order); `throttledFor` the seconds each candidate skipped as throttled stays
 * so. Returns the refusal to answer instead, or undefined to keep `failed`.
 */
export function upstreamRefusal(routeId: string, failed: RouterError, failures: readonly UpstreamFailure[], throttledFor: readonly number[] = []): RouterError | undefined {
  const attempts = (failed.details.attempts as ReadonlyArray<AttemptLine> | undefined) ?? [];
  const skipped = (failed.details.skipped as ReadonlyArray<{ reason: string }> | undefined) ?? [];
  const made = attempts.filter((attempt) => !attempt.skipped).length;
  if (failures.length !== made) return undefined;
  if (!failures.every((failure) => isRateLimited(failure) || isOutOfCredit(failure))) return undefined;
  if (!skipped.every((skip) => RATE_LIMITED_SKIPS.has(skip.reason) || EXHAUSTED_SKIPS.has(skip.reason) || NEUTRAL_SKIPS.has(skip.reason))) return undefined;
  const skippedAsRefused = skipped.some((skip) => RATE_LIMITED_SKIPS.has(skip.reason) || EXHAUSTED_SKIPS.has(skip.reason));
  if (failures.length === 0 && !skippedAsRefused) return undefined;
  const rateLimited = failures.filter(isRateLimited);
  const retryCount = failed.headers['x-router-retry-count'] ?? '0';
  const tried = `No upstream could serve ${routeId}. ${triedOrSkipped(attempts)}`;
  if (rateLimited.length > 0 || skipped.some((skip) => RATE_LIMITED_SKIPS.has(skip.reason))) {
    const retryAfter = smallestRetryAfter([...rateLimited.map((failure) => failure.retryAfterSeconds), ...throttledFor]);
    return new RouterError('all_upstreams_failed', `${tried} Every provider is rate-limiting it: retry after ${retryAfter} seconds.`, {
      status: 429,
      wire: { type: 'rate_limit_error', code: 'rate_limit_exceeded' },
      details: failed.details,
      headers: { 'x-router-retry-count': retryCount, 'retry-after': String(retryAfter), 'x-should-retry': 'true' },
    });
  }
  return new RouterError('all_upstreams_failed', `${tried} Retrying will not help: the provider account's quota or credit is used up; add credit with the provider, or another provider's key on your account page.`, {
    status: failures.length > 0 && failures.every((failure) => failure.status === 402) ? 402 : 429,
    wire: { type: 'insufficient_quota', code: 'insufficient_quota' },
    details: failed.details,
    headers: { 'x-router-retry-count': retryCount, 'x-should-retry': 'false' },
  });
}

interface AttemptLine {
  provider: string;
  status: number | null;
  error: string | null;
  skipped?: true;
}

/** What was tried (status and code), or, when nothing was, which keys were skipped. */
function triedOrSkipped(attempts: ReadonlyArray<AttemptLine>): string {
  const tried = attempts.filter((a) => !a.skipped);
  if (tried.length > 0) return `Tried: ${tried.map((a) => `${a.provider} (${a.status} ${a.error})`).join(', ')}.`;
  return `Skipped: ${attempts.map((a) => `${a.provider} (${a.error})`).join(', ')}.`;
}

function smallestRetryAfter(waits: ReadonlyArray<number | undefined>): number {
  let smallest: number | undefined;
  for (const retryAfterSeconds of waits) {
    if (retryAfterSeconds === undefined || !Number.isFinite(retryAfterSeconds)) continue;
    smallest = smallest === undefined ? retryAfterSeconds : Math.min(smallest, retryAfterSeconds);
  }
  // The contract's Retry-After is whole seconds, at least 1.
  return smallest === undefined ? DEFAULT_RETRY_AFTER_SECONDS : Math.max(1, Math.ceil(smallest));
}
