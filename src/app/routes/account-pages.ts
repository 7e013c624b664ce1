/** Security, the deactivated page, and the app's front door (usage and support: usage-pages.ts; billing: ../billing/). */
import { eventHandler, type Router } from 'h3';
import { isPlaygroundKey } from '../../accounts/key-service.js';
import { hashPassword, passwordProblem, verifyPassword } from '../password-hashing.js';
import { redirect, sendHtml } from '../http-helpers.js';
import { zonedTime } from '../time-zone.js';
import { deviceName } from '../device-name.js';
import { verificationNeeded } from '../email-verification.js';
import { formProblem } from '../form-state.js';
import { alertViews, registerAlertActions } from './alert-pages.js';
import { describeActor, loadActorNames } from '../../usage/audit-actors.js';
import { linksOf, signedInAction, signedInPage, type PageContext } from '../page-kit.js';
import type { WebDeps } from '../web-deps.js';

const EVENT_LABELS: Record<string, string> = {
  'account.create': 'Account created',
  'account.set_plan': 'Plan changed',
  'billing.update': 'Billing updated',
  'account.deactivate': 'Account deactivated',
  'account.password_set': 'Password set',
  'key.create': 'Key created',
  'key.rotate': 'Key rotated',
  'key.revoke': 'Key revoked',
  'key.set_limits': 'Key limits changed',
  'provider_key.set': 'Provider key saved',
  'provider_key.remove': 'Provider key removed',
  'provider_key.test': 'Provider key tested',
  'signin.success': 'Signed in',
  'signin.failure': 'Failed sign-in attempt',
  'signin.throttled': 'Sign-in attempt throttled',
  'signin.refused_inactive': 'Sign-in refused (account inactive)',
  'signout': 'Signed out',
  'sessions.end_others': 'Other sessions signed out',
  'session.end': 'A session was ended',
  'link.invite_issued': 'Invitation link issued',
  'link.reset_issued': 'Password reset link issued',
  'signin.new_device': 'Signed in from a new device',
  'link.verify_issued': 'Email confirmation link sent',
  'email.verified': 'Email confirmed',
  'alerts.preferences': 'Alert emails changed',
};

export function registerAccountPages(router: Router, deps: WebDeps): void {
  const app = deps.paths.app;
  const { store } = deps;

  async function securityView(page: PageContext, extra: Record<string, unknown> = {}, status?: number): Promise<string> {
    const [allSessions, events, alerts] = await Promise.all([
      store.listSessions(page.account.id),
      store.listAuditEvents({ accountId: page.account.id, limit: 50 }),
      alertViews(deps, page.account.id, page.timeZone),
    ]);
    // Each event names who acted: the person's email, or the API key's name (audit-actors.ts).
    const actors = await loadActorNames(store, events, page.account.id);
    // One's own sessions only: the organization's other members have theirs.
    const sessions = allSessions.filter((session) => session.personId === page.person.id || session.id === page.session.id);
    return page.view(
      'security',
      {
        title: 'Security',
        sessions: sessions.map((session) => ({
          id: session.id,
          current: session.id === page.session.id,
          device: deviceName(session.userAgent),
          ip: session.ip,
          createdLabel: zonedTime(session.createdAt, page.timeZone),
          lastSeenLabel: zonedTime(session.lastSeenAt, page.timeZone),
        })),
        ...alerts,
        events: events.map((event) => ({ at: event.at, atLabel: zonedTime(event.at, page.timeZone), label: EVENT_LABELS[event.action] ?? event.action, actor: describeActor(event.actor, actors) })),
        ...extra,
      },
      status ? { status } : {},
    );
  }

  // Errors at the password fields; neither password is ever written back into the page.
  const passwordProblemAt = (errors: Record<string, string>) => formProblem(`${app}/security/password`, {}, errors);

  router.get(`${app}/security`, signedInPage(deps, (_event, page) => securityView(page)));
  registerAlertActions(router, deps, securityView);
  router.post(
    `${app}/security/signout-others`,
    signedInAction(deps, async (_event, page) => {
      const ended = await store.deletePersonSessions(page.person.id, page.session.id);
      await store.recordAuditEvent({ actor: page.actor, action: 'sessions.end_others', accountId: page.account.id, details: { ended } });
      return securityView(page, { notice: `${ended} other session${ended === 1 ? '' : 's'} signed out.` });
    }),
  );
  router.post(
    `${app}/security/sessions/:id/end`,
    signedInAction(deps, async (event, page) => {
      const id = event.context.params?.id ?? '';
      const own = (await store.listSessions(page.account.id)).some((session) => session.id === id && session.personId === page.person.id);
      const ended = own && id !== page.session.id && (await store.deleteSession(page.account.id, id));
      if (ended) await store.recordAuditEvent({ actor: page.actor, action: 'session.end', accountId: page.account.id, details: {} });
      return securityView(page, ended ? { notice: 'Session ended.' } : { problem: 'No such session.' }, ended ? undefined : 404);
    }),
  );
  router.post(
    `${app}/security/password`,
    signedInAction(deps, async (_event, page, form) => {
      const current = page.person.passwordHash;
      if (current === null || !(await verifyPassword((form.currentPassword ?? '').slice(0, 1024), current))) {
        await store.recordAuditEvent({ actor: page.actor, action: 'account.password_change_refused', accountId: page.account.id, details: {} });
        return securityView(page, passwordProblemAt({ currentPassword: 'The current password is not right. Nothing was changed.' }), 400);
      }
      const weak = passwordProblem(form.newPassword ?? '');
      if (weak) return securityView(page, passwordProblemAt({ newPassword: weak }), 400);
      await store.setPersonPassword(page.person.id, await hashPassword(form.newPassword!), page.actor);
      const ended = await store.deletePersonSessions(page.person.id, page.session.id);
      return securityView(page, { notice: `Password changed. ${ended} other session${ended === 1 ? '' : 's'} signed out.` });
    }),
  );


  router.get(`${app}/deactivated`, eventHandler((event) => sendHtml(event, deps.renderer.page('deactivated', { title: 'Account deactivated' }, linksOf(deps, event)))));

  const home = eventHandler(async (event) => {
    const signedIn = await deps.sessions.resolve(event);
    if (!signedIn) return redirect(event, `${app}/signin`);
    // A viewer reads usage only (route-roles.ts).
    if (signedIn.role === 'viewer') return redirect(event, `${app}/usage`);
    // Get started asks an unconfirmed address to confirm first, whatever keys the account has.
    const started = !(await verificationNeeded(deps, signedIn.account.id)) && (await store.listApiKeys(signedIn.account.id)).some((key) => !isPlaygroundKey(key));
    return redirect(event, `${app}/${started ? 'keys' : 'onboarding'}`);
  });
  router.get(`${app}/`, home);
  if (app !== '') router.get(app, home);
}
