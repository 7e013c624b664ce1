/**
 * The account app's services, built from the runtime's (AppServices: the narrow view the app gets).
 * Started here: the status history's sampling and, with billing on, the billing sweep; `stop()` ends
 * both (the runtime's close() calls it).
 */
import { openBilling } from '../app/billing/open-billing.js';
import type { AppServices } from '../app/app-services.js';
import { clientAddressOf } from '../app/http-helpers.js';
import { SessionManager } from '../app/session-manager.js';
import { MailLimits } from '../app/mail-limits.js';
import { SigninThrottle } from '../app/signin-throttle.js';
import { StatusHistory } from '../app/status-history.js';
import { webPaths } from '../app/web-paths.js';
import { createProxyTrust } from '../core/proxy-trust.js';
import type { RouterDeps } from '../http/router-deps.js';
import { buildOpenApiDocument } from '../http/openapi/openapi-document.js';
import { routerVersion } from '../usage/support-bundle.js';
import { createLedgerViews } from './ledger-views.js';

export function openAppServices(deps: RouterDeps): { services: AppServices; stop(): void } {
  const { config, store, clock, logger } = deps;
  // The public status page's history is sampled every minute whether or not the account app is on.
  const statusHistory = new StatusHistory(deps.health, config.providers.providers.map((provider) => provider.id), clock);
  statusHistory.start();
  const billing = config.server.app.enabled ? openBilling({ config, store, clock, logger }) : null;
  const stopBillingSweep = billing?.service.startSweep(() => deps.drain.draining);
  const clientAddress = clientAddressOf(createProxyTrust(config.server.trustedProxies));
  const services: AppServices = {
    config,
    openApi: buildOpenApiDocument({ baseUrl: config.server.baseUrl, version: routerVersion() }),
    store,
    clock,
    logger,
    keys: deps.keys,
    keyLimits: deps.keyLimits,
    controls: deps.controls,
    engine: deps.engine,
    health: deps.health,
    statusHistory,
    measurements: deps.measurements,
    credentialHealth: deps.credentialHealth,
    managedAccess: deps.managedAccess,
    plans: deps.plans,
    quota: deps.quota,
    quotaLimits: deps.quotaLimits,
    ledger: createLedgerViews(deps),
    mail: deps.mail,
    // Counted in the same shared limiter as sign-in failures, so the limits hold across workers and instances.
    strangerMail: new MailLimits(deps.mail, deps.rateLimiter, clock),
    alerts: deps.alerts,
    sessions: new SessionManager(store, clock, config.server.app, webPaths(config.server).secure, clientAddress),
    // In the shared limiter: every worker and (with Redis) every instance counts the same failures.
    throttle: new SigninThrottle(deps.rateLimiter, clock),
    clientAddress,
    billing,
  };
  return {
    services,
    stop() {
      statusHistory.stop();
      stopBillingSweep?.();
    },
  };
}
