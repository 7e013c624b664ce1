/**
 * The one Retry-After reader, for every upstream's error answer (RFC 9110 §10.2.3): delay-seconds or
 * an HTTP-date, and the `retry-after-ms` header OpenAI-compatible hosts and Anthropic send (their SDKs
 * read it first). A throttle (429) without either still says when its limit resets:
 * `x-ratelimit-reset-requests|tokens` (OpenAI: Go duration strings such as `1s`, `6m0s`, `20ms`) and
 * `anthropic-ratelimit-*-reset` (an RFC 3339 instant); Gemini's `RetryInfo.retryDelay` is a protobuf
 * Duration (`30s`) in the error body, read here too so every provider's wait has one reader. The answer is
 * seconds to wait, never negative, never NaN, and at most MAX_RETRY_AFTER_SECONDS: it decides how long
 * a throttled key is skipped and what the client is told, so a host's nonsense (a year, a date in the
 * past) must not become either.
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

/** Longer header values are not read at all: no reset header of any provider comes near this. */
const MAX_DURATION_TEXT = 64;
/** Go's time.Duration.String(): one or more number-unit pairs, largest unit first ("1h2m3.5s", "20ms"). */
const GO_DURATION = /^(?:\d+(?:\.\d+)?(?:h|ms|m|s|us|µs|ns))+$/;
const GO_DURATION_PART = /(\d+(?:\.\d+)?)(h|ms|m|s|us|µs|ns)/g;
const GO_UNIT_SECONDS: Readonly<Record<string, number>> = { h: 3600, m: 60, s: 1, ms: 1e-3, us: 1e-6, µs: 1e-6, ns: 1e-9 };
/** RFC 3339 date-time, as Anthropic's reset headers send it; checked before Date.parse, which reads far more. */
const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{1,9})?(?:Z|[+-]\d{2}:\d{2})$/i;
/** A protobuf Duration in its JSON form: seconds with up to nine decimals and an `s` ("30s", "27.5s"). */
const PROTOBUF_DURATION = /^(\d+(?:\.\d{1,9})?)s$/;

/** An OpenAI `x-ratelimit-reset-*` value (a Go duration string) as seconds, or undefined when unreadable. */
export function parseGoDuration(value: string | null | undefined): number | undefined {
  const text = value?.trim();
  if (text === undefined || text.length > MAX_DURATION_TEXT || !GO_DURATION.test(text)) return undefined;
  let seconds = 0;
  for (const [, amount, unit] of text.matchAll(GO_DURATION_PART)) seconds += Number(amount) * GO_UNIT_SECONDS[unit!]!;
  return bounded(seconds);
}

/** An RFC 3339 instant (Anthropic's `anthropic-ratelimit-*-reset`) as seconds from `nowMs`; one in the past is 0. */
export function parseResetInstant(value: string | null | undefined, nowMs: number): number | undefined {
  const text = value?.trim();
  if (text === undefined || text.length > MAX_DURATION_TEXT || !RFC3339.test(text)) return undefined;
  const ms = Date.parse(text);
  return Number.isNaN(ms) ? undefined : bounded((ms - nowMs) / 1000);
}

/** A protobuf Duration in JSON form (Gemini's `RetryInfo.retryDelay`) as seconds, or undefined. */
export function parseProtobufDuration(value: unknown): number | undefined {
  if (typeof value !== 'string' || value.length > MAX_DURATION_TEXT) return undefined;
  const match = PROTOBUF_DURATION.exec(value);
  return match ? bounded(Number(match[1])) : undefined;
}

/**
 * Each limit a provider reports: the header with what remains of it and the header with when it resets.
 * OpenAI's resets are durations, Anthropic's instants.
 */
const RESET_HEADERS: ReadonlyArray<readonly [remaining: string, reset: string, read: (value: string | null, nowMs: number) => number | undefined]> = [
  ['x-ratelimit-remaining-requests', 'x-ratelimit-reset-requests', parseGoDuration],
  ['x-ratelimit-remaining-tokens', 'x-ratelimit-reset-tokens', parseGoDuration],
  ['anthropic-ratelimit-requests-remaining', 'anthropic-ratelimit-requests-reset', parseResetInstant],
  ['anthropic-ratelimit-tokens-remaining', 'anthropic-ratelimit-tokens-reset', parseResetInstant],
  ['anthropic-ratelimit-input-tokens-remaining', 'anthropic-ratelimit-input-tokens-reset', parseResetInstant],
  ['anthropic-ratelimit-output-tokens-remaining', 'anthropic-ratelimit-output-tokens-reset', parseResetInstant],
];

/**
 * How long a throttled (429) answer asked to wait: its Retry-After when it gave one, else when its
 * limits reset. The limits it reports as used up (remaining 0) must all reset, so the latest of those;
 * when it names none as used up, the soonest reset of any (asking again then costs one refused call,
 * waiting longer than needed costs the account its key).
 */
export function throttleSecondsOf(headers: HeaderSource, nowMs: number): number | undefined {
  const retryAfter = retryAfterSecondsOf(headers, nowMs);
  if (retryAfter !== undefined) return retryAfter;
  let latestExhausted: number | undefined;
  let soonest: number | undefined;
  for (const [remainingHeader, resetHeader, read] of RESET_HEADERS) {
    const reset = read(headers.get(resetHeader), nowMs);
    if (reset === undefined) continue;
    soonest = soonest === undefined ? reset : Math.min(soonest, reset);
    if (headers.get(remainingHeader)?.trim() === '0') latestExhausted = latestExhausted === undefined ? reset : Math.max(latestExhausted, reset);
  }
  return latestExhausted ?? soonest;
}

function bounded(seconds: number): number | undefined {
  if (Number.isNaN(seconds)) return undefined;
  return Math.min(MAX_RETRY_AFTER_SECONDS, Math.max(0, seconds));
}
