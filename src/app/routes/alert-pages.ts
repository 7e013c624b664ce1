/**
 * Alerts on the security page: the list (newest first), which kinds come by email, and "Revoke now" on a
 * leaked-key signal (one click, the key's own revoke, as the keys page's). The app's home (keys page and
 * Get started) shows the alerts still open (alerts/open-alerts.ts), each with its action.
 */
import type { Router } from 'h3';
import { describeAlert, DEFAULT_EMAIL_KINDS, KIND_LABELS } from '../../alerts/alert-rules.js';
import { openAlerts } from '../../alerts/open-alerts.js';
import { quotaPeriod } from '../../core/quota-period.js';
import type { ApiKeyRecord } from '../../stores/store.js';
import { providerKeyRejection } from '../provider-key-rejection.js';
import { ALERT_KINDS, isAlertKind } from '../../stores/alert-store.js';
import { zonedTime } from '../time-zone.js';
import { signedInAction, type PageContext } from '../page-kit.js';
import type { WebDeps } from '../web-deps.js';

/** What the security page shows of alerts: the latest 30 (a first device is no alert), times in `zone`, and the email choices. */
export async function alertViews(deps: WebDeps, accountId: string, zone: string) {
  const [alerts, chosen, keys] = await Promise.all([deps.store.listAlerts(accountId, 30), deps.store.getAlertEmailKinds(accountId), deps.store.listApiKeys(accountId)]);
  const live = liveKeyIds(keys, deps.clock.now());
  const emailKinds = chosen ?? DEFAULT_EMAIL_KINDS;
  return {
    alerts: alerts
      .filter((alert) => !(alert.kind === 'new_device' && alert.details.first === 1))
      .map((alert) => ({
        id: alert.id,
        at: alert.createdAt,
        atLabel: zonedTime(alert.createdAt, zone),
        ...describeAlert(alert),
        revokeKeyId: alert.kind === 'key_traffic_spike' && live.has(alert.subject) ? alert.subject : null,
      })),
    alertKinds: ALERT_KINDS.map((kind) => ({ kind, label: KIND_LABELS[kind], email: emailKinds.includes(kind) })),
  };
}

/** The open alerts the app's home shows (keys page and Get started), each with its one action; times in `zone`. */
export async function homeAlertViews(deps: WebDeps, accountId: string, zone: string) {
  const [alerts, keys, providerKeys] = await Promise.all([deps.store.listAlerts(accountId, 30), deps.store.listApiKeys(accountId), deps.store.listProviderKeys(accountId)]);
  const now = deps.clock.now();
  const facts = {
    now,
    quotaPeriod: quotaPeriod(now).key,
    liveKeyIds: liveKeyIds(keys, now),
    failingProviders: new Set(providerKeys.filter((key) => providerKeyRejection(deps.credentialHealth, accountId, key)).map((key) => key.providerId)),
  };
  const app = deps.paths.app;
  return openAlerts(alerts, facts).map(({ alert, action }) => ({
    id: alert.id,
    at: alert.createdAt,
    atLabel: zonedTime(alert.createdAt, zone),
    ...describeAlert(alert),
    revokeKeyId: action.kind === 'revoke-key' ? action.keyId : null,
    link: action.kind === 'link' ? { label: action.label, href: `${app}/${action.page}${action.anchor ? `#${action.anchor}` : ''}` } : null,
  }));
}

function liveKeyIds(keys: readonly ApiKeyRecord[], now: number): Set<string> {
  return new Set(keys.filter((key) => key.revokedAt === null && (key.expiresAt === null || Date.parse(key.expiresAt) > now)).map((key) => key.id));
}

export function registerAlertActions(router: Router, deps: WebDeps, securityView: (page: PageContext, extra?: Record<string, unknown>, status?: number) => Promise<string>): void {
  const app = deps.paths.app;
  router.post(
    `${app}/security/alerts`,
    signedInAction(deps, async (_event, page, form) => {
      const kinds = ALERT_KINDS.filter((kind) => form[`email_${kind}`] === 'on');
      await deps.store.setAlertEmailKinds(page.account.id, kinds.filter(isAlertKind), new Date(deps.clock.now()).toISOString());
      await deps.store.recordAuditEvent({ actor: page.actor, action: 'alerts.preferences', accountId: page.account.id, details: { email: kinds } });
      return securityView(page, { notice: 'Alert emails saved.' });
    }),
  );
  router.post(
    `${app}/security/alerts/revoke-key`,
    signedInAction(deps, async (_event, page, form) => {
      const key = form.keyId ? await deps.store.getApiKey(form.keyId) : null;
      if (!key || key.accountId !== page.account.id) return securityView(page, { problem: 'No such key.' }, 404);
      if (key.revokedAt === null) await deps.keys.revoke(key.id, page.actor);
      return securityView(page, { notice: `Key ${key.prefix}…${key.last4} is revoked: it stops working within seconds.` });
    }),
  );
}
