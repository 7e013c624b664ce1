import { retryAfterSecondsOf, throttleSecondsOf } from '../../core/retry-after.js';
import type { UpstreamFailure } from '../../upstream/upstream-failure.js';
import { anthropicFailure } from './anthropic-failure.js';

/**
 * A non-2xx Anthropic response → UpstreamFailure. Never throws: bodies from proxies in front of
 * Anthropic (HTML, plain text, empty) get a generic message instead of being echoed to the client.
 * `nowMs` resolves a Retry-After given as an HTTP date; a 429 without one still says when its limits
 * reset (`anthropic-ratelimit-*-reset`).
 */
export function parseAnthropicError(status: number, bodyText: string, headers: Headers, nowMs: number): UpstreamFailure {
  const wait = status === 429 ? throttleSecondsOf(headers, nowMs) : retryAfterSecondsOf(headers, nowMs);
  return anthropicFailure(status, errorMemberOf(bodyText), wait);
}

function errorMemberOf(bodyText: string): unknown {
  try {
    const body: unknown = JSON.parse(bodyText);
    return typeof body === 'object' && body !== null ? (body as { error?: unknown }).error : undefined;
  } catch {
    return undefined;
  }
}
