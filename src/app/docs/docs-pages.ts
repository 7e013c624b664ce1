/**
 * The docs at docsUrl, generated from the same sources as the API: the error table (core/errors.ts),
 * the plans, route profiles and catalog in the configuration, the OpenAPI document (api-reference.ts). Every error code gets an anchor, so the
 * `docsUrl` of every guided error resolves.
 */
import { eventHandler, type H3Event, type Router } from 'h3';
import { ERROR_TABLE, type ErrorCode } from '../../core/errors.js';
import { routeTargets } from '../../config/route-targets.js';
import { publicPage } from '../page-kit.js';
import type { WebDeps } from '../web-deps.js';
import { ERROR_DOCS } from './error-docs.js';
import { apiReference } from './api-reference.js';

const PAGES = [
  ['', 'Overview', 'what the service is'],
  ['/quick-start', 'Quick start', 'curl, the OpenAI SDK, Vercel AI SDK, LangChain and Codex CLI'],
  ['/errors', 'Error codes', 'every code, what it means and what to do'],
  ['/limits', 'Limits and headers', 'quotas, per-minute limits and the headers that report them'],
  ['/route-profiles', 'Route profiles', 'what each profile routes to and which plans may use it'],
  ['/app', 'Account app', 'keys, rotation, provider keys, sessions'],
  ['/api-reference', 'API reference', 'every endpoint, its parameters and body, from the OpenAPI document'],
] as const;

const HEADERS: readonly (readonly [string, string])[] = [
  ['X-Quota-Limit', 'The plan’s monthly request quota.'],
  ['X-Quota-Used', 'Requests counted in the current period, this one included.'],
  ['X-Quota-Remaining', 'Requests left in the period.'],
  ['X-Quota-Period', 'Always monthly (calendar month, UTC).'],
  ['X-Quota-Reset', 'When the period ends (ISO 8601, UTC).'],
  ['X-RateLimit-Limit', 'Requests per minute of the plan.'],
  ['X-RateLimit-Remaining', 'Requests left in the current window.'],
  ['X-RateLimit-Reset', 'Whole seconds until the window frees capacity.'],
  ['Retry-After', 'On 429 rate limiting only: whole seconds to wait.'],
  ['X-Router-Retry-Count', 'Upstream retries and failovers made for this request.'],
  ['X-Router-Upstream', 'The provider that served the response.'],
  ['X-Request-Id', 'Quote it in support requests.'],
];

export function registerDocsPages(router: Router, deps: WebDeps): void {
  const { config, paths } = deps;
  const format = new Intl.NumberFormat('en-US');
  const docPage = (slug: string, template: string, data: Record<string, unknown> = {}) =>
    eventHandler((event: H3Event) => {
      const docPages = PAGES.map(([path, label, summary]) => ({ href: paths.docs + path, label, summary, current: path === slug }));
      const title = PAGES.find(([path]) => path === slug)?.[1] ?? 'Docs';
      return publicPage(deps, event, template, { title, docPages, ...data });
    });

  const errors = (Object.keys(ERROR_TABLE) as ErrorCode[]).map((code) => {
    const spec = ERROR_TABLE[code];
    return { code, status: spec.status, type: spec.type, guidance: [...spec.guidance], noRetry: 'noRetry' in spec && spec.noRetry, ...ERROR_DOCS[code] };
  });
  const plans = config.plans.map((plan) => ({ name: plan.name, monthly: format.format(plan.monthlyRequests), rpm: format.format(plan.requestsPerMinute), profiles: plan.routeProfiles.join(', ') }));
  const routes = config.routes.map((route) => ({
    id: route.id,
    anchor: route.id.replace(/[^a-z0-9]+/gi, '-'),
    description: route.description,
    plans: config.plans.filter((plan) => plan.routeProfiles.includes(route.id)).map((plan) => plan.name).join(', ') || 'none',
    weight: route.quotaWeight,
    retries: route.retryBudget,
    providers: [...new Set(routeTargets(route).map(({ target }) => target.provider))].join(', '),
  }));
  const { app } = config.server;

  router.get(paths.docs || '/', docPage('', 'docs-index'));
  if (paths.docs !== '') router.get(`${paths.docs}/`, docPage('', 'docs-index'));
  router.get(`${paths.docs}/quick-start`, docPage('/quick-start', 'docs-quick-start'));
  router.get(`${paths.docs}/errors`, docPage('/errors', 'docs-errors', { errors }));
  router.get(`${paths.docs}/limits`, docPage('/limits', 'docs-limits', { plans, headers: HEADERS }));
  router.get(`${paths.docs}/route-profiles`, docPage('/route-profiles', 'docs-route-profiles', { routes }));
  router.get(`${paths.docs}/api-reference`, docPage('/api-reference', 'docs-api-reference', { operations: apiReference(deps.openApi), errorsHref: `${paths.docs}/errors` }));
  router.get(
    `${paths.docs}/app`,
    docPage('/app', 'docs-app', { idleMinutes: app.sessionIdleMinutes, absoluteHours: app.sessionAbsoluteHours, linkMinutes: app.linkMinutes }),
  );
}
