import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  MAX_RETRY_AFTER_SECONDS,
  parseGoDuration,
  parseProtobufDuration,
  parseResetInstant,
  parseRetryAfter,
  retryAfterSecondsOf,
  throttleSecondsOf,
} from '../../../src/core/retry-after.js';

const NOW = Date.parse('2026-01-01T00:00:00Z');
/** Any instant from 1970 to 2100, to the millisecond. */
const instant = fc.integer({ min: 0, max: Date.parse('2100-01-01T00:00:00Z') });
const isSane = (seconds: number | undefined) => seconds === undefined || (Number.isFinite(seconds) && seconds >= 0 && seconds <= MAX_RETRY_AFTER_SECONDS);

describe('parseRetryAfter', () => {
  it('never answers negative, NaN, infinite or beyond the bound, whatever the header and the clock', () => {
    const headerText = fc.oneof(
      fc.string(),
      fc.double().map(String),
      fc.integer().map(String),
      instant.map((ms) => new Date(ms).toUTCString()),
      fc.constantFrom('Infinity', '-0', '1e9', '0x10', 'NaN', ' 5 ', '', '9'.repeat(400)),
    );
    fc.assert(fc.property(headerText, fc.oneof(instant, fc.constant(Number.NaN)), (text, now) => isSane(parseRetryAfter(text, now))));
  });

  it('reads delay-seconds as they are, up to the bound', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 10 * MAX_RETRY_AFTER_SECONDS }), instant, (seconds, now) => {
        expect(parseRetryAfter(String(seconds), now)).toBe(Math.min(seconds, MAX_RETRY_AFTER_SECONDS));
      }),
    );
    expect(parseRetryAfter('1.5', NOW)).toBe(1.5);
    expect(parseRetryAfter(' 17 ', NOW)).toBe(17);
  });

  it('reads an HTTP date as the whole seconds until it, 0 when it is past', () => {
    fc.assert(
      fc.property(instant, instant, (dateMs, now) => {
        const date = new Date(Math.floor(dateMs / 1000) * 1000);
        const expected = Math.min(MAX_RETRY_AFTER_SECONDS, Math.max(0, Math.ceil((date.getTime() - now) / 1000)));
        expect(parseRetryAfter(date.toUTCString(), now)).toBe(expected);
      }),
    );
    expect(parseRetryAfter('Thu, 01 Jan 2026 00:00:30 GMT', NOW)).toBe(30);
    expect(parseRetryAfter('Thursday, 01-Jan-26 00:00:30 GMT', NOW)).toBe(30);
    expect(parseRetryAfter('Thu Jan  1 00:00:30 2026', NOW)).toBe(30);
  });

  it('ignores what is neither: signs, exponents, hex, words, and strings Date.parse would stretch into a date', () => {
    fc.assert(fc.property(fc.integer({ min: 1 }), (n) => parseRetryAfter(`-${n}`, NOW) === undefined));
    for (const text of [null, undefined, '', 'soon', '-1', '+5', '1e3', '0x10', 'Infinity', 'NaN', 'May 5', '2026-01-01', '1 2']) {
      expect(parseRetryAfter(text, NOW)).toBeUndefined();
    }
  });
});

describe('retryAfterSecondsOf', () => {
  it('prefers a readable retry-after-ms, in seconds and bounded, over retry-after', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 10 * MAX_RETRY_AFTER_SECONDS * 1000 }), fc.integer({ min: 0, max: 1000 }), (ms, seconds) => {
        const headers = new Headers({ 'retry-after-ms': String(ms), 'retry-after': String(seconds) });
        expect(retryAfterSecondsOf(headers, NOW)).toBe(Math.min(ms / 1000, MAX_RETRY_AFTER_SECONDS));
      }),
    );
  });

  it('falls back to retry-after when retry-after-ms is absent or unreadable', () => {
    expect(retryAfterSecondsOf(new Headers({ 'retry-after': '9' }), NOW)).toBe(9);
    expect(retryAfterSecondsOf(new Headers({ 'retry-after-ms': 'soon', 'retry-after': '9' }), NOW)).toBe(9);
    expect(retryAfterSecondsOf(new Headers({ 'retry-after-ms': '-5', 'retry-after': 'Thu, 01 Jan 2026 00:01:00 GMT' }), NOW)).toBe(60);
    expect(retryAfterSecondsOf(new Headers(), NOW)).toBeUndefined();
  });
});

/** A Go time.Duration.String() of whole milliseconds, as OpenAI's reset headers send it ("6m0s", "1.5s", "20ms"). */
function goDuration(ms: number): string {
  if (ms < 1000) return `${ms}ms`;
  const hours = Math.floor(ms / 3_600_000);
  const minutes = Math.floor((ms % 3_600_000) / 60_000);
  const seconds = (ms % 60_000) / 1000;
  return `${hours > 0 ? `${hours}h` : ''}${hours > 0 || minutes > 0 ? `${minutes}m` : ''}${seconds}s`;
}

describe('parseGoDuration (OpenAI x-ratelimit-reset-*)', () => {
  it('reads every duration Go prints, to the millisecond, bounded', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 2 * MAX_RETRY_AFTER_SECONDS * 1000 }), (ms) => {
        expect(parseGoDuration(goDuration(ms))).toBeCloseTo(Math.min(ms / 1000, MAX_RETRY_AFTER_SECONDS), 6);
      }),
    );
    expect(parseGoDuration('1s')).toBe(1);
    expect(parseGoDuration('6m0s')).toBe(360);
    expect(parseGoDuration('20ms')).toBeCloseTo(0.02, 9);
    expect(parseGoDuration('1h2m3.5s')).toBe(3723.5);
  });

  it('never answers negative, NaN or beyond the bound, and ignores what is not a duration', () => {
    fc.assert(fc.property(fc.string(), (text) => isSane(parseGoDuration(text))));
    for (const text of [null, undefined, '', 's', '5', '-1s', '1d', '1.s', 'Infinitys', '1e3s', '9'.repeat(100) + 's']) expect(parseGoDuration(text)).toBeUndefined();
  });
});

describe('parseResetInstant (Anthropic anthropic-ratelimit-*-reset)', () => {
  it('reads an RFC 3339 instant as seconds from now, 0 when past, bounded', () => {
    fc.assert(
      fc.property(instant, instant, (resetMs, now) => {
        const expected = Math.min(MAX_RETRY_AFTER_SECONDS, Math.max(0, (resetMs - now) / 1000));
        expect(parseResetInstant(new Date(resetMs).toISOString(), now)).toBeCloseTo(expected, 6);
      }),
    );
    expect(parseResetInstant('2026-01-01T00:00:42Z', NOW)).toBe(42);
    expect(parseResetInstant('2026-01-01T01:00:42+01:00', NOW)).toBe(42);
  });

  it('ignores what Date.parse would read but RFC 3339 does not allow', () => {
    fc.assert(fc.property(fc.string(), instant, (text, now) => isSane(parseResetInstant(text, now))));
    for (const text of [null, '', '2026-01-01', 'Thu, 01 Jan 2026 00:00:30 GMT', '42', '2026-01-01T00:00:42']) expect(parseResetInstant(text, NOW)).toBeUndefined();
  });
});

describe('parseProtobufDuration (Gemini RetryInfo.retryDelay)', () => {
  it('reads seconds with up to nine decimals, bounded, and nothing else', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 2 * MAX_RETRY_AFTER_SECONDS }), fc.integer({ min: 0, max: 999 }), (seconds, millis) => {
        const text = `${seconds}.${String(millis).padStart(3, '0')}s`;
        expect(parseProtobufDuration(text)).toBeCloseTo(Math.min(seconds + millis / 1000, MAX_RETRY_AFTER_SECONDS), 6);
      }),
    );
    fc.assert(fc.property(fc.anything(), (value) => isSane(parseProtobufDuration(value))));
    expect(parseProtobufDuration('30s')).toBe(30);
    for (const value of ['30', '-1s', '1.s', '1e3s', 30, null, { seconds: 30 }]) expect(parseProtobufDuration(value)).toBeUndefined();
  });
});

describe('throttleSecondsOf', () => {
  it('prefers Retry-After, then the latest reset of the limits used up, else the soonest reset', () => {
    expect(throttleSecondsOf(new Headers({ 'retry-after': '3', 'x-ratelimit-reset-requests': '6m0s' }), NOW)).toBe(3);
    expect(throttleSecondsOf(new Headers({ 'x-ratelimit-reset-requests': '20ms', 'x-ratelimit-reset-tokens': '6m0s' }), NOW)).toBeCloseTo(0.02, 9);
    const tokensUsedUp = { 'x-ratelimit-remaining-requests': '59', 'x-ratelimit-reset-requests': '1s', 'x-ratelimit-remaining-tokens': '0', 'x-ratelimit-reset-tokens': '1m30s' };
    expect(throttleSecondsOf(new Headers(tokensUsedUp), NOW)).toBe(90);
    const anthropic = { 'anthropic-ratelimit-requests-remaining': '0', 'anthropic-ratelimit-requests-reset': '2026-01-01T00:00:12Z', 'anthropic-ratelimit-tokens-reset': '2026-01-01T00:00:02Z' };
    expect(throttleSecondsOf(new Headers(anthropic), NOW)).toBe(12);
    expect(throttleSecondsOf(new Headers({ 'x-ratelimit-reset-requests': 'soon' }), NOW)).toBeUndefined();
  });

  it('is always sane, whatever the headers say', () => {
    const names = ['retry-after', 'retry-after-ms', 'x-ratelimit-reset-requests', 'x-ratelimit-remaining-tokens', 'x-ratelimit-reset-tokens', 'anthropic-ratelimit-tokens-reset', 'anthropic-ratelimit-tokens-remaining'];
    const value = fc.oneof(fc.string({ maxLength: 40 }), instant.map((ms) => new Date(ms).toISOString()), fc.nat().map((ms) => `${ms}ms`));
    fc.assert(
      fc.property(fc.dictionary(fc.constantFrom(...names), value), instant, (record, now) => {
        const headers = new Headers();
        for (const [name, text] of Object.entries(record)) {
          try {
            headers.set(name, text);
          } catch {
            // Not a valid header value at all: no upstream can send it.
          }
        }
        return isSane(throttleSecondsOf(headers, now));
      }),
    );
  });
});
