/**
 * Calendar days in a time zone as UTC intervals, for usage reports: all stored times are UTC and every
 * view takes an explicit zone, so a day means the same instants in every view. Pure: Intl only.
 */
import { BUCKET_MS } from '../stores/ledger-rollup.js';
import type { UsageRange } from '../stores/ledger-store.js';

const DAY = /^(\d{4})-(\d{2})-(\d{2})$/;
/** The longest range a report may span, so one query stays bounded. */
export const MAX_REPORT_DAYS = 366;

export class InvalidReportRangeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'InvalidReportRangeError';
  }
}

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatterFor(timeZone: string): Intl.DateTimeFormat {
  let formatter = formatters.get(timeZone);
  if (!formatter) {
    try {
      formatter = new Intl.DateTimeFormat('en-US', {
        timeZone,
        hourCycle: 'h23',
        year: 'numeric',
        month: '2-digit',
        day: '2-digit',
        hour: '2-digit',
        minute: '2-digit',
        second: '2-digit',
      });
    } catch {
      throw new InvalidReportRangeError(`unknown time zone "${timeZone}" (use an IANA name such as UTC, Europe/Berlin, Asia/Kolkata)`);
    }
    formatters.set(timeZone, formatter);
  }
  return formatter;
}

export function assertTimeZone(timeZone: string): void {
  formatterFor(timeZone);
}

/** The wall-clock fields of an instant in a zone, as if they were UTC (so subtracting gives the offset). */
function wallClockMs(ms: number, timeZone: string): number {
  const parts = Object.fromEntries(formatterFor(timeZone).formatToParts(new Date(ms)).map((part) => [part.type, part.value]));
  return Date.UTC(Number(parts.year), Number(parts.month) - 1, Number(parts.day), Number(parts.hour), Number(parts.minute), Number(parts.second));
}

/** `YYYY-MM-DD` as UTC midnight ms, or throws for a date that does not exist. */
export function parseDay(day: string): number {
  const match = DAY.exec(day);
  const ms = match ? Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3])) : Number.NaN;
  if (Number.isNaN(ms) || new Date(ms).toISOString().slice(0, 10) !== day) throw new InvalidReportRangeError(`"${day}" is not a date (YYYY-MM-DD)`);
  return ms;
}

const dayLabel = (utcMidnightMs: number): string => new Date(utcMidnightMs).toISOString().slice(0, 10);

/** The first instant whose local date in `timeZone` is the given day (its midnight, or later when midnight is skipped). */
export function startOfLocalDay(utcMidnightMs: number, timeZone: string): number {
  let instant = utcMidnightMs - (wallClockMs(utcMidnightMs, timeZone) - utcMidnightMs);
  // Once more with the offset in force at the first guess (a transition between the two).
  instant = utcMidnightMs - (wallClockMs(instant, timeZone) - instant);
  // A day whose midnight a DST change skips starts later; one that starts in the previous day's
  // wall clock because of a backward change is moved to the day's own first instant.
  while (wallClockMs(instant, timeZone) < utcMidnightMs) instant += BUCKET_MS;
  while (wallClockMs(instant - BUCKET_MS, timeZone) >= utcMidnightMs) instant -= BUCKET_MS;
  return instant;
}

/** One range per local day from `fromDay` to `toDay` inclusive. */
export function localDayRanges(fromDay: string, toDay: string, timeZone: string): UsageRange[] {
  assertTimeZone(timeZone);
  const first = parseDay(fromDay);
  const last = parseDay(toDay);
  if (last < first) throw new InvalidReportRangeError(`--to ${toDay} is before --from ${fromDay}`);
  const days = (last - first) / 86_400_000 + 1;
  if (days > MAX_REPORT_DAYS) throw new InvalidReportRangeError(`a report spans at most ${MAX_REPORT_DAYS} days (${fromDay} to ${toDay} is ${days})`);
  const starts: number[] = [];
  for (let day = first; day <= last + 86_400_000; day += 86_400_000) {
    const start = startOfLocalDay(day, timeZone);
    // Rollups are quarter-hour buckets: a day boundary inside one could not be answered exactly.
    if (start % BUCKET_MS !== 0) throw new InvalidReportRangeError(`days in ${timeZone} around ${dayLabel(day)} do not start on a quarter hour of UTC, so they cannot be reported exactly`);
    starts.push(start);
  }
  return starts.slice(0, -1).map((start, index) => ({
    label: dayLabel(first + index * 86_400_000),
    from: new Date(start).toISOString(),
    to: new Date(starts[index + 1]!).toISOString(),
  }));
}
