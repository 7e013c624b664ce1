/**
 * The one Retry-After reader, for every upstream's error answer (RFC 9110 §10.2.3): delay-seconds or
 * an HTTP-date, and the `retry-after-ms` header OpenAI-compatible hosts and Anthropic send (their SDKs
 * read it first). The answer is seconds to wait, never negative, never NaN, and at most
 * MAX_RETRY_AFTER_SECONDS: it decides how long a throttled key is skipped and what the client is told,
 * so a host's nonsense (a year, a date in the past) must not become either.
 */

/** A day: longer asks are believed only up to this long (the circuit probes far sooner anyway). */
export const MAX_RETRY_AFTER_SECONDS = 86_400;

/** Delay-seconds, with the fractions some hosts send ("1.5"); signs, exponents and hex are not numbers here. */
const DELAY_SECONDS = /^\d+(?:\.\d+)?$/;

/**
 * The three HTTP-date forms, checked before Date.parse, which would otherwise read "1 2" or "May 5" as
 * dates: IMF-fixdate and the obsolete RFC 850 form say GMT; asctime does not but means it.
 */
const GMT_DATE = /^(?:[A-Za-z]{3}, \d{2} [A-Za-z]{3} \d{4}|[A-Za-z]{6,9}, \d{2}-[A-Za-z]{3}-\d{2}) \d{2}:\d{2}:\d{2} GMT$/;
const ASCTIME_DATE = /^[A-Za-z]{3} [A-Za-z]{3} [ \d]\d \d{2}:\d{2}:\d{2} \d{4}$/;

/** A header reader: `Headers` or anything with its `get`. */
export interface HeaderSource {
  get(name: string): string | null;
}

/**
 * A Retry-After value as seconds from `nowMs` (an HTTP-date is rounded up to whole seconds, one in the
 * past is 0), or undefined when absent or unreadable.
 */
export function parseRetryAfter(value: string | null | undefined, nowMs: number): number | undefined {
  if (value === null || value === undefined) return undefined;
  const text = value.trim();
  if (DELAY_SECONDS.test(text)) return bounded(Number(text));
  const dateMs = GMT_DATE.test(text) ? Date.parse(text) : ASCTIME_DATE.test(text) ? Date.parse(`${text} GMT`) : Number.NaN;
  return Number.isNaN(dateMs) ? undefined : bounded(Math.ceil((dateMs - nowMs) / 1000));
}

/** How long an upstream asked to wait: `retry-after-ms` (milliseconds) when readable, else `retry-after`. */
export function retryAfterSecondsOf(headers: HeaderSource, nowMs: number): number | undefined {
  const ms = headers.get('retry-after-ms')?.trim();
  if (ms !== undefined && DELAY_SECONDS.test(ms)) return bounded(Number(ms) / 1000);
  return parseRetryAfter(headers.get('retry-after'), nowMs);
}

function bounded(seconds: number): number | undefined {
  if (Number.isNaN(seconds)) return undefined;
  return Math.min(MAX_RETRY_AFTER_SECONDS, Math.max(0, seconds));
}
