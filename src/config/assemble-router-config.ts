import type { RawConfigFiles, RawProvider } from './config-files.js';
import { Secret } from './secret.js';
import type { ProviderConfig, RouterConfig, ServerConfig } from './types.js';

/**
 * Builds RouterConfig from validated files: derives the URLs that default from others, strips
 * trailing slashes so code can append paths, and wraps credentials in Secret. An empty credential
 * (`${VAR:-}` with VAR unset) is left out, so "configured" is simply `secretKey !== undefined`.
 */
export function assembleRouterConfig(dir: string, files: RawConfigFiles): RouterConfig {
  return {
    dir,
    server: assembleServer(files.server),
    plans: files.plans.plans,
    routes: files.routes.routes,
    providers: { ...files.providers, providers: files.providers.providers.map(assembleProvider) },
    catalog: files.catalog,
    pricing: files.pricing,
  };
}

function assembleServer({ secretKey, metrics, ...server }: RawConfigFiles['server']): ServerConfig {
  const baseUrl = withoutTrailingSlashes(server.baseUrl);
  const appUrl = withoutTrailingSlashes(server.appUrl ?? `${baseUrl}/app`);
  return {
    ...server,
    baseUrl,
    appUrl,
    docsUrl: withoutTrailingSlashes(server.docsUrl ?? `${baseUrl}/docs`),
    supportUrl: withoutTrailingSlashes(server.supportUrl ?? `${appUrl}/support`),
    ...(secretKey ? { secretKey: new Secret(secretKey) } : {}),
    metrics: { enabled: metrics.enabled, ...(metrics.token ? { token: new Secret(metrics.token) } : {}) },
  };
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
