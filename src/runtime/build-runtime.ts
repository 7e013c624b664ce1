/**
 * The composition root: the only place that picks implementations (store, rate limiter, upstream
 * client, usage ledger, metrics) and builds every service, the account app's included; it starts
 * every timer the services run and its close() stops them and closes what it opened.
 */
import { openResponseCache } from '../stores/open-response-cache.js';
import type { ConsolaInstance } from 'consola';
import type { RouterConfig } from '../config/types.js';
import { createCredentialResolver } from '../accounts/provider-credentials.js';
import { KeyService } from '../accounts/key-service.js';
import { KeyLimitService } from '../accounts/key-limit-service.js';
import type { AppServices } from '../app/app-services.js';
import { systemClock, type Clock } from '../core/clock.js';
import { describeError } from '../core/describe-error.js';
import { RouterMetrics } from '../metrics/router-metrics.js';
import { timeStore } from '../metrics/time-store.js';
import { createAdapterRegistry } from '../providers/registry.js';
import { ProviderHealth } from '../routing/provider-health.js';
import { CredentialHealth } from '../routing/credential-health.js';
import { RoutingEngine } from '../routing/routing-engine.js';
import { outputLimitsFrom } from '../routing/output-limits.js';
import { storeSignatureMemory } from './store-signature-memory.js';
import { openQuotaLedger } from '../stores/open-quota-ledger.js';
import { openConcurrencyLimiter } from '../stores/open-concurrency-limiter.js';
import { openCredentialCircuits } from '../stores/open-credential-circuits.js';
import { openMeasurementsSharing } from '../stores/open-measurements-sharing.js';
import { openRateLimiter } from '../stores/open-rate-limiter.js';
import { openStore } from '../stores/open-store.js';
import type { ClusterChannel } from '../stores/cluster/cluster-channel.js';
import type { RateLimiter } from '../stores/rate-limiter.js';
import type { Store } from '../stores/store.js';
import { createUpstreamClient, type UpstreamClient } from '../upstream/upstream-client.js';
import { recordConfigAudit } from '../usage/config-audit.js';
import { managedAccessFor, openUsage } from '../usage/open-usage.js';
import { SpendGate } from '../usage/spend-gate.js';
import { AccountControls } from '../accounts/account-controls.js';
import { createMailer } from '../mail/mailer.js';
import { AlertSweep } from '../alerts/alert-sweep.js';
import { createLogger } from './create-logger.js';
import { Drain } from '../http/drain.js';
import { logRequestOutcomes } from './observers/log-request-outcomes.js';
import { createMetricsObserver } from './observers/metrics-observer.js';
import type { RequestObserver } from '../http/request-outcome.js';
import type { RouterDeps } from '../http/router-deps.js';
import { createUsageObserver } from './observers/usage-observer.js';
import { createMeasurementsObserver } from './observers/measurements-observer.js';
import { RouteMeasurements } from '../routing/route-measurements.js';
import { MeasuredOrder } from '../routing/measured-order.js';
import { createStickyRouting } from '../routing/sticky-routing.js';
import { routerVersion } from '../usage/support-bundle.js';
import { createTracingObserver } from './observers/tracing-observer.js';
import { openAppServices } from './open-app-services.js';

export interface BuildOptions {
  clock?: Clock;
  logger?: ConsolaInstance;
  random?: () => number;
  store?: Store;
  rateLimiter?: RateLimiter;
  upstreamClient?: UpstreamClient;
  /** In a cluster worker: the channel to the primary, which keeps the shared per-minute windows. */
  primary?: ClusterChannel;
  /** Extra observers of request outcomes (tests). */
  observers?: readonly RequestObserver[];
}

export interface RouterRuntime extends RouterDeps {
  /** What the account app and the public pages read (a narrow view: no pipeline internals). */
  app: AppServices;
  close(): Promise<void>;
}

/** How long a managed-spend reservation may outlive its request: time for the record to be written. */
const RESERVATION_GRACE_MS = 5 * 60_000;

export async function buildRuntime(config: RouterConfig, options: BuildOptions = {}): Promise<RouterRuntime> {
  const clock = options.clock ?? systemClock;
  const logger = options.logger ?? createLogger({ level: config.server.logLevel, format: config.server.logFormat, isTerminal: process.stderr.isTTY === true });
  const metrics = config.server.metrics.enabled ? new RouterMetrics() : null;
  const openedStore = options.store ?? (await openStore(config.server.storage, clock, { checkoutWaitMs: config.server.requestTimeoutMs }));
  const rawStore = metrics ? timeStore(openedStore, metrics.storeDuration, 'main') : openedStore;
  await rawStore.migrate();
  const { quota, store } = await openQuotaLedger(config.server.rateLimit, rawStore, {
    clusterWorker: options.primary !== undefined,
    onUnavailable: (reason) => logger.warn(`monthly quota gate unavailable (${reason}); admitting in the store until Redis is back`),
    onForgetFailed: (accountId, error) =>
      logger.warn(`account ${accountId} changed, but the quota gate could not be told (${describeError(error)}); its cached plan expires within a minute`),
  });
  const rateLimiter =
    options.rateLimiter ??
    (await openRateLimiter(config.server.rateLimit, {
      onUnavailable: (reason) => logger.warn(`shared rate-limit windows unavailable (${reason}); limiting per instance until Redis is back`),
      primary: options.primary,
    }));
  const concurrency = await openConcurrencyLimiter(config.server.rateLimit, {
    onUnavailable: (reason) => logger.warn(`shared in-flight counts unavailable (${reason}); capping requests in flight per instance until Redis is back`),
    primary: options.primary,
  });
  // Off by default: then there is no Tracing, nothing on the request path makes spans, and the
  // OpenTelemetry SDK and its exporter are never loaded (2.6 MB of heap imported alone, carried for nothing).
  const tracing = config.server.tracing.enabled
    ? (await import('../tracing/open-tracing.js')).openTracing(config.server.tracing, { logger, serviceVersion: routerVersion() })
    : undefined;
  const client = options.upstreamClient ?? createUpstreamClient({ connectionsPerProvider: config.server.listen.maxConnections });
  const secret = config.server.secretKey?.reveal();
  const providers = new Map(config.providers.providers.map((provider) => [provider.id, provider]));
  // Measured routing's figures and leaders from live traffic, shared through Redis or the cluster's primary.
  const measurements = new RouteMeasurements(clock);
  const stopSharingMeasurements = await openMeasurementsSharing(config.server.rateLimit, measurements, { clock, primary: options.primary });
  const usage = await openUsage(config, {
    clock,
    logger,
    ...(metrics ? { wrapStore: (ledgerStore) => timeStore(ledgerStore, metrics.storeDuration, 'ledger'), hooks: metrics.ledgerHooks() } : {}),
  });

  const managedAccess = managedAccessFor(config, usage.liveness);
  if (managedAccess.requested && !managedAccess.active) {
    const failing = managedAccess.checks.filter((check) => !check.ok).map((check) => `${check.name} (${check.detail})`);
    logger.warn(`managed provider access stays off: readiness checks failed: ${failing.join('; ')}`);
  }
  await recordConfigAudit(usage.store, { plans: config.plans, managedAccess, at: new Date(clock.now()).toISOString() }).catch((error: unknown) =>
    logger.warn(`could not record configuration audit events (${describeError(error)})`),
  );

  const health = new ProviderHealth(config.providers.circuitBreaker, clock, (provider, change) => {
    if (change.state === 'open') {
      logger.warn(`circuit opened for ${provider} after ${change.consecutiveFailures} consecutive failures: skipped for ${config.providers.circuitBreaker.cooldownMs} ms`, { provider, circuit: 'open', consecutiveFailures: change.consecutiveFailures });
    } else {
      logger.info(`circuit closed for ${provider}: it answered again`, { provider, circuit: 'closed' });
    }
  });
  const credentialHealth = new CredentialHealth(config.providers.circuitBreaker, clock);
  // Every worker and instance skips the same keys (and the app's badge reads the same on each).
  const stopSharingCredentialCircuits = await openCredentialCircuits(config.server.rateLimit, credentialHealth, clock, options.primary);
  const credentials = createCredentialResolver({ store, clock, secretKey: secret, providers, managedAccess, cacheTtlMs: config.server.keyCacheTtlMs });
  const engine = new RoutingEngine({
    providers,
    measuredOrder: new MeasuredOrder(measurements),
    sticky: createStickyRouting(),
    health,
    credentialHealth,
    clock,
    random: options.random ?? Math.random,
    credentialsOf: credentials.credentialsOf,
    adapters: createAdapterRegistry(clock),
    client,
    outputLimits: outputLimitsFrom(config.catalog.models),
    signatures: storeSignatureMemory(store, clock, logger),
  });
  const spend = new SpendGate({
    store: usage.store,
    ledgerBehind: () => usage.ledger?.behind ?? false,
    prices: usage.prices,
    providers,
    usesManagedAccess: credentials.usesManagedAccess,
    clock,
    reservationTtlMs: config.server.requestTimeoutMs + RESERVATION_GRACE_MS,
    plans: new Map(config.plans.map((plan) => [plan.id, plan])),
  });
  const mail = createMailer(config.server.app.mail, logger);
  const quotaLimits = Object.fromEntries(config.plans.map((plan) => [plan.id, plan.monthlyRequests]));
  const alerts = new AlertSweep({
    config,
    store,
    ledger: usage.ledger ? usage.store : null,
    quota,
    quotaLimits,
    credentialHealth,
    managedAccessActive: managedAccess.active,
    mail,
    clock,
    logger,
  });
  if (config.server.app.enabled) alerts.start();
  const providerIds = config.providers.providers.map((provider) => provider.id);
  metrics?.watch({
    providers: providerIds,
    circuitState: (provider) => health.state(provider),
    ledgerQueue: () => (usage.ledger ? { queued: usage.ledger.status().queued, behind: usage.ledger.behind } : null),
  });
  // In order: the operator's log lines, the usage ledger, metrics, the alerts' note of the account, then any the caller added (tests).
  const observers: RequestObserver[] = [
    logRequestOutcomes(logger),
    createMeasurementsObserver(measurements),
    ...(usage.ledger ? [createUsageObserver(usage.ledger, usage.prices)] : []),
    ...(metrics ? [createMetricsObserver(metrics, { routes: config.routes.map((route) => route.id), providers: providerIds })] : []),
    ...(tracing ? [createTracingObserver()] : []),
    ...(config.server.app.enabled ? [alerts.observer] : []),
    ...(options.observers ?? []),
  ];

  // Answers kept for repeats (docs/caching.md): in Redis when the limits are, else in this process.
  let cacheErrorLoggedAt = Number.NEGATIVE_INFINITY;
  const responseCacheStore = await openResponseCache(config.server.rateLimit, config.server.responseCache, {
    now: () => clock.now(),
    onError: (error) => {
      // A miss is the whole effect; one line a minute at most says why.
      if (clock.now() - cacheErrorLoggedAt < 60_000) return;
      cacheErrorLoggedAt = clock.now();
      logger.warn(`response cache unavailable (${describeError(error)}); requests are served as misses`);
    },
  });

  const deps: RouterDeps = {
    config,
    store,
    rateLimiter,
    concurrency,
    quota,
    clock,
    logger,
    keys: new KeyService({ store, clock, secret, cacheTtlMs: config.server.keyCacheTtlMs }),
    // Set in the account app and enforced by the key-limits stage: one service, so changes apply at once.
    keyLimits: new KeyLimitService(store, clock, config.server.keyCacheTtlMs),
    controls: new AccountControls(store, clock, config.server.keyCacheTtlMs),
    engine,
    health,
    measurements,
    credentialHealth,
    managedAccess,
    plans: new Map(config.plans.map((plan) => [plan.id, plan])),
    routes: new Map(config.routes.map((route) => [route.id, route])),
    quotaLimits,
    observers,
    usage: { store: usage.store, ledger: usage.ledger, prices: usage.prices },
    spend,
    metrics,
    drain: new Drain(),
    mail,
    alerts,
    responseCache: { store: responseCacheStore, policyOf: (accountId) => store.getResponseCachePolicy(accountId) },
    ...(tracing ? { tracing } : {}),
  };
  const app = openAppServices(deps);

  return {
    ...deps,
    app: app.services,
    /** Called after the drain: timers stop, the ledger is flushed (no request is left to add to it), then the stores close. */
    async close() {
      app.stop();
      stopSharingMeasurements?.();
      await stopSharingCredentialCircuits();
      await alerts.stop();
      await mail.close();
      await usage.close();
      await client.close();
      // The spans of the last requests are sent before the process goes (bounded by exportTimeoutMs).
      await tracing?.shutdown();
      await rateLimiter.close();
      await concurrency.close();
      await quota.close();
      await responseCacheStore.close();
      await store.close();
    },
  };
}
