/**
 * The services the account app and the public pages read, and nothing else: the composition root
 * (runtime/) builds each of them, starts their timers and stops them on close. The app never sees the
 * /v1 pipeline's dependencies (rate limiter, concurrency, observers, drain, spend gate, metrics).
 */
import type { ConsolaInstance } from 'consola';
import type { AccountControls } from '../accounts/account-controls.js';
import type { KeyLimitService } from '../accounts/key-limit-service.js';
import type { KeyService } from '../accounts/key-service.js';
import type { AlertSweep } from '../alerts/alert-sweep.js';
import type { PlanConfig, RouterConfig } from '../config/types.js';
import type { Clock } from '../core/clock.js';
import type { Mailer } from '../mail/mailer.js';
import type { CredentialHealth } from '../routing/credential-health.js';
import type { ManagedAccessStatus } from '../routing/managed-access.js';
import type { ProviderHealth } from '../routing/provider-health.js';
import type { RouteMeasurements } from '../routing/route-measurements.js';
import type { RoutingEngine } from '../routing/routing-engine.js';
import type { QuotaLedger } from '../stores/quota-ledger.js';
import type { Store } from '../stores/store.js';
import type { H3Event } from 'h3';
import type { AppBilling } from './billing/open-billing.js';
import type { LedgerViews } from './ledger-seams.js';
import type { MailLimits } from './mail-limits.js';
import type { SessionManager } from './session-manager.js';
import type { SigninThrottle } from './signin-throttle.js';
import type { StatusHistory } from './status-history.js';
import type { OpenApiSource } from './docs/api-reference.js';

export interface AppServices {
  config: RouterConfig;
  /** The OpenAPI document GET /v1/openapi.json serves, which the docs' API reference page renders. */
  openApi: OpenApiSource;
  store: Store;
  clock: Clock;
  logger: ConsolaInstance;
  /** Issuing, rotating and revoking the account's keys. */
  keys: KeyService;
  /** The per-key limits the key pages set; the /v1 key-limits stage reads the same service, so changes apply at once. */
  keyLimits: KeyLimitService;
  /** Workspaces, budgets and guardrails as the pipeline reads them: forget an organization's after a change. */
  controls: AccountControls;
  /** The provider-keys page's "test this key" call. */
  engine: Pick<RoutingEngine, 'testCredential'>;
  /** The status page's circuits (now) and `statusHistory` (the last hours, sampled every minute). */
  health: ProviderHealth;
  statusHistory: StatusHistory;
  /** Measured routing's figures, shown on the catalog and status pages. */
  measurements: RouteMeasurements;
  /** The circuits of accounts' own provider keys: what the provider-keys page shows as rejected. */
  credentialHealth: CredentialHealth;
  managedAccess: ManagedAccessStatus;
  plans: ReadonlyMap<string, PlanConfig>;
  /** The usage page's quota standing, read without counting. */
  quota: Pick<QuotaLedger, 'peek'>;
  quotaLimits: Readonly<Record<string, number>>;
  /** What the pages read from the usage ledger (ledger-seams.ts). */
  ledger: LedgerViews;
  /** Mail to account owners (alerts, new devices), sent off the request path. */
  mail: Mailer;
  /** Mail a request without a password can cause (reset and verification links, sign-up notices), within per-recipient and per-address limits. */
  strangerMail: MailLimits;
  /** Pages raise the alerts they learn of at once (a provider key the test found rejected). */
  alerts: Pick<AlertSweep, 'raiseProviderKeyRejected'>;
  /** People's sessions, kept in the Store. */
  sessions: SessionManager;
  /** Sign-in failures counted in the shared RateLimiter. */
  throttle: SigninThrottle;
  /** The client's address through the trusted proxies (server.trustedProxies). */
  clientAddress: (event: H3Event) => string | null;
  /** Null with billing off (billing.provider none) or the app off. */
  billing: AppBilling | null;
}
