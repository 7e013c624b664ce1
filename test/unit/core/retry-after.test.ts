import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MAX_RETRY_AFTER_SECONDS, parseRetryAfter, retryAfterSecondsOf } from '../../../src/core/retry-after.js';

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
