/**
 * The composition root: the only place that picks implementations (store, rate limiter, upstream
 * client) and wires them into the pipeline's dependencies.
 */
import type { ConsolaInstance } from 'consola';
import type { RouterConfig } from '../config/types.js';
import { createCredentialResolver } from '../accounts/provider-credentials.js';
import { KeyService } from '../accounts/key-service.js';
import { systemClock, type Clock } from '../core/clock.js';
import { describeError } from '../core/describe-error.js';
import { createAdapterRegistry } from '../providers/registry.js';
import { evaluateManagedAccess } from '../routing/managed-access.js';
import { ProviderHealth } from '../routing/provider-health.js';
import { RoutingEngine } from '../routing/routing-engine.js';
import { openQuotaLedger } from '../stores/open-quota-ledger.js';
import { openRateLimiter } from '../stores/open-rate-limiter.js';
import { openStore } from '../stores/open-store.js';
import type { RateLimiter } from '../stores/rate-limiter.js';
import type { Store } from '../stores/store.js';
import { createUpstreamClient, type UpstreamClient } from '../upstream/upstream-client.js';
import { createLogger } from './create-logger.js';
import { Drain } from './drain.js';
import { logRequestOutcomes } from './log-request-outcomes.js';
import type { RequestObserver } from './request-outcome.js';
import type { RouterDeps } from './router-deps.js';

export interface BuildOptions {
  clock?: Clock;
  logger?: ConsolaInstance;
  random?: () => number;
  store?: Store;
  rateLimiter?: RateLimiter;
  upstreamClient?: UpstreamClient;
  /** Extra observers of request outcomes (tests). */
  observers?: readonly RequestObserver[];
}

export interface RouterRuntime extends RouterDeps {
  close(): Promise<void>;
}

export async function buildRouterDeps(config: RouterConfig, options: BuildOptions = {}): Promise<RouterRuntime> {
  const clock = options.clock ?? systemClock;
  const logger = options.logger ?? createLogger({ level: config.server.logLevel, format: config.server.logFormat, isTerminal: process.stderr.isTTY === true });
  const rawStore = options.store ?? (await openStore(config.server.storage, clock));
  await rawStore.migrate();
  const { quota, store } = await openQuotaLedger(config.server.rateLimit, rawStore, {
    onUnavailable: (reason) => logger.warn(`monthly quota gate unavailable (${reason}); admitting in the store until Redis is back`),
    onForgetFailed: (accountId, error) =>
      logger.warn(`account ${accountId} changed, but the quota gate could not be told (${describeError(error)}); its cached plan expires within a minute`),
  });
  const rateLimiter =
    options.rateLimiter ??
    (await openRateLimiter(config.server.rateLimit, {
      onUnavailable: (reason) => logger.warn(`shared rate-limit windows unavailable (${reason}); limiting per instance until Redis is back`),
    }));
  const client = options.upstreamClient ?? createUpstreamClient();
  const secret = config.server.secretKey?.reveal();
  const providers = new Map(config.providers.providers.map((provider) => [provider.id, provider]));

  const managedAccess = evaluateManagedAccess({
    requested: config.providers.managedAccess.enabled,
    plans: config.plans,
    durableStore: !config.server.storage.endsWith(':memory:'),
  });
  if (managedAccess.requested && !managedAccess.active) {
    const failing = managedAccess.checks.filter((check) => !check.ok).map((check) => `${check.name} (${check.detail})`);
    logger.warn(`managed provider access stays off: readiness checks failed: ${failing.join('; ')}`);
  }

  const health = new ProviderHealth(config.providers.circuitBreaker, clock, (provider, change) => {
    if (change.state === 'open') {
      logger.warn(`circuit opened for ${provider} after ${change.consecutiveFailures} consecutive failures: skipped for ${config.providers.circuitBreaker.cooldownMs} ms`, { provider, circuit: 'open', consecutiveFailures: change.consecutiveFailures });
    } else {
      logger.info(`circuit closed for ${provider}: it answered again`, { provider, circuit: 'closed' });
    }
  });
  const credentials = createCredentialResolver({ store, clock, secretKey: secret, providers, managedAccess, cacheTtlMs: config.server.keyCacheTtlMs });
  const engine = new RoutingEngine({
    providers,
    health,
    clock,
    random: options.random ?? Math.random,
    credentialFor: credentials.credentialFor,
    adapters: createAdapterRegistry(clock),
    client,
  });

  return {
    config,
    store,
    rateLimiter,
    quota,
    clock,
    logger,
    keys: new KeyService({ store, clock, secret, cacheTtlMs: config.server.keyCacheTtlMs }),
    engine,
    health,
    managedAccess,
    plans: new Map(config.plans.map((plan) => [plan.id, plan])),
    routes: new Map(config.routes.map((route) => [route.id, route])),
    quotaLimits: Object.fromEntries(config.plans.map((plan) => [plan.id, plan.monthlyRequests])),
    observers: [logRequestOutcomes(logger), ...(options.observers ?? [])],
    drain: new Drain(),
    async close() {
      await client.close();
      await rateLimiter.close();
      await quota.close();
      await store.close();
    },
  };
}
