/**
 * The monthly quota period: the calendar month in UTC. Every instance derives the same period key from
 * the same instant, so counters in a shared store line up without coordination.
 */

export interface QuotaPeriod {
  /** `YYYY-MM`, the key quota counters are stored under. */
  key: string;
  /** ISO 8601 UTC instant the period ends: the first millisecond of the next month. */
  resetsAt: string;
  /** The same instant in ms since the epoch. */
  resetsAtMs: number;
  /** When the period began (ms since the epoch). */
  startsAtMs: number;
}

/**
 * The period of an instant. Every admitted request asks (quota stage, key caps, spend gate, headers), so
 * the last answer is kept and reused while the instant stays inside its month: frozen, so no caller can
 * change it for the others.
 */
let last: Readonly<QuotaPeriod> | undefined;

export function quotaPeriod(nowMs: number): Readonly<QuotaPeriod> {
  if (last !== undefined && nowMs >= last.startsAtMs && nowMs < last.resetsAtMs) return last;
  const now = new Date(nowMs);
  const year = now.getUTCFullYear();
  const month = now.getUTCMonth();
  // Date.UTC rolls month 12 over into January of the next year.
  const resetsAtMs = Date.UTC(year, month + 1, 1);
  last = Object.freeze({ key: `${year}-${String(month + 1).padStart(2, '0')}`, resetsAt: new Date(resetsAtMs).toISOString(), resetsAtMs, startsAtMs: Date.UTC(year, month, 1) });
  return last;
}

/** The instant (ms since epoch) the period with key `YYYY-MM` ends. */
export function periodEndMs(periodKey: string): number {
  const [year, month] = periodKey.split('-').map(Number) as [number, number];
  return Date.UTC(year, month, 1);
}
