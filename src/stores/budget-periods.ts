/**
 * The calendar of budgets, UTC: which meter row an instant's spend belongs to for each period, and when
 * that period ends. Keys sort and read plainly: `d:2026-11-28`, `w:2026-11-23` (the week's Monday),
 * `m:2026-11`, `t` (all time).
 */
import type { BudgetPeriod } from './budget-store.js';

const DAY_MS = 86_400_000;

export function budgetPeriodKey(period: BudgetPeriod, atMs: number): string {
  const iso = new Date(atMs).toISOString();
  switch (period) {
    case 'day':
      return `d:${iso.slice(0, 10)}`;
    case 'week':
      return `w:${new Date(weekStartMs(atMs)).toISOString().slice(0, 10)}`;
    case 'month':
      return `m:${iso.slice(0, 7)}`;
    case 'total':
      return 't';
  }
}

/** When the period that holds `atMs` ends (the next reset); null for `total`, which never resets. */
export function budgetPeriodEnd(period: BudgetPeriod, atMs: number): string | null {
  const at = new Date(atMs);
  switch (period) {
    case 'day':
      return new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate() + 1)).toISOString();
    case 'week':
      return new Date(weekStartMs(atMs) + 7 * DAY_MS).toISOString();
    case 'month':
      return new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth() + 1, 1)).toISOString();
    case 'total':
      return null;
  }
}

/** Every period key an instant's spend is metered under (a spend counts in its day, week, month and total). */
export function allPeriodKeys(atMs: number): string[] {
  return [budgetPeriodKey('day', atMs), budgetPeriodKey('week', atMs), budgetPeriodKey('month', atMs), budgetPeriodKey('total', atMs)];
}

function weekStartMs(atMs: number): number {
  const dayStart = Math.floor(atMs / DAY_MS) * DAY_MS;
  // 1970-01-01 was a Thursday: day index 0 → Thursday; Monday-based weekday = (index + 3) mod 7.
  const weekday = (((Math.floor(atMs / DAY_MS) + 3) % 7) + 7) % 7;
  return dayStart - weekday * DAY_MS;
}
