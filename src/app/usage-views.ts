/** How the usage and support pages read their query and label what the ledger returns (pure; no I/O). */
import type { UsageDimension } from '../stores/ledger-store.js';
import type { UsageGrouping } from '../usage/usage-report.js';

/** The splits the usage page offers, in the order of its menu. */
export const SPLITS: readonly { by: UsageDimension; label: string; noun: string }[] = [
  { by: 'route', label: 'Route profile', noun: 'route profile' },
  { by: 'provider', label: 'Provider', noun: 'provider' },
  { by: 'key', label: 'API key', noun: 'API key' },
  { by: 'model', label: 'Provider model', noun: 'provider model' },
];
const CSV_GROUPINGS: readonly UsageGrouping[] = ['day', 'route', 'provider', 'key', 'model'];
/** The chart's span: today and the 29 days before it. */
export const CHART_DAYS = 30;
/** Request ids the router issues or accepts in X-Request-Id (server/stages/request-id.ts). */
const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;
const DAY = /^\d{4}-\d{2}-\d{2}$/;

export interface UsageQuery {
  tz: string;
  by: UsageDimension;
}

/** The requested zone as given (`fallback` when absent); the report refuses an unknown one with a clear message. */
function zoneOf(params: URLSearchParams, fallback = 'UTC'): string {
  return (params.get('tz') ?? '').trim().slice(0, 64) || fallback;
}

/** The usage page's `tz` and `by`: defaults for absent ones (the person's chosen zone), a problem for values it does not offer. */
export function readUsageQuery(params: URLSearchParams, defaultZone = 'UTC'): UsageQuery | { problem: string; tz: string; by: UsageDimension } {
  const tz = zoneOf(params, defaultZone);
  const by = params.get('by') ?? 'route';
  const split = SPLITS.find((entry) => entry.by === by);
  if (!split) return { problem: `Choose how to split the charts from the list: ${SPLITS.map((entry) => entry.label).join(', ')}.`, tz, by: 'route' };
  return { tz, by: split.by };
}

export interface CsvQuery {
  tz: string;
  by: UsageGrouping;
  from?: string;
  to?: string;
}

/** The CSV export's `by`, `tz`, `from` and `to` (dates are checked by the report itself). */
export function readCsvQuery(params: URLSearchParams): CsvQuery | { problem: string } {
  const tz = zoneOf(params);
  const by = (params.get('by') ?? 'day') as UsageGrouping;
  if (!CSV_GROUPINGS.includes(by)) return { problem: `by must be one of ${CSV_GROUPINGS.join(', ')}.` };
  const query: CsvQuery = { tz, by };
  for (const name of ['from', 'to'] as const) {
    const value = params.get(name);
    if (value === null || value === '') continue;
    if (!DAY.test(value)) return { problem: `${name} must be a date, YYYY-MM-DD.` };
    query[name] = value;
  }
  return query;
}

export function isRequestId(value: string): boolean {
  return REQUEST_ID.test(value);
}

const zoned = new Map<string, Intl.DateTimeFormat>();

/** `2026-11-21 11:05` in the zone (a zone the page already validated). */
export function zonedLabel(iso: string, timeZone: string): string {
  let format = zoned.get(timeZone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' });
    zoned.set(timeZone, format);
  }
  const parts = Object.fromEntries(format.formatToParts(new Date(iso)).map((part) => [part.type, part.value]));
  return `${parts.year}-${parts.month}-${parts.day} ${parts.hour}:${parts.minute}`;
}

/** Every IANA zone this Node knows, for the zone field's suggestions. */
export function timeZoneNames(): readonly string[] {
  const names = Intl.supportedValuesOf('timeZone');
  // Some ICU versions list UTC only as an alias; it is the default here, so it always leads the list.
  return ['UTC', ...names.filter((name) => name !== 'UTC')];
}

const whole = new Intl.NumberFormat('en-US');
export const formatCount = (value: number): string => whole.format(value);
