import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { InvalidReportRangeError, localDayRanges } from '../../../src/usage/local-days.js';

const ZONES = ['UTC', 'Europe/Berlin', 'America/New_York', 'Asia/Kolkata', 'Asia/Kathmandu', 'Australia/Lord_Howe', 'America/Santiago', 'Pacific/Chatham', 'America/St_Johns'];

const localDate = (ms: number, timeZone: string) =>
  new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' }).format(new Date(ms));

const day = fc.date({ min: new Date('2020-01-01T00:00:00Z'), max: new Date('2035-12-31T00:00:00Z'), noInvalidDate: true }).map((d) => d.toISOString().slice(0, 10));

describe('localDayRanges', () => {
  it('covers the days back to back, each exactly the instants whose local date is its label', () => {
    fc.assert(
      fc.property(day, fc.integer({ min: 0, max: 40 }), fc.constantFrom(...ZONES), (from, extra, zone) => {
        const to = new Date(Date.parse(from) + extra * 86_400_000).toISOString().slice(0, 10);
        const ranges = localDayRanges(from, to, zone);
        expect(ranges).toHaveLength(extra + 1);
        ranges.forEach((range, index) => {
          const start = Date.parse(range.from);
          const end = Date.parse(range.to);
          if (index > 0) expect(range.from).toBe(ranges[index - 1]!.to);
          expect(localDate(start, zone)).toBe(range.label);
          expect(localDate(end - 1, zone)).toBe(range.label);
          expect(localDate(start - 1, zone)).not.toBe(range.label);
          // A day is 23 to 25 hours (Lord Howe moves by half an hour).
          expect(end - start).toBeGreaterThanOrEqual(23 * 3_600_000);
          expect(end - start).toBeLessThanOrEqual(25 * 3_600_000);
          expect(start % (15 * 60_000)).toBe(0);
        });
      }),
      { numRuns: 200 },
    );
  });

  it('gives a zone at UTC+5:30 days that start at 18:30 UTC, and DST days of 23 and 25 hours', () => {
    expect(localDayRanges('2026-11-15', '2026-11-15', 'Asia/Kolkata')).toEqual([{ label: '2026-11-15', from: '2026-11-14T18:30:00.000Z', to: '2026-11-15T18:30:00.000Z' }]);
    const [spring, autumn] = [localDayRanges('2026-03-08', '2026-03-08', 'America/New_York')[0]!, localDayRanges('2026-11-01', '2026-11-01', 'America/New_York')[0]!];
    expect(Date.parse(spring.to) - Date.parse(spring.from)).toBe(23 * 3_600_000);
    expect(Date.parse(autumn.to) - Date.parse(autumn.from)).toBe(25 * 3_600_000);
  });

  it('refuses bad input with a reason', () => {
    expect(() => localDayRanges('2026-11-01', '2026-11-02', 'Mars/Olympus')).toThrow(InvalidReportRangeError);
    expect(() => localDayRanges('2026-02-30', '2026-03-01', 'UTC')).toThrow('"2026-02-30" is not a date');
    expect(() => localDayRanges('2026-11-02', '2026-11-01', 'UTC')).toThrow('is before');
    expect(() => localDayRanges('2026-01-01', '2027-01-02', 'UTC')).toThrow('at most 366 days');
    // Liberia kept UTC−0:44:30 until 1972: its days did not start on a quarter hour of UTC.
    expect(() => localDayRanges('1970-06-01', '1970-06-01', 'Africa/Monrovia')).toThrow('quarter hour');
  });
});
