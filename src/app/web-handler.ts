/**
 * The web side of `router serve`: the account app at appUrl's path, the public pages and the docs,
 * answered by one h3 handler placed in front of the API router. A request it does not claim (anything
 * under /v1, and /pricing, /model-catalog or /status asked for as JSON) passes through untouched; it
 * never reads or sets cookies on those.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createRouter, eventHandler, sendRedirect, setResponseHeader, type EventHandler, type H3Event } from 'h3';
import { describeError } from '../core/describe-error.js';
import { isRouterError } from '../core/errors.js';
import { StoreUnavailableError } from '../stores/store.js';
import type { AppServices } from './app-services.js';
import { STATIC_DIR } from './asset-dirs.js';
import { CsrfGuard } from './csrf.js';
import { DeviceCookies } from './device-cookie.js';
import { KeyFlash } from './key-flash.js';
import { KeptForms } from './kept-form.js';
import { ZonePreference } from './time-zone.js';
import { registerDocsPages } from './docs/docs-pages.js';
import { sendHtml, wantsHtml } from './http-helpers.js';
import { registerBillingPages } from './billing/billing-pages.js';
import { linksOf, publicPage } from './page-kit.js';
import { Renderer, type SiteInfo } from './render.js';
import { providerAccessPromise } from './provider-access.js';
import { supportContact } from './support-contact.js';
import { registerAccountPages } from './routes/account-pages.js';
import { registerAuthPages } from './routes/auth-pages.js';
import { registerKeyPages } from './routes/key-pages.js';
import { registerKeyUsagePages } from './routes/key-usage-pages.js';
import { registerInvitationPages } from './routes/invitation-pages.js';
import { registerMemberPages } from './routes/member-pages.js';
import { registerGuardrailPages } from './routes/guardrail-pages.js';
import { registerWorkspacePages } from './routes/workspace-pages.js';
import { registerOrganizationPages } from './routes/organization-pages.js';
import { registerPresetPages } from './routes/preset-pages.js';
import { legalLinks, registerLegalPages } from './routes/legal-pages.js';
import { registerPlaygroundPages } from './routes/playground-pages.js';
import { registerProviderKeyPages } from './routes/provider-key-pages.js';
import { registerPublicPages } from './routes/public-pages.js';
import { registerUsagePages } from './routes/usage-pages.js';
import { registerSupportPages } from './routes/support-pages.js';
import type { WebDeps } from './web-deps.js';
import { webPaths } from './web-paths.js';

const STATIC_FILES: Readonly<Record<string, string>> = {
  'app.css': 'text/css; charset=utf-8',
  'app.js': 'text/javascript; charset=utf-8',
  'favicon.svg': 'image/svg+xml',
};

/** The services come built and started (runtime/); what is made here is the app's own request helpers, which hold no timer or handle. */
export function createWebHandler(deps: AppServices): EventHandler {
  const { server } = deps.config;
  const paths = webPaths(server);
  const staticPath = `${paths.app}/static`;
  const renderer = new Renderer(siteInfo(deps));
  // Without a server secret the form tokens and device cookies are keyed per process: forms opened before a
  // restart must be reloaded, and a browser is an unknown device to another process until it signs in there.
  const csrfSecret = server.secretKey?.reveal() ?? randomBytes(32).toString('hex');
  const web: WebDeps = {
    ...deps,
    paths,
    renderer,
    csrf: new CsrfGuard(csrfSecret, paths.appOrigin, paths.secure),
    devices: new DeviceCookies(csrfSecret, paths.secure),
    flash: new KeyFlash(csrfSecret, paths.secure),
    keptForms: new KeptForms(csrfSecret, paths.secure),
    zones: new ZonePreference(paths.secure),
  };
  if (!paths.secure) {
    deps.logger.warn(`account app at ${server.appUrl} is served over http: its cookies are not marked Secure (fine on localhost; use an https appUrl in production)`);
  }

  const router = createRouter();
  const assets = new Map(Object.entries(STATIC_FILES).map(([file, type]) => [file, { type, body: readFileSync(join(STATIC_DIR, file)) }]));
  router.get(
    `${staticPath}/:file`,
    eventHandler((event) => {
      const asset = assets.get(event.context.params?.file ?? '');
      if (!asset) return notFoundPage(web, event);
      setResponseHeader(event, 'content-type', asset.type);
      setResponseHeader(event, 'cache-control', 'public, max-age=3600');
      setResponseHeader(event, 'x-content-type-options', 'nosniff');
      return asset.body;
    }),
  );
  // Browsers ask for /favicon.ico whatever the page says; the wordmark's mark answers it.
  router.get('/favicon.ico', eventHandler((event) => sendRedirect(event, `${staticPath}/favicon.svg`, 301)));
  registerPublicPages(router, web);
  registerDocsPages(router, web);
  registerLegalPages(router, web);
  if (server.app.enabled) {
    registerAuthPages(router, web);
    registerKeyPages(router, web);
    registerKeyUsagePages(router, web);
    registerPlaygroundPages(router, web);
    registerProviderKeyPages(router, web);
    registerAccountPages(router, web);
    registerUsagePages(router, web);
    registerSupportPages(router, web);
    registerBillingPages(router, web);
    registerMemberPages(router, web);
    registerInvitationPages(router, web);
    registerOrganizationPages(router, web);
    registerWorkspacePages(router, web);
    registerGuardrailPages(router, web);
    registerPresetPages(router, web);
  }

  const owns = (path: string) => (paths.app !== '' && (path === paths.app || path.startsWith(`${paths.app}/`))) || (paths.docs !== '' && (path === paths.docs || path.startsWith(`${paths.docs}/`)));
  return eventHandler(async (event) => {
    const path = event.path.split('?')[0]!;
    if (path.startsWith('/v1/') || path === '/v1') return undefined;
    try {
      const answer = await router.handler(event);
      if (answer !== undefined || event.handled) return answer;
      if (owns(path)) return notFoundPage(web, event);
      return undefined;
    } catch (error) {
      return failurePage(web, event, error);
    }
  });
}

function siteInfo(deps: Pick<AppServices, 'config' | 'managedAccess'>): SiteInfo {
  const { server } = deps.config;
  const paths = webPaths(server);
  return { name: 'LLM Router', baseUrl: server.baseUrl, appUrl: server.appUrl, app: paths.app, docs: paths.docs, static: `${paths.app}/static`, home: '/', legal: legalLinks(paths.app, server.app.legal), access: providerAccessPromise(deps.config, deps.managedAccess), support: supportContact(server.app.support) };
}

/**
 * The last handler of the app: a browser asking for an address nothing serves gets the HTML 404 page;
 * an API client (and anything under /v1) gets undefined here, so the API's JSON 404 answers it as before.
 */
export function createBrowserNotFound(deps: Pick<AppServices, 'config' | 'managedAccess'>): EventHandler {
  const renderer = new Renderer(siteInfo(deps));
  return eventHandler((event) => {
    const path = event.path.split('?')[0]!;
    if (path === '/v1' || path.startsWith('/v1/') || event.method !== 'GET' || !wantsHtml(event)) return undefined;
    return sendHtml(event, renderer.page('error-page', { title: 'Not found', heading: 'Page not found', message: 'There is no page at this address.', back: '/' }, linksOf(deps, event)), { status: 404 });
  });
}

function notFoundPage(web: WebDeps, event: H3Event): Promise<string> {
  return publicPage(web, event, 'error-page', { title: 'Not found', heading: 'Page not found', message: 'There is no page at this address.', back: '/' }, { cacheable: false, status: 404 });
}

/**
 * A failure while answering: browsers get the HTML error page (500, or 503 when the database is out of
 * reach), anyone else (an API client, the playground's fetch) the API's JSON error, thrown on to the
 * app's error handler.
 */
async function failurePage(web: WebDeps, event: H3Event, error: unknown): Promise<string> {
  if (!wantsHtml(event)) throw error;
  if (isRouterError(error) && error.code === 'not_found') return notFoundPage(web, event);
  const unavailable = error instanceof StoreUnavailableError;
  web.logger.error(`account app: ${unavailable ? 'store unavailable' : 'unexpected error'} on ${event.method} ${event.path.split('?')[0]}: ${describeError(error)}`);
  const message = unavailable ? 'The service cannot reach its database right now. Try again in a moment.' : 'Something went wrong on our side. Try again; if it persists, contact support.';
  const heading = unavailable ? 'Temporarily unavailable' : 'Something went wrong';
  return sendHtml(event, web.renderer.page('error-page', { title: heading, heading, message, back: '/', support: `${web.paths.app}/support` }, linksOf(web, event)), { status: unavailable ? 503 : 500 });
}
