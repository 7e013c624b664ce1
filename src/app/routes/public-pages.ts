/**
 * The pages people read: the landing page, and HTML versions of /pricing, /model-catalog (with family
 * pages) and /status for browsers. API clients keep the JSON the API router serves: these handlers answer
 * only requests that prefer text/html, and every negotiated response says `Vary: Accept`.
 */
import { eventHandler, setResponseHeader, type H3Event, type Router } from 'h3';
import type { CatalogFamily } from '../../config/types.js';
import { RouterError } from '../../core/errors.js';
import { wantsHtml } from '../http-helpers.js';
import { linksOf, publicPage } from '../page-kit.js';
import { utcLabel } from '../key-views.js';
import { concreteModelViews, measuredRows } from '../measured-views.js';
import { planCards, routeProfileTable } from '../plan-cards.js';
import { providerBadge, statusBars, summarize } from '../status-chart.js';
import type { WebDeps } from '../web-deps.js';

const CAPABILITY_LABELS: Record<keyof CatalogFamily['capabilities'], string> = { streaming: 'Streaming', tools: 'Tools', responses: 'Responses API' };
const LAUNCH_LABELS: Record<string, string> = {
  chat_completions: 'Chat completions (/v1/chat/completions)',
  responses: 'Responses API (/v1/responses)',
  streaming: 'Streaming',
  fusion: 'router/fusion on Pro and Max: a panel of models from several providers answers in parallel, a judge compares, one answer is written (streamed)',
  fusion_server_tool: 'The router:fusion server tool on Pro and Max: any profile can ask the fusion panel mid-answer',
  bring_your_own_provider_keys: 'Bring your own provider keys',
  managed_provider_access: 'Managed provider access (calls served through our own provider accounts, no provider key of yours needed)',
};

export function registerPublicPages(router: Router, deps: WebDeps): void {
  const { config, renderer } = deps;
  const page = (event: H3Event, template: string, data: Record<string, unknown>, cacheable = true) =>
    publicPage(deps, event, template, data, { cacheable });
  /** Browsers get the page; anyone else falls through to the API router's JSON. */
  const negotiated = (render: (event: H3Event) => string | Promise<string>) =>
    eventHandler((event) => {
      setResponseHeader(event, 'vary', 'Accept');
      return wantsHtml(event) ? render(event) : undefined;
    });
  const families = config.catalog.families.map((family) => ({
    id: family.id,
    title: family.title,
    profile: family.profile,
    description: family.description,
    caps: (Object.keys(CAPABILITY_LABELS) as (keyof typeof CAPABILITY_LABELS)[]).map((cap) => ({ label: CAPABILITY_LABELS[cap], on: family.capabilities[cap] })),
    plans: config.plans.filter((plan) => plan.routeProfiles.includes(family.profile)).map((plan) => plan.name).join(', ') || 'none',
  }));

  router.get('/', eventHandler((event) => page(event, 'landing', { title: 'Home' })));
  router.get(
    '/pricing',
    negotiated((event) =>
      page(event, 'pricing', {
        title: 'Pricing',
        plans: planCards(deps, null, { appUrl: linksOf(deps, event).appUrl }),
        routeTable: routeProfileTable(deps),
        live: ['chat_completions', 'responses', 'streaming', 'fusion', 'fusion_server_tool', 'bring_your_own_provider_keys'].map((id) => LAUNCH_LABELS[id]),
        notLive: deps.managedAccess.active ? [] : [LAUNCH_LABELS.managed_provider_access],
      }),
    ),
  );
  // Not cached: the concrete models' measured figures are live.
  router.get(
    '/model-catalog',
    negotiated((event) => page(event, 'catalog', { title: 'Model catalog', families, concreteModels: concreteModelViews(config, deps.measurements) }, false)),
  );
  // Family pages are HTML for everyone (the catalog JSON links to them as pages).
  router.get(
    '/model-catalog/:family',
    eventHandler((event) => {
      const family = families.find((entry) => entry.id === event.context.params?.family);
      if (!family) throw new RouterError('not_found', 'No such route family. See /model-catalog for the list.');
      return page(event, 'family', { title: family.title, family });
    }),
  );
  const providerNames = new Map(config.providers.providers.map((provider) => [provider.id, provider.name]));
  router.get(
    '/status',
    negotiated((event) => {
      deps.statusHistory.sample();
      const now = deps.clock.now();
      const providers = deps.health.snapshot([...providerNames.keys()]).map((snapshot) => {
        const bars = statusBars(deps.statusHistory.history(snapshot.provider), now);
        const summary = summarize(bars);
        const badge = providerBadge(snapshot.state, snapshot.recentSuccessRate);
        return {
          id: snapshot.provider,
          name: providerNames.get(snapshot.provider) ?? snapshot.provider,
          stateClass: badge.className,
          stateLabel: badge.label,
          successLabel: snapshot.recentSuccessRate === null ? 'no recent traffic' : `${Math.round(snapshot.recentSuccessRate * 100)}% of ${snapshot.recentRequests}`,
          latencyLabel: snapshot.p50LatencyMs === null ? '—' : `${Math.round(snapshot.p50LatencyMs)} ms`,
          chart: renderer.fragment('status-strip', { bars, label: `Last hour for ${providerNames.get(snapshot.provider)}: ${summary}` }),
          summary,
        };
      });
      const nowIso = new Date(now).toISOString();
      return page(event, 'status', { title: 'Status', providers, measured: measuredRows(deps.measurements, config), now: nowIso, nowLabel: utcLabel(nowIso) }, false);
    }),
  );
}
