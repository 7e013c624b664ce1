/**
 * Everything the HTTP layer needs, built once by the composition root (runtime/build-runtime.ts)
 * and passed down. No module-level state anywhere else.
 */
import type { ConsolaInstance } from 'consola';
import type { PlanConfig, RouteProfileConfig, RouterConfig } from '../config/types.js';
import type { Clock } from '../core/clock.js';
import type { KeyService } from '../accounts/key-service.js';
import type { KeyLimitService } from '../accounts/key-limit-service.js';
import type { RoutingEngine } from '../routing/routing-engine.js';
import type { Store } from '../stores/store.js';
import type { QuotaLedger } from '../stores/quota-ledger.js';
import type { RateLimiter } from '../stores/rate-limiter.js';
import type { ConcurrencyLimiter } from '../stores/concurrency-limiter.js';
import type { ManagedAccessStatus } from '../routing/managed-access.js';
import type { ProviderHealth } from '../routing/provider-health.js';
import type { RouteMeasurements } from '../routing/route-measurements.js';
import type { CredentialHealth } from '../routing/credential-health.js';
import type { RouterMetrics } from '../metrics/router-metrics.js';
import type { LedgerStore } from '../stores/ledger-store.js';
import type { PriceBook } from '../usage/model-prices.js';
import type { AccountControls } from '../accounts/account-controls.js';
import type { SpendGate } from '../usage/spend-gate.js';
import type { UsageLedger } from '../usage/usage-ledger.js';
import type { Tracing } from '../tracing/tracing.js';
import type { Mailer } from '../mail/mailer.js';
import type { AlertSweep } from '../alerts/alert-sweep.js';
import type { AccountCachePolicy, ResponseCacheStore } from '../stores/response-cache-store.js';
import type { Drain } from './drain.js';
import type { RequestObserver } from './request-outcome.js';

/** The response cache as routes use it (http/cached-route.ts). */
export interface ResponseCache {
  store: ResponseCacheStore;
  /** The account's own rule (Store.getResponseCachePolicy), read only for requests that ask for the cache. */
  policyOf(accountId: string): Promise<AccountCachePolicy>;
}

export interface RouterDeps {
  config: RouterConfig;
  store: Store;
  rateLimiter: RateLimiter;
  /** Each account's requests in flight, capped by its plan's maxConcurrentRequests. */
  concurrency: ConcurrencyLimiter;
  /** Monthly quota decisions: the store's own, or the Redis gate drawing on the store. */
  quota: QuotaLedger;
  clock: Clock;
  logger: ConsolaInstance;
  keys: KeyService;
  /** Per-key limits: set in the account app, enforced by the key-limits stage, read through this one service so changes apply at once. */
  keyLimits: KeyLimitService;
  /** Workspaces, budgets and guardrails per organization, cached (accounts/account-controls.ts). */
  controls: AccountControls;
  engine: RoutingEngine;
  health: ProviderHealth;
  /** Measured routing's live figures per provider and model (what /status shows). */
  measurements: RouteMeasurements;
  /** The circuits of accounts' own provider keys: what the provider-keys page shows as rejected. */
  credentialHealth: CredentialHealth;
  managedAccess: ManagedAccessStatus;
  plans: ReadonlyMap<string, PlanConfig>;
  routes: ReadonlyMap<string, RouteProfileConfig>;
  /** Monthly limit per plan id, handed to QuotaLedger.admit. */
  quotaLimits: Readonly<Record<string, number>>;
  /** Told what became of every /v1 request once its response has closed (logs, ledger, metrics). */
  observers: readonly RequestObserver[];
  /** The usage ledger: its store (reports, support bundles), its writer (null when off) and the model prices. */
  usage: { store: LedgerStore; ledger: UsageLedger | null; prices: PriceBook };
  /** Managed-access spend cap: holds an estimate before a managed request calls upstream. */
  spend: SpendGate;
  /** Null when `metrics.enabled` is false. */
  metrics: RouterMetrics | null;
  /** The instance's graceful shutdown, as requests see it (start-server.ts drives it). */
  drain: Drain;
  /** Mail to account owners (app.mail), sent off the request path; `sends` is false with transport none. */
  mail: Mailer;
  /** Finds and records alerts off the request path; pages raise the ones they learn of at once. */
  alerts: AlertSweep;
  /** The response cache (docs/caching.md): where answers are kept, and each account's rule for it. */
  responseCache: ResponseCache;
  /** OpenTelemetry traces; absent when `tracing` is off, so the pipeline does nothing for them. */
  tracing?: Tracing;
}
