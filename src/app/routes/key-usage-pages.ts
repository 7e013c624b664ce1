/**
 * One key's usage (linked from each key on the keys page): the last 30 days in the person's zone, by
 * day, route profile and provider, with tokens and cost. Only the signed-in account's own keys: any
 * other id (another account's, made up) is the same 404, and the ledger reads are scoped to the account
 * as well as the key.
 */
import { canManageKey } from '../route-roles.js';
import type { H3Event, Router } from 'h3';
import { InvalidReportRangeError, lastDays, type DailyUsage } from '../../usage/usage-report.js';
import { maskedKey } from '../key-views.js';
import { errorPage, signedInPage } from '../page-kit.js';
import { usageChart } from '../usage-chart.js';
import { CHART_DAYS, formatCount } from '../usage-views.js';
import type { WebDeps } from '../web-deps.js';

export function registerKeyUsagePages(router: Router, deps: WebDeps): void {
  const app = deps.paths.app;
  const providerNames = new Map(deps.config.providers.providers.map((provider) => [provider.id, provider.name]));
  const noSuchKey = (event: H3Event) => errorPage(deps, event, 404, 'No such key', 'This key does not exist in your account.');

  const row = (sums: DailyUsage['totals'], name: string) => ({
    name,
    requests: formatCount(sums.requests),
    failed: formatCount(sums.failedRequests),
    prompt: formatCount(sums.promptTokens),
    completion: formatCount(sums.completionTokens),
    cost: sums.costUsd,
  });

  router.get(
    `${app}/keys/:id/usage`,
    signedInPage(deps, async (event, page) => {
      const keyId = event.context.params?.id ?? '';
      const key = keyId ? await deps.store.getApiKey(keyId) : null;
      if (!key || key.accountId !== page.account.id || !canManageKey({ role: page.role, personId: page.person.id }, key)) return noSuchKey(event);
      const base = { title: `Usage of ${key.name ?? 'a key'}`, key: { id: key.id, name: key.name ?? '(unnamed)', masked: maskedKey(key) }, tz: page.timeZone, recording: deps.ledger.recording };
      let byRoute: DailyUsage;
      let byProvider: DailyUsage;
      try {
        const range = lastDays(deps.clock.now(), page.timeZone, CHART_DAYS);
        const query = { accountId: page.account.id, keyId: key.id, ...range, tz: page.timeZone };
        [byRoute, byProvider] = await Promise.all([deps.ledger.daily({ ...query, by: 'route' }), deps.ledger.daily({ ...query, by: 'provider' })]);
      } catch (error) {
        if (error instanceof InvalidReportRangeError) return page.view('key-usage', { ...base, problem: `Usage cannot be shown: ${error.message}.` }, { status: 400 });
        throw error;
      }
      const routeLabel = (group: string | null) => group ?? 'no route profile';
      const providerLabel = (group: string | null) => (group === null ? 'not served' : (providerNames.get(group) ?? group));
      return page.view('key-usage', {
        ...base,
        range: { from: byRoute.from, to: byRoute.to },
        chart: { title: 'Requests per day by route profile', chart: usageChart(byRoute, 'requests', routeLabel) },
        totals: row(byRoute.totals, 'Total'),
        byDay: byRoute.dayTotals.filter((sums) => sums.requests > 0).map((sums) => row(sums, sums.group ?? '')),
        byRoute: byRoute.rows.map((sums) => row(sums, routeLabel(sums.group))),
        byProvider: byProvider.rows.map((sums) => row(sums, providerLabel(sums.group))),
        unknownUsageCalls: byRoute.totals.unknownUsageCalls,
      });
    }),
  );
}
