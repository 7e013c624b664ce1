/**
 * The usage page (this month against the plan; the last 30 days charted, tabulated and exported as CSV
 * in a chosen time zone; recent requests) and the support page with its redacted bundle download. All
 * ledger reads go through deps.ledger (ledger-seams.ts), each one query and scoped to the signed-in account.
 */
import { eventHandler, setResponseHeader, type H3Event, type Router } from 'h3';
import { quotaPeriod } from '../../core/quota-period.js';
import type { LedgerRecord } from '../../stores/ledger-store.js';
import type { ApiKeyRecord } from '../../stores/store.js';
import { InvalidReportRangeError, lastDays, type DailyUsage } from '../../usage/usage-report.js';
import { usageReportCsv } from '../../usage/usage-csv.js';
import { sendHtml, setSecurityHeaders } from '../http-helpers.js';
import { utcLabel } from '../key-views.js';
import { formProblem } from '../form-state.js';
import { errorPage, signedInAction, signedInPage, type PageContext } from '../page-kit.js';
import { usageChart } from '../usage-chart.js';
import { CHART_DAYS, SPLITS, formatCount, isRequestId, readCsvQuery, readUsageQuery, timeZoneNames, zonedLabel, type UsageQuery } from '../usage-views.js';
import type { WebDeps } from '../web-deps.js';

const RECENT_REQUESTS = 20;

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

  function labelOf(by: UsageQuery['by'], keyLabel: (id: string | null) => string) {
    return (group: string | null): string => {
      if (by === 'key') return keyLabel(group);
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
      totals: { ...row(totals, 'Total'), cached: formatCount(totals.cachedTokens), cacheWrite: formatCount(totals.cacheWriteTokens), reasoning: formatCount(totals.reasoningTokens), cacheSavings: totals.cacheSavingsUsd },
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

  router.get(
    `${app}/usage`,
    signedInPage(deps, async (event, page) => {
      const query = readUsageQuery(searchOf(event), page.timeZone);
      const split = SPLITS.find((entry) => entry.by === query.by)!;
      const base = { title: 'Usage', month: await month(page), zones, tz: query.tz, by: query.by, splits: SPLITS, recording: deps.ledger.recording };
      if ('problem' in query) return page.view('usage', { ...base, problem: query.problem }, { status: 400 });
      let usage: DailyUsage;
      try {
        const range = lastDays(deps.clock.now(), query.tz, CHART_DAYS);
        usage = await deps.ledger.daily({ accountId: page.account.id, ...range, tz: query.tz, by: query.by });
      } catch (error) {
        if (error instanceof InvalidReportRangeError) return page.view('usage', { ...base, problem: `Usage cannot be shown: ${error.message}.` }, { status: 400 });
        throw error;
      }
      const [keys, recent] = await Promise.all([deps.store.listApiKeys(page.account.id), deps.ledger.recentRequests(page.account.id, RECENT_REQUESTS)]);
      const keyLabel = keyLabeller(keys);
      const label = labelOf(query.by, keyLabel);
      const csv = (by: string) => `${app}/usage.csv?${new URLSearchParams({ by, tz: query.tz, from: usage.from, to: usage.to })}`;
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
      try {
        const range = query.from && query.to ? { from: query.from, to: query.to } : lastDays(deps.clock.now(), query.tz, CHART_DAYS);
        const report = await deps.ledger.report({ accountId: page.account.id, ...range, by: query.by, tz: query.tz });
        setSecurityHeaders(event);
        setResponseHeader(event, 'content-type', 'text/csv; charset=utf-8');
        setResponseHeader(event, 'content-disposition', `attachment; filename="usage-${report.from}-to-${report.to}-by-${report.by}.csv"`);
        return usageReportCsv(report);
      } catch (error) {
        if (error instanceof InvalidReportRangeError) return errorPage(deps, event, 400, 'This export cannot be made', `${error.message}.`);
        throw error;
      }
    }),
  );

  async function supportView(page: PageContext, extra: Record<string, unknown> = {}, status?: number) {
    const recent = await deps.ledger.recentRequests(page.account.id, 10);
    return page.view('support', { title: 'Support', bundle: { recording: deps.ledger.recording, recent: recent.map((record) => record.requestId) }, ...extra }, status ? { status } : {});
  }

  router.get(
    `${app}/support`,
    eventHandler(async (event) => {
      // The page is for everyone; the bundle form only for a signed-in account.
      if (!(await deps.sessions.resolve(event))) return sendHtml(event, deps.renderer.page('support', { title: 'Support', bundle: null }));
      return signedInPage(deps, (_event, page) => {
        const requested = searchOf(event).get('request') ?? '';
        return supportView(page, { requestId: isRequestId(requested) ? requested : '' });
      })(event);
    }),
  );

  router.post(
    `${app}/support/bundle`,
    signedInAction(deps, async (event, page, form) => {
      const requestId = (form.requestId ?? '').trim();
      // At the field, what was typed kept (form-state.ts).
      const atField = (error: string, status: number) => supportView(page, formProblem(`${app}/support/bundle`, { requestId }, { requestId: error }), status);
      if (!isRequestId(requestId)) return atField('A request id is up to 128 letters, digits and . _ : - (the X-Request-Id header of a response).', 400);
      // Another account's request id answers exactly as a made-up one does.
      const bundle = await deps.ledger.supportBundle(page.account.id, requestId);
      if (!bundle) return atField(`No request ${requestId} was recorded for this account.`, 404);
      setSecurityHeaders(event);
      setResponseHeader(event, 'content-type', 'application/json; charset=utf-8');
      setResponseHeader(event, 'content-disposition', `attachment; filename="support-bundle-${requestId.replace(/[^A-Za-z0-9._-]/g, '_')}.json"`);
      return `${JSON.stringify(bundle, null, 2)}\n`;
    }),
  );
}
