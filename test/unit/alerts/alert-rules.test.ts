/** The pure alert rules: which threshold a use has reached, and when a key's traffic is a leaked-key signal. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { describeAlert, isKeyRejection, isTrafficSpike, THRESHOLDS, thresholdReached } from '../../../src/alerts/alert-rules.js';

describe('thresholdReached', () => {
  it('is 80 from exactly 80 % and 100 from exactly 100 %, null below 80 % or without a limit', () => {
    expect(thresholdReached(79, 100)).toBeNull();
    expect(thresholdReached(80, 100)).toBe(80);
    expect(thresholdReached(99, 100)).toBe(80);
    expect(thresholdReached(100, 100)).toBe(100);
    expect(thresholdReached(250, 100)).toBe(100);
    expect(thresholdReached(4, 5)).toBe(80);
    expect(thresholdReached(3, 5)).toBeNull();
    expect(thresholdReached(10, 0)).toBeNull();
    expect(thresholdReached(10, -1)).toBeNull();
    expect(thresholdReached(10, Number.NaN)).toBeNull();
  });

  it('is the highest threshold whose share the use has reached (property)', () => {
    fc.assert(
      fc.property(fc.nat({ max: 10_000_000 }), fc.integer({ min: 1, max: 10_000_000 }), (used, limit) => {
        const reached = thresholdReached(used, limit);
        const expected = [...THRESHOLDS].filter((level) => used * 100 >= limit * level).pop() ?? null;
        expect(reached).toBe(expected);
      }),
    );
  });

  it('never goes down as use grows within a period, so each level is first reached once (property)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 100_000 }), fc.array(fc.nat({ max: 200_000 }), { maxLength: 60 }), (limit, increments) => {
        let used = 0;
        let previous: number | null = null;
        const firstReached = new Map<number, number>();
        increments.forEach((step, index) => {
          used += step;
          const level = thresholdReached(used, limit);
          if (previous !== null) expect(level ?? 0).toBeGreaterThanOrEqual(previous);
          if (level !== null && !firstReached.has(level)) firstReached.set(level, index);
          previous = level ?? 0;
        });
        // A level is reached from the first use at or above its share, and stays reached.
        for (const [level, index] of firstReached) {
          let total = 0;
          for (let i = 0; i <= index; i++) total += increments[i]!;
          expect(total * 100).toBeGreaterThanOrEqual(limit * level);
        }
      }),
    );
  });
});

describe('isTrafficSpike', () => {
  const rule = { minRequests: 200, factor: 10 };

  it('flags a quiet key that suddenly sends hundreds, not a busy key at its usual rate', () => {
    expect(isTrafficSpike(300, 0, rule)).toBe(true);
    expect(isTrafficSpike(300, 167 * 100, rule)).toBe(false);
    expect(isTrafficSpike(199, 0, rule)).toBe(false);
    expect(isTrafficSpike(200, 0, rule)).toBe(true);
    // Ten times its own rate of 50 an hour is 500.
    expect(isTrafficSpike(499, 167 * 50, rule)).toBe(false);
    expect(isTrafficSpike(500, 167 * 50, rule)).toBe(true);
  });

  it('never fires below spikeMinRequests, whatever the history (property)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 100_000 }), fc.nat({ max: 10_000_000 }), fc.double({ min: 1, max: 1000, noNaN: true }), fc.nat({ max: 100_000 }), (minRequests, weekBefore, factor, lastHour) => {
        fc.pre(lastHour < minRequests);
        expect(isTrafficSpike(lastHour, weekBefore, { minRequests, factor })).toBe(false);
      }),
    );
  });

  it('fires exactly when the last hour reaches both the minimum and factor times the usual hourly rate (property)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 10_000 }), fc.nat({ max: 1_000_000 }), fc.integer({ min: 1, max: 100 }), fc.nat({ max: 100_000 }), (minRequests, weekBefore, factor, lastHour) => {
        const usual = Math.max(1, weekBefore / 167);
        expect(isTrafficSpike(lastHour, weekBefore, { minRequests, factor })).toBe(lastHour >= minRequests && lastHour >= factor * usual);
      }),
    );
  });
});

describe('isKeyRejection', () => {
  it('is a 401, 402 or 403, never a throttle, a server error or no answer', () => {
    expect([401, 402, 403].every(isKeyRejection)).toBe(true);
    expect([null, 200, 400, 404, 429, 500, 502].some(isKeyRejection)).toBe(false);
  });
});

describe('describeAlert', () => {
  it('words each level of a threshold and names the key by its masked label only', () => {
    expect(describeAlert({ kind: 'quota', level: 80, subject: '', details: { used: 4, limit: 5 } }).title).toBe('You have used 80 % of your monthly requests');
    expect(describeAlert({ kind: 'quota', level: 100, subject: '', details: { used: 5, limit: 5 } }).title).toBe('Your monthly requests are used up');
    const key = describeAlert({ kind: 'key_cap', level: 100, subject: 'key_1', details: { keyName: 'ci', keyLabel: 'sk_router_…abcd', used: 5, limit: 5 } });
    expect(key.title).toBe('Key "ci" reached its monthly cap');
    expect(key.lines.join(' ')).toContain('sk_router_…abcd');
    const rejected = describeAlert({ kind: 'provider_key_rejected', level: 0, subject: 'openai', details: { provider: 'openai', status: 401, source: 'test', at: '2026-11-26T10:00:00.000Z' } });
    expect(rejected.lines[0]).toContain('when you tested it');
  });
});
