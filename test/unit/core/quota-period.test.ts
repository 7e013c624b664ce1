import { describe, expect, it } from 'vitest';
import { quotaPeriod } from '../../../src/core/quota-period.js';

describe('quota period', () => {
  it('is the calendar month in UTC, resetting at the start of the next one', () => {
    expect(quotaPeriod(Date.UTC(2026, 10, 15, 12))).toMatchObject({ key: '2026-11', resetsAt: '2026-12-01T00:00:00.000Z' });
  });

  it('includes the first and last millisecond of the month', () => {
    expect(quotaPeriod(Date.UTC(2026, 10, 1)).key).toBe('2026-11');
    expect(quotaPeriod(Date.UTC(2026, 11, 1) - 1).key).toBe('2026-11');
    expect(quotaPeriod(Date.UTC(2026, 11, 1)).key).toBe('2026-12');
  });

  it('rolls over the year in December', () => {
    expect(quotaPeriod(Date.UTC(2026, 11, 31, 23, 59, 59, 999))).toMatchObject({ key: '2026-12', resetsAt: '2027-01-01T00:00:00.000Z' });
    expect(quotaPeriod(Date.UTC(2027, 0, 1))).toMatchObject({ key: '2027-01', resetsAt: '2027-02-01T00:00:00.000Z' });
  });

  it('ignores the local time zone', () => {
    // 2026-02-28T23:30 in New York is already March in UTC.
    expect(quotaPeriod(Date.parse('2026-02-28T23:30:00-05:00'))).toMatchObject({ key: '2026-03', resetsAt: '2026-04-01T00:00:00.000Z' });
  });

  it('gives the reused answer only for instants inside its month, going back as well as forward', () => {
    const november = quotaPeriod(Date.UTC(2026, 10, 15));
    expect(quotaPeriod(Date.UTC(2026, 10, 20))).toBe(november);
    expect(november).toMatchObject({ startsAtMs: Date.UTC(2026, 10, 1), resetsAtMs: Date.UTC(2026, 11, 1) });
    expect(quotaPeriod(Date.UTC(2026, 9, 31, 23, 59, 59, 999)).key).toBe('2026-10');
    expect(quotaPeriod(Date.UTC(2026, 10, 15)).key).toBe('2026-11');
    expect(Object.isFrozen(november)).toBe(true);
  });

  it('handles February in leap years', () => {
    expect(quotaPeriod(Date.UTC(2028, 1, 29, 12))).toMatchObject({ key: '2028-02', resetsAt: '2028-03-01T00:00:00.000Z' });
  });
});
