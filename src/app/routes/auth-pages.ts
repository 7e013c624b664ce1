/** Sign-up, sign-in, sign-out, password reset requests and single-use links. */
import { eventHandler, getQuery, type H3Event, type Router } from 'h3';
import { issueLink, LINK_PATH, LinkRefusedError } from '../../accounts/link-tokens.js';
import { hashToken } from '../../core/secret-tokens.js';
import { parseEmailAddress } from '../../core/email-address.js';
import { EmailTakenError, normalizeEmail } from '../../stores/account-auth-store.js';
import { personActor, type PersonRecord } from '../../stores/people-store.js';
import { redirect, redirectAfterPost, sendHtml } from '../http-helpers.js';
import { formProblem } from '../form-state.js';
import { anonymousAction, linksOf, signedInAction } from '../page-kit.js';
import { decoyHash, hashPassword, passwordProblem, verifyPassword } from '../password-hashing.js';
import { safeReturnPath } from '../return-to.js';
import type { WebDeps } from '../web-deps.js';
import { resetLinkMessage, signupAttemptMessage } from '../../mail/mail-messages.js';
import { sendVerificationLink } from '../email-verification.js';
import { MAIL_LIMITS } from '../mail-limits.js';
import { noteSignInDevice } from '../new-device-notes.js';
import { findPersonForSignIn, organizationForSignIn } from '../people-signin.js';

/** Said at every email field that gets something other than one plain address (core/email-address.ts). */
const EMAIL_PROBLEM = 'Enter one valid email address, like name@example.com (no name, no list).';
const GENERIC_SIGNIN_PROBLEM = 'That email and password do not match an account. Check both and try again.';
/** Said for an email or an address over its limit whether or not the email has an account, so it tells no one which exist. */
const THROTTLED_SIGNIN_PROBLEM =
  'Too many failed sign-ins for this email or from this network, so sign-in from this browser is paused for up to 15 minutes. To get in now, get a reset link (below): signing in through it also lets this browser in from then on.';
/** What every sign-up is answered, new email or not: the page must not tell anyone which accounts exist. */
const SIGNUP_NEXT_STEP =
  'Next step: sign in. If this email is new here, its account is ready with the password you just chose; if it already had an account, nothing changed: use that account’s password, or get a reset link.';

export function registerAuthPages(router: Router, deps: WebDeps): void {
  const app = deps.paths.app;
  const { store, renderer } = deps;
  const nowIso = () => new Date(deps.clock.now()).toISOString();
  const anonymousPage = (event: H3Event, template: string, data: Record<string, unknown>, status?: number) =>
    sendHtml(event, renderer.page(template, { csrf: deps.csrf.anonymousToken(event), ...data }, linksOf(deps, event)), status ? { status } : {});
  const signupOpen = deps.config.server.app.signup === 'open';
  const signinPage = (event: H3Event, data: Record<string, unknown> = {}, status?: number) =>
    anonymousPage(event, 'signin', { title: 'Sign in', signupOpen, ...data }, status);
  // At the password field (the email is kept): the message must not say which of the two was wrong.
  const signinProblem = (form: Record<string, string>) => formProblem(`${app}/signin`, form, { password: GENERIC_SIGNIN_PROBLEM });
  // `app` when no one is known to have acted (a failed or refused sign-in); the person once they are.
  const audit = (action: string, accountId: string | null, details: Record<string, unknown>, actor = 'app') =>
    store.recordAuditEvent({ actor, action, accountId, details });

  router.get(
    `${app}/signin`,
    eventHandler(async (event) => {
      const query = getQuery(event);
      const next = safeReturnPath(app, query.next);
      if (await deps.sessions.resolve(event)) return redirect(event, next ?? `${app}/keys`);
      // Sent here by a form posted after the session ended (page-kit.ts): say so instead of a bare sign-in.
      const ended = query.ended === '1' ? 'Your session ended, so that change was not made. Sign in to continue.' : undefined;
      return signinPage(event, { next, notice: ended });
    }),
  );
  router.post(
    `${app}/signin`,
    anonymousAction(deps, async (event, form) => {
      const email = normalizeEmail(form.email ?? '').slice(0, 320);
      const password = (form.password ?? '').slice(0, 1024);
      const ip = deps.clientAddress(event);
      // Not one plain address: no account can have it, and the field says so (nothing is checked or counted).
      if (parseEmailAddress(email) === null) return signinPage(event, { next: safeReturnPath(app, form.next), ...formProblem(`${app}/signin`, form, { email: EMAIL_PROBLEM }) }, 400);
      const person = await findPersonForSignIn(store, email);
      const home = person ? await organizationForSignIn(store, person.id) : 'none';
      const accountId = typeof home === 'string' ? null : home.id;
      const device = deps.devices.read(event);
      const attempt = { email, address: ip, accountId, knownDevice: accountId && deps.devices.vouchesFor(device, accountId) ? device!.deviceId : null };
      // Over a limit, the password is not checked: a known device is stopped only by its own failures, an unknown one by the email's or the address's (signin-throttle.ts).
      const refusal = await deps.throttle.refusal(attempt);
      if (refusal) {
        await audit('signin.throttled', accountId, { email, ip, limit: refusal });
        return signinPage(event, { next: safeReturnPath(app, form.next), ...formProblem(`${app}/signin`, form, { password: THROTTLED_SIGNIN_PROBLEM }) }, 429);
      }
      const matches = await verifyPassword(password, person?.passwordHash ?? (await decoyHash()));
      if (!person || !matches) {
        await deps.throttle.fail(attempt);
        await audit('signin.failure', accountId, { email, ip, reason: person ? 'wrong_password' : 'unknown_email' });
        return signinPage(event, { next: safeReturnPath(app, form.next), ...signinProblem(form) }, 401);
      }
      if (home === 'none') {
        await audit('signin.refused_no_organization', null, { ip, personId: person.id });
        return sendHtml(event, renderer.page('message', {
          title: 'No organization',
          heading: 'You are not a member of any organization',
          lines: ['Your sign-in works, but every organization you belonged to has removed you. Ask an owner or admin to invite you again.'],
          next: { href: `${app}/signin`, label: 'Back to sign in' },
        }, linksOf(deps, event)), { status: 403 });
      }
      if (home === 'inactive') {
        await audit('signin.refused_inactive', null, { ip, personId: person.id });
        return redirectAfterPost(event, `${app}/deactivated`);
      }
      await deps.sessions.start(event, home.id, person.id);
      await audit('signin.success', home.id, { ip, personId: person.id }, personActor(person.id));
      await noteSignInDevice(deps, event, home.id, deps.devices.remember(event, home.id));
      return redirectAfterPost(event, safeReturnPath(app, form.next) ?? `${app}/`);
    }),
  );

  router.get(
    `${app}/signup`,
    eventHandler((event) => {
      if (!signupOpen) {
        return sendHtml(event, renderer.page('message', {
          title: 'Sign-up is by invitation',
          heading: 'Sign-up is by invitation',
          lines: ['New accounts are created through invitation links. Ask the person who runs this service for one; the link opens a form that creates your account.'],
          next: { href: `${app}/signin`, label: 'Sign in' },
        }, linksOf(deps, event)));
      }
      return anonymousPage(event, 'signup', { title: 'Create your account', action: `${app}/signup`, submitLabel: 'Create account' });
    }),
  );
  router.post(
    `${app}/signup`,
    anonymousAction(deps, async (event, form) => {
      if (!signupOpen) return redirectAfterPost(event, `${app}/signup`);
      const email = parseEmailAddress(form.email ?? '');
      const password = form.password ?? '';
      const again = (errors: Record<string, string>) =>
        anonymousPage(event, 'signup', { title: 'Create your account', action: `${app}/signup`, submitLabel: 'Create account', ...formProblem(`${app}/signup`, form, errors) }, 400);
      if (email === null) return again({ email: EMAIL_PROBLEM });
      const weak = passwordProblem(password);
      if (weak) return again({ password: weak });
      // Both outcomes hash the password and write once, then answer the same page: no session for
      // either, so taking an email that has an account signs no one into it, and timing tells nothing.
      const passwordHash = await hashPassword(password);
      try {
        // A person invited into an organization has a sign-in without a login of their own: the address is taken.
        if (await store.findPersonByEmail(email)) throw new EmailTakenError();
        const account = await store.createAccountWithLogin({ email, plan: deps.config.server.app.signupPlan, passwordHash }, 'app');
        await store.adoptLogin(account.id);
        sendVerificationLink(deps, email, event);
      } catch (error) {
        if (!(error instanceof EmailTakenError)) throw error;
        await audit('signup.existing_email', null, { email, ip: deps.clientAddress(event) });
        // The address's owner hears of it (once a day at most); the page answers as for a new email (both mail off the request path).
        deps.strangerMail.sendLater('sign-up attempt', 'signup-attempt', email, deps.clientAddress(event), async () =>
          signupAttemptMessage(email, `${linksOf(deps, event).appUrl}/signin`, `${linksOf(deps, event).appUrl}/forgot`),
        );
      }
      return signinPage(event, { email, notice: SIGNUP_NEXT_STEP });
    }),
  );

  router.post(
    `${app}/signout`,
    signedInAction(deps, async (event, page) => {
      await deps.sessions.end(event, page);
      await store.recordAuditEvent({ actor: page.actor, action: 'signout', accountId: page.account.id, details: {} });
      return redirectAfterPost(event, `${app}/signin`);
    }),
  );

  const linkMinutes = deps.config.server.app.linkMinutes;
  const mailSends = deps.mail.sends;
  const forgotPage = (event: H3Event, extra: Record<string, unknown> = {}, status?: number) =>
    anonymousPage(event, 'forgot', { title: 'Reset your password', mailSends, linkMinutes, supportUrl: linksOf(deps, event).supportUrl, ...extra }, status);
  router.get(`${app}/forgot`, eventHandler((event) => forgotPage(event)));
  router.post(
    `${app}/forgot`,
    anonymousAction(deps, async (event, form) => {
      if (!mailSends) return redirectAfterPost(event, `${app}/forgot`);
      const email = parseEmailAddress(form.email ?? '');
      if (email === null) return forgotPage(event, formProblem(`${app}/forgot`, form, { email: EMAIL_PROBLEM }), 400);
      // Known or not, within the limits or not, the page answers at once and alike: the count, the look-up,
      // the link and the mail happen after it.
      const { appUrl } = linksOf(deps, event);
      deps.strangerMail.sendLater('password reset', 'reset', email, deps.clientAddress(event), async () => {
        try {
          const link = await issueLink({ store, clock: deps.clock, server: deps.config.server, appUrl }, 'reset', email, 'app');
          return resetLinkMessage(link.email, link.url, linkMinutes);
        } catch (error) {
          if (error instanceof LinkRefusedError) return null;
          throw error;
        }
      });
      return sendHtml(event, renderer.page('message', {
        title: 'Check your email',
        heading: 'Check your email',
        lines: [
          `If an account has that email, we just sent it a link to choose a new password. The link works once, for ${linkMinutes} minutes; a newer link replaces it.`,
          `Nothing arrived after a few minutes? Check your spam folder, or ask for a new link. We send at most ${MAIL_LIMITS.reset.perRecipient} links an hour to one address.`,
        ],
        next: { href: `${app}/signin`, label: 'Back to sign in' },
      }, linksOf(deps, event)));
    }),
  );

  const badLink = (event: H3Event) =>
    sendHtml(event, renderer.page('message', {
      title: 'Link not valid',
      heading: 'This link is not valid',
      lines: ['It was already used, has expired, or was copied incompletely. Ask for a new one.'],
      next: { href: `${app}/signin`, label: 'Sign in' },
    }, linksOf(deps, event)), { status: 410 });
  const linkForm = (event: H3Event, link: { kind: string; email: string }, token: string, problem?: string) =>
    anonymousPage(event, 'signup', {
      title: link.kind === 'invite' ? 'Accept your invitation' : 'Choose a new password',
      action: `${app}${LINK_PATH}`,
      token,
      fixedEmail: link.email,
      submitLabel: link.kind === 'invite' ? 'Create account' : 'Set password and sign in',
      intro: link.kind === 'invite' ? undefined : 'Set a new password for this account. Every session signed in with the old one is signed out.',
      ...(problem ? formProblem(`${app}${LINK_PATH}`, {}, { password: problem }) : {}),
    }, problem ? 400 : undefined);

  router.get(
    `${app}${LINK_PATH}`,
    eventHandler(async (event) => {
      const token = String(getQuery(event).token ?? '');
      const link = token.length > 0 && token.length < 100 ? await store.peekLinkToken(hashToken(token), nowIso()) : null;
      if (link?.kind === 'verify') {
        // A button, not the GET itself: mail scanners that open links must not use them up.
        return anonymousPage(event, 'verify-email', { title: 'Confirm your email', heading: 'Confirm your email', email: link.email, token, action: `${app}${LINK_PATH}` });
      }
      return link ? linkForm(event, link, token) : badLink(event);
    }),
  );
  router.post(
    `${app}${LINK_PATH}`,
    anonymousAction(deps, async (event, form) => {
      const token = form.token ?? '';
      const tokenHash = hashToken(token);
      const pending = await store.peekLinkToken(tokenHash, nowIso());
      if (!pending) return badLink(event);
      if (pending.kind === 'verify') {
        const used = await store.consumeLinkToken(tokenHash, nowIso());
        if (!used?.accountId) return badLink(event);
        await store.markEmailVerified(used.accountId, nowIso());
        const verified = await store.findPersonByEmail(used.email);
        if (verified) await store.markPersonVerified(verified.id, nowIso());
        await audit('email.verified', used.accountId, {}, verified ? personActor(verified.id) : 'app');
        return redirectAfterPost(event, `${app}/onboarding`);
      }
      const weak = passwordProblem(form.password ?? '');
      if (weak) return linkForm(event, pending, token, weak);
      const passwordHash = await hashPassword(form.password ?? '');
      const link = await store.consumeLinkToken(tokenHash, nowIso());
      if (!link) return badLink(event);
      let person: PersonRecord | null;
      if (link.kind === 'invite') {
        try {
          if (await store.findPersonByEmail(link.email)) throw new EmailTakenError();
          const account = await store.createAccountWithLogin({ email: link.email, plan: deps.config.server.app.signupPlan, passwordHash }, 'app');
          person = await store.adoptLogin(account.id);
        } catch (error) {
          if (error instanceof EmailTakenError) return badLink(event);
          throw error;
        }
      } else {
        person = await findPersonForSignIn(store, link.email);
        if (!person && link.accountId) {
          // An account made by the CLI and never signed in to: its first password makes its owner.
          await store.setPassword({ accountId: link.accountId, email: link.email, passwordHash }, 'app');
          person = await store.adoptLogin(link.accountId);
        }
        if (!person) return badLink(event);
        await store.setPersonPassword(person.id, passwordHash, personActor(person.id));
        await store.deletePersonSessions(person.id);
      }
      if (!person) return badLink(event);
      // The link reached this address (by mail or from the operator): it is confirmed.
      await store.markPersonVerified(person.id, nowIso());
      if (link.accountId) await store.markEmailVerified(link.accountId, nowIso());
      const home = await organizationForSignIn(store, person.id);
      if (typeof home === 'string') return redirectAfterPost(event, `${app}/deactivated`);
      await deps.sessions.start(event, home.id, person.id);
      // The mailbox vouched for this browser: it is a known device from now on, however many strangers fail on the email.
      deps.devices.remember(event, home.id);
      await audit('signin.success', home.id, { ip: deps.clientAddress(event), via: `${link.kind}_link`, personId: person.id }, personActor(person.id));
      return redirectAfterPost(event, `${app}/`);
    }),
  );
}
