/**
 * A key's `limit_reset` (the budget calendar, stores/budget-periods.ts) and its `usage_daily|weekly|monthly`
 * (accounts/key-figures.ts) are the same UTC windows for any instant: the period that holds an instant
 * starts at 00:00 UTC of its day, of its week's Monday, of its month's 1st, ends where the next begins,
 * and the period key changes exactly at that boundary and nowhere inside it.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { budgetPeriodOf, limitResetOf, usageWindowStarts, type LimitReset } from '../../../src/accounts/key-figures.js';
import { budgetPeriodEnd, budgetPeriodKey } from '../../../src/stores/budget-periods.js';

const WINDOW: Readonly<Record<LimitReset, 'day' | 'week' | 'month'>> = { daily: 'day', weekly: 'week', monthly: 'month' };
// 1970 to 2200, to the millisecond.
const instant = fc.integer({ min: 0, max: Date.UTC(2200, 0, 1) });
const reset = fc.constantFrom<LimitReset>('daily', 'weekly', 'monthly');

describe('key limit periods', () => {
  it('maps limit_reset to a budget period and back', () => {
    for (const value of ['daily', 'weekly', 'monthly'] as const) expect(limitResetOf(budgetPeriodOf(value))).toBe(value);
    expect(budgetPeriodOf(null)).toBe('total');
    expect(limitResetOf('total')).toBeNull();
  });

  it('starts every period at 00:00 UTC where the usage window starts, and changes its key only at the next start', () => {
    fc.assert(
      fc.property(instant, reset, (at, limitReset) => {
        const period = budgetPeriodOf(limitReset);
        const start = Date.parse(usageWindowStarts(at)[WINDOW[limitReset]]);
        const end = Date.parse(budgetPeriodEnd(period, at)!);
        expect(start).toBeLessThanOrEqual(at);
        expect(at).toBeLessThan(end);
        expect(new Date(start).toISOString()).toMatch(/T00:00:00\.000Z$/);
        expect(new Date(end).toISOString()).toMatch(/T00:00:00\.000Z$/);
        if (limitReset === 'weekly') expect(new Date(start).getUTCDay()).toBe(1);
        if (limitReset === 'monthly') expect(new Date(start).getUTCDate()).toBe(1);
        // The whole window is one period; the instant before it and the one at its end are others.
        const key = budgetPeriodKey(period, at);
        expect(budgetPeriodKey(period, start)).toBe(key);
        expect(budgetPeriodKey(period, end - 1)).toBe(key);
        expect(budgetPeriodKey(period, end)).not.toBe(key);
        if (start > 0) expect(budgetPeriodKey(period, start - 1)).not.toBe(key);
        // The next period starts where this one ends.
        expect(Date.parse(usageWindowStarts(end)[WINDOW[limitReset]])).toBe(end);
      }),
      { numRuns: 2000 },
    );
  });
});
