/**
 * The monthly quota period: the calendar month in UTC. Every instance derives the same period key from
 * the same instant, so counters in a shared store line up without coordination.
 */

export interface QuotaPeriod {
  /** `YYYY-MM`, the key quota counters are stored under. */
  key: string;
  /** ISO 8601 UTC instant the period ends: the first millisecond of the next month. */
  resetsAt: string;
}

export function quotaPeriod(nowMs: number): QuotaPeriod {
  const now = new Date(nowMs);
  const year = now.getUTCFullYear();
  const month = now.getUTCMonth();
  // Date.UTC rolls month 12 over into January of the next year.
  const resetsAt = new Date(Date.UTC(year, month + 1, 1)).toISOString();
  return { key: `${year}-${String(month + 1).padStart(2, '0')}`, resetsAt };
}

/** The instant (ms since epoch) the period with key `YYYY-MM` ends. */
export function periodEndMs(periodKey: string): number {
  const [year, month] = periodKey.split('-').map(Number) as [number, number];
  return Date.UTC(year, month, 1);
}
