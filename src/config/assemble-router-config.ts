import type { RawConfigFiles, RawPlan, RawProvider } from './config-files.js';
import { concreteModelRoute } from './concrete-model-route.js';
import { Secret } from './secret.js';
import type { PlanConfig, ProviderConfig, RouterConfig, ServerConfig } from './types.js';

/**
 * Builds RouterConfig from validated files: derives the URLs that default from others, strips
 * trailing slashes so code can append paths, and wraps credentials in Secret. An empty credential
 * (`${VAR:-}` with VAR unset) is left out, so "configured" is simply `secretKey !== undefined`.
 */
export function assembleRouterConfig(dir: string, files: RawConfigFiles): RouterConfig {
  return {
    dir,
    server: assembleServer(files.server),
    plans: files.plans.plans.map(assemblePlan),
    // Concrete catalog models are route profiles of their own, so every rule of a route applies to them.
    routes: [...files.routes.routes, ...(files.catalog.concreteModels ?? []).map(concreteModelRoute)],
    modelAliases: files.routes.aliases ?? [],
    providers: { ...files.providers, providers: files.providers.providers.map(assembleProvider) },
    catalog: { ...files.catalog, concreteModels: files.catalog.concreteModels ?? [] },
    pricing: files.pricing,
  };
}

/**
 * Every public link derives from baseUrl and appUrl unless set on its own. baseUrl is the origin without
 * /v1 (clients append it; a trailing /v1 is dropped rather than doubled); unset, it is the address the
 * router listens on, so a local run's links point at itself.
 */
function assembleServer({ secretKey, metrics, billing, app, ...server }: RawConfigFiles['server']): ServerConfig {
  const baseUrl = withoutTrailingSlashes(server.baseUrl ?? listenUrl(server.listen)).replace(/\/v1$/, '');
  const appUrl = withoutTrailingSlashes(server.appUrl ?? `${baseUrl}/app`);
  return {
    ...server,
    baseUrl,
    appUrl,
    docsUrl: withoutTrailingSlashes(server.docsUrl ?? `${baseUrl}/docs`),
    supportUrl: withoutTrailingSlashes(server.supportUrl ?? `${appUrl}/support`),
    ...(secretKey ? { secretKey: new Secret(secretKey) } : {}),
    metrics: { enabled: metrics.enabled, ...(metrics.token ? { token: new Secret(metrics.token) } : {}) },
    billing: assembleBilling(billing),
    app: assembleApp(app),
  };
}

/** Verification is asked for by default exactly when mail can reach people (SMTP). */
function assembleApp({ mail: { smtpUrl, ...mail }, requireEmailVerification, ...app }: RawConfigFiles['server']['app']): ServerConfig['app'] {
  return {
    ...app,
    mail: { ...mail, ...(smtpUrl ? { smtpUrl: new Secret(smtpUrl) } : {}) },
    requireEmailVerification: requireEmailVerification ?? mail.transport === 'smtp',
  };
}

function assembleBilling({ stripe, ...billing }: RawConfigFiles['server']['billing']): ServerConfig['billing'] {
  const { secretKey, webhookSecret, apiUrl } = stripe;
  return {
    ...billing,
    stripe: {
      apiUrl: withoutTrailingSlashes(apiUrl),
      ...(secretKey ? { secretKey: new Secret(secretKey) } : {}),
      ...(webhookSecret ? { webhookSecret: new Secret(webhookSecret) } : {}),
    },
  };
}

/**
 * A plan without its own in-flight cap gets one that lets it use its whole per-minute rate when answers
 * take about 10 s (Little's law: rate × time in flight), and never less than one request.
 */
function assemblePlan(plan: RawPlan): PlanConfig {
  return { ...plan, maxConcurrentRequests: plan.maxConcurrentRequests ?? Math.max(1, Math.ceil(plan.requestsPerMinute / 6)) };
}

function assembleProvider({ managedKey, ...provider }: RawProvider): ProviderConfig {
  return {
    ...provider,
    baseUrl: withoutTrailingSlashes(provider.baseUrl),
    ...(managedKey ? { managedKey: new Secret(managedKey) } : {}),
  };
}

function withoutTrailingSlashes(url: string): string {
  return url.replace(/\/+$/, '');
}

/**
 * The address a browser on the same machine reaches the listener at: loopback and wildcard binds are
 * 127.0.0.1, the address the README and the start-up log give (pages keep whichever loopback name a
 * person uses: public-links.ts), on the port the server is configured to listen on.
 */
function listenUrl(listen: ServerConfig['listen']): string {
  const local = ['127.0.0.1', '::1', '0.0.0.0', '::', 'localhost'].includes(listen.host);
  const host = local ? '127.0.0.1' : listen.host.includes(':') ? `[${listen.host}]` : listen.host;
  return `http://${host}:${listen.port}`;
}
