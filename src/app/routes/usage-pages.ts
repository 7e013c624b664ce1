/**
 * The usage page (this month against the plan; the last 30 days charted, tabulated and exported as CSV
 * in a chosen time zone, split by route, provider, key, model, member or workspace and narrowed to one
 * member or workspace; recent requests). All
 * ledger reads go through deps.ledger (ledger-seams.ts), each one query and scoped to the signed-in
 * account; a `member` reads only the usage of the keys they hold (usage-views.ts `usageScopeFor`), on
 * the page, in the CSV and in the recent requests alike. The support page is in support-pages.ts.
 */
import { setResponseHeader, type H3Event, type Router } from 'h3';
import { quotaPeriod } from '../../core/quota-period.js';
import type { LedgerRecord } from '../../stores/ledger-store.js';
import type { ApiKeyRecord } from '../../stores/store.js';
import { formatNanoUsd } from '../../usage/nano-usd.js';
import { InvalidReportRangeError, lastDays, type DailyUsage } from '../../usage/usage-report.js';
import { usageReportCsv } from '../../usage/usage-csv.js';
import { loadTeamDirectory, rowTeams, withFormerPeople, withRecordedPeople, type TeamDirectory, type UsageScope } from '../../usage/usage-attribution.js';
import { setSecurityHeaders } from '../http-helpers.js';
import { utcLabel } from '../key-views.js';
import { errorPage, signedInPage, type PageContext } from '../page-kit.js';
import { usageChart } from '../usage-chart.js';
import { CHART_DAYS, SPLITS, formatCount, readCsvQuery, readUsageQuery, timeZoneNames, usageScopeFor, zonedLabel, type UsageFilters, type UsageQuery } from '../usage-views.js';
import type { WebDeps } from '../web-deps.js';

const RECENT_REQUESTS = 20;

/** Local days [from, to] in a time zone (checked when read: a bad one throws InvalidReportRangeError). */
type DaysInZone = { from: string; to: string; tz: string };

export function registerUsagePages(router: Router, deps: WebDeps): void {
  const app = deps.paths.app;
  const zones = timeZoneNames();
  const providerNames = new Map(deps.config.providers.providers.map((provider) => [provider.id, provider.name]));
  const searchOf = (event: H3Event) => new URL(event.path, 'http://x').searchParams;

  /** This month against the plan: the quota ledger's own numbers, as the X-Quota-* headers give them. */
  async function month(page: PageContext) {
    const period = quotaPeriod(deps.clock.now());
    const standing = await deps.quota.peek(page.account.id, period.key, deps.quotaLimits);
    const used = standing?.used ?? 0;
    const limit = standing?.limit ?? 0;
    // Unformatted, so they read exactly as the X-Quota-* headers do.
    return {
      period: period.key,
      used,
      limit,
      remaining: Math.max(0, limit - used),
      percent: limit > 0 ? Math.min(100, (used / limit) * 100).toFixed(2) : '0',
      resetsAt: period.resetsAt,
      // UTC on purpose, whatever zone the person chose: quota months are calendar months in UTC for everyone.
      resetsLabel: utcLabel(period.resetsAt),
      requestsPerMinute: page.plan?.requestsPerMinute ?? 0,
    };
  }

  function keyLabeller(keys: readonly ApiKeyRecord[]) {
    const byId = new Map(keys.map((key) => [key.id, `${key.name ?? '(unnamed)'} …${key.last4}`]));
    return (keyId: string | null) => (keyId === null ? 'no key' : (byId.get(keyId) ?? keyId));
  }

  function labelOf(by: UsageQuery['by'], keyLabel: (id: string | null) => string, directory: TeamDirectory) {
    return (group: string | null): string => {
      if (by === 'key') return keyLabel(group);
      if (by === 'member') return group === null ? 'no member (keys the operator made, requests with no key)' : (directory.people.get(group) ?? group);
      if (by === 'workspace') return group === null ? 'no workspace (requests with no key)' : (directory.workspaces.get(group) ?? group);
      if (group === null) return by === 'route' ? 'no route profile' : 'not served';
      return by === 'provider' ? (providerNames.get(group) ?? group) : group;
    };
  }

  function requestRows(records: readonly LedgerRecord[], tz: string, keyLabel: (id: string | null) => string) {
    return records.map((record) => ({
      requestId: record.requestId,
      at: record.startedAt,
      atLabel: zonedLabel(record.startedAt, tz),
      route: record.routeId ?? '—',
      servedBy: record.providerId ? `${providerNames.get(record.providerId) ?? record.providerId} · ${record.upstreamModel ?? ''}` : 'not served',
      outcome: record.errorCode ? `${record.status} ${record.errorCode}` : String(record.status),
      failed: record.errorCode !== null,
      tokens: record.usage ? formatCount(record.usage.prompt + record.usage.completion) : 'unknown',
      // What this call cost at the catalog's prices; null when no provider served it (nothing to price).
      cost: record.costNanoUsd === null ? '—' : formatNanoUsd(record.costNanoUsd),
      key: keyLabel(record.keyId),
      bundleHref: `${app}/support?request=${encodeURIComponent(record.requestId)}#support-bundle`,
    }));
  }

  function tables(usage: DailyUsage, label: (group: string | null) => string) {
    const row = (sums: DailyUsage['totals'], name: string) => ({
      name,
      // By key, each row is the target of its key's "Usage of this key" link on the keys page.
      anchor: usage.by === 'key' && sums.group ? `usage-${sums.group}` : null,
      requests: formatCount(sums.requests),
      failed: formatCount(sums.failedRequests),
      prompt: formatCount(sums.promptTokens),
      completion: formatCount(sums.completionTokens),
      cost: sums.costUsd,
    });
    const totals = usage.totals;
    return {
      byValue: usage.rows.map((sums) => row(sums, label(sums.group))),
      byDay: usage.dayTotals.map((sums) => row(sums, sums.group ?? '')),
      totals: { ...row(totals, 'Total'), cached: formatCount(totals.cachedTokens), cacheWrite: formatCount(totals.cacheWriteTokens), reasoning: formatCount(totals.reasoningTokens), cacheSavings: totals.cacheSavingsUsd, cacheHits: formatCount(totals.responseCacheHits), cacheHitsSaved: totals.responseCacheSavedUsd },
      // Each token type's tokens and cost over the range (the costs add up to the total's).
      byTokenType: [
        { name: 'Input (not cached)', tokens: formatCount(totals.promptTokens - totals.cachedTokens - totals.cacheWriteTokens), cost: totals.costByTypeUsd.input },
        { name: 'Cache reads', tokens: formatCount(totals.cachedTokens), cost: totals.costByTypeUsd.cacheRead },
        { name: 'Cache writes, 5 minutes', tokens: formatCount(totals.cacheWriteTokens - totals.cacheWrite1hTokens), cost: totals.costByTypeUsd.cacheWrite },
        { name: 'Cache writes, 1 hour', tokens: formatCount(totals.cacheWrite1hTokens), cost: totals.costByTypeUsd.cacheWrite1h },
        { name: 'Output (not reasoning)', tokens: formatCount(totals.completionTokens - totals.reasoningTokens), cost: totals.costByTypeUsd.output },
        { name: 'Reasoning', tokens: formatCount(totals.reasoningTokens), cost: totals.costByTypeUsd.reasoning },
      ],
    };
  }

  /** The member and workspace filters' choices (a member's own only: theirs is the one usage they see). */
  function filterChoices(page: PageContext, directory: TeamDirectory, chosen: UsageFilters) {
    const own = page.role === 'member';
    const people = [...directory.people].filter(([id]) => !own || id === page.person.id).sort((a, b) => (a[1] < b[1] ? -1 : 1));
    return {
      ownOnly: own,
      members: people.map(([id, email]) => ({ id, label: id === page.person.id ? `${email} (you)` : directory.former?.has(id) ? `${email} (former member)` : email, selected: own || id === chosen.member })),
      workspaces: [...directory.workspaces].map(([id, name]) => ({ id, label: name, selected: id === chosen.workspace })),
    };
  }

  /**
   * The directory with everyone usage was recorded for over the days, so the member filter offers a
   * former member whose keys were all handed over. Not for a member (only their own usage is theirs to
   * see), nor for days the report itself will refuse (it says why).
   */
  async function withPeopleOfDays(page: PageContext, directory: TeamDirectory, days: () => DaysInZone): Promise<TeamDirectory> {
    if (page.role === 'member' || !deps.ledger.recording) return directory;
    try {
      return await withFormerPeople(deps.store, directory, await deps.ledger.peopleWithUsage({ accountId: page.account.id, ...days() }));
    } catch (error) {
      if (error instanceof InvalidReportRangeError) return directory;
      throw error;
    }
  }

  /** What a person may read of the account's usage, narrowed by the filters they chose (a problem for a filter not of the account). */
  async function teamViewOf(page: PageContext, filters: UsageFilters, days: () => DaysInZone): Promise<{ directory: TeamDirectory; scope: UsageScope } | { directory: TeamDirectory; problem: string }> {
    const directory = await withPeopleOfDays(page, await loadTeamDirectory(deps.store, page.account.id), days);
    const scoped = usageScopeFor({ role: page.role, personId: page.person.id }, filters, directory);
    return 'problem' in scoped ? { directory, problem: scoped.problem } : { directory, scope: scoped.scope };
  }

  router.get(
    `${app}/usage`,
    signedInPage(deps, async (event, page) => {
      const query = readUsageQuery(searchOf(event), page.timeZone);
      const split = SPLITS.find((entry) => entry.by === query.by)!;
      const chartDays = () => ({ ...lastDays(deps.clock.now(), query.tz, CHART_DAYS), tz: query.tz });
      const team = await teamViewOf(page, 'problem' in query ? {} : query, chartDays);
      const filters = filterChoices(page, team.directory, 'problem' in query ? {} : query);
      const base = { title: 'Usage', month: await month(page), zones, tz: query.tz, by: query.by, splits: SPLITS, filters, recording: deps.ledger.recording };
      if ('problem' in query) return page.view('usage', { ...base, problem: query.problem }, { status: 400 });
      if ('problem' in team) return page.view('usage', { ...base, problem: team.problem }, { status: 400 });
      let usage: DailyUsage;
      try {
        const range = lastDays(deps.clock.now(), query.tz, CHART_DAYS);
        usage = await deps.ledger.daily({ accountId: page.account.id, ...range, tz: query.tz, by: query.by, ...team });
      } catch (error) {
        if (error instanceof InvalidReportRangeError) return page.view('usage', { ...base, problem: `Usage cannot be shown: ${error.message}.` }, { status: 400 });
        throw error;
      }
      const [keys, recent] = await Promise.all([deps.store.listApiKeys(page.account.id), deps.ledger.recentRequests(page.account.id, RECENT_REQUESTS, team)]);
      const keyLabel = keyLabeller(keys);
      const label = labelOf(query.by, keyLabel, await withRecordedPeople(deps.store, team.directory, query.by, usage.rows.map((row) => row.group)));
      const narrowed = { ...(query.member ? { member: query.member } : {}), ...(query.workspace ? { workspace: query.workspace } : {}) };
      const csv = (by: string) => `${app}/usage.csv?${new URLSearchParams({ by, tz: query.tz, from: usage.from, to: usage.to, ...narrowed })}`;
      return page.view('usage', {
        ...base,
        split,
        range: { from: usage.from, to: usage.to },
        charts: [
          { title: `Requests per day by ${split.noun}`, chart: usageChart(usage, 'requests', label) },
          { title: `Tokens per day by ${split.noun}`, chart: usageChart(usage, 'tokens', label) },
        ],
        ...tables(usage, label),
        unknownUsageCalls: usage.totals.unknownUsageCalls,
        csv: { byDay: csv('day'), bySplit: csv(query.by) },
        recent: requestRows(recent, query.tz, keyLabel),
      });
    }),
  );

  router.get(
    `${app}/usage.csv`,
    signedInPage(deps, async (event, page) => {
      const query = readCsvQuery(searchOf(event));
      if ('problem' in query) return errorPage(deps, event, 400, 'This export cannot be made', query.problem);
      const days = () => (query.from && query.to ? { from: query.from, to: query.to } : lastDays(deps.clock.now(), query.tz, CHART_DAYS));
      const team = await teamViewOf(page, query, () => ({ ...days(), tz: query.tz }));
      if ('problem' in team) return errorPage(deps, event, 400, 'This export cannot be made', team.problem);
      try {
        const range = days();
        const report = await deps.ledger.report({ accountId: page.account.id, ...range, by: query.by, tz: query.tz, ...team });
        setSecurityHeaders(event);
        setResponseHeader(event, 'content-type', 'text/csv; charset=utf-8');
        setResponseHeader(event, 'content-disposition', `attachment; filename="usage-${report.from}-to-${report.to}-by-${report.by}.csv"`);
        // The same bytes as `router usage --csv` for the same account, days, split and filters.
        const directory = await withRecordedPeople(deps.store, team.directory, report.by, report.rows.map((row) => row.group));
        return usageReportCsv(report, rowTeams(directory, report.by, team.scope));
      } catch (error) {
        if (error instanceof InvalidReportRangeError) return errorPage(deps, event, 400, 'This export cannot be made', `${error.message}.`);
        throw error;
      }
    }),
  );
}
