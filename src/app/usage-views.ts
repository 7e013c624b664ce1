/** How the usage and support pages read their query and label what the ledger returns (pure; no I/O). */
import type { UsageDimension } from '../stores/ledger-store.js';
import type { Role } from '../stores/people-store.js';
import type { TeamDimension, TeamDirectory, UsageScope } from '../usage/usage-attribution.js';
import type { UsageGrouping } from '../usage/usage-report.js';

export type UsageSplit = UsageDimension | TeamDimension;

/** The splits the usage page offers, in the order of its menu. */
export const SPLITS: readonly { by: UsageSplit; label: string; noun: string }[] = [
  { by: 'route', label: 'Route profile', noun: 'route profile' },
  { by: 'provider', label: 'Provider', noun: 'provider' },
  { by: 'key', label: 'API key', noun: 'API key' },
  { by: 'model', label: 'Provider model', noun: 'provider model' },
  { by: 'member', label: 'Member', noun: 'member' },
  { by: 'workspace', label: 'Workspace', noun: 'workspace' },
];
const CSV_GROUPINGS: readonly UsageGrouping[] = ['day', 'route', 'provider', 'key', 'model', 'member', 'workspace'];
/** Person and workspace ids as the stores make them (`psn_…`, `wks_…`); anything else is no filter the page made. */
const FILTER_ID = /^[A-Za-z0-9_-]{1,64}$/;
/** The chart's span: today and the 29 days before it. */
export const CHART_DAYS = 30;
/** Request ids the router issues or accepts in X-Request-Id (server/stages/request-id.ts). */
const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;
const DAY = /^\d{4}-\d{2}-\d{2}$/;

/** Whose usage a page or export shows: one member's keys and/or one workspace's (ids; absent: everyone's). */
export interface UsageFilters {
  member?: string;
  workspace?: string;
}

export interface UsageQuery extends UsageFilters {
  tz: string;
  by: UsageSplit;
}

/** The `member` and `workspace` parameters, when they look like ids (the scope check decides whether they are the account's). */
function filtersOf(params: URLSearchParams): UsageFilters | { problem: string } {
  const filters: UsageFilters = {};
  for (const name of ['member', 'workspace'] as const) {
    const value = params.get(name);
    if (value === null || value === '') continue;
    if (!FILTER_ID.test(value)) return { problem: `Choose the ${name} from the list.` };
    filters[name] = value;
  }
  return filters;
}

/**
 * The usage a person may see, narrowed by the filters they chose. A `member` sees only the usage of the
 * keys they hold, whatever the query says; owners, admins and viewers see everyone's. A filter naming no
 * member or workspace of the organization is a problem, never an empty page that looks like no usage.
 */
export function usageScopeFor(viewer: { role: Role; personId: string }, filters: UsageFilters, directory: TeamDirectory): { scope: UsageScope } | { problem: string } {
  const scope: UsageScope = {};
  if (filters.member !== undefined) {
    if (!directory.people.has(filters.member)) return { problem: 'Choose the member from the list: that one is not in this organization.' };
    scope.personId = filters.member;
  }
  if (filters.workspace !== undefined) {
    if (!directory.workspaces.has(filters.workspace)) return { problem: 'Choose the workspace from the list: that one is not in this organization.' };
    scope.workspaceId = filters.workspace;
  }
  // A member's own usage only: set last, so no filter can widen it.
  if (viewer.role === 'member') scope.personId = viewer.personId;
  return { scope };
}

/** The requested zone as given (`fallback` when absent); the report refuses an unknown one with a clear message. */
function zoneOf(params: URLSearchParams, fallback = 'UTC'): string {
  return (params.get('tz') ?? '').trim().slice(0, 64) || fallback;
}

/** The usage page's `tz` and `by`: defaults for absent ones (the person's chosen zone), a problem for values it does not offer. */
export function readUsageQuery(params: URLSearchParams, defaultZone = 'UTC'): UsageQuery | { problem: string; tz: string; by: UsageSplit } {
  const tz = zoneOf(params, defaultZone);
  const by = params.get('by') ?? 'route';
  const split = SPLITS.find((entry) => entry.by === by);
  if (!split) return { problem: `Choose how to split the charts from the list: ${SPLITS.map((entry) => entry.label).join(', ')}.`, tz, by: 'route' };
  const filters = filtersOf(params);
  if ('problem' in filters) return { problem: filters.problem, tz, by: split.by };
  return { tz, by: split.by, ...filters };
}

export interface CsvQuery extends UsageFilters {
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
  const filters = filtersOf(params);
  if ('problem' in filters) return filters;
  const query: CsvQuery = { tz, by, ...filters };
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
