/**
 * The invitation journey: the mailed link opens a page that joins the organization for the person it
 * was sent to. Signed in as that person: one button. Signed out with a sign-in for that address: sign in
 * first (the link is where sign-in returns). No sign-in yet: choose a password, which creates the person.
 * Signed in as someone else: refused, saying who the invitation is for. Single use, expiring and
 * revocable (PeopleStore.acceptInvitation). An organization at its plan's `maxMembers` takes no one more
 * (several pending invitations, or a downgrade since inviting): the page names the limit and who can
 * lift it, and nothing changes, not even a new sign-in.
 */
import { eventHandler, getQuery, type H3Event, type Router } from 'h3';
import { hashToken } from '../../core/secret-tokens.js';
import type { Account } from '../../stores/account.js';
import { EmailTakenError } from '../../stores/account-auth-store.js';
import { MemberLimitError, membersAllowed, personActor, type InvitationRecord } from '../../stores/people-store.js';
import { readForm, redirectAfterPost, sendHtml } from '../http-helpers.js';
import { formProblem } from '../form-state.js';
import { forbidden, linksOf, organizationName } from '../page-kit.js';
import { hashPassword, passwordProblem } from '../password-hashing.js';
import type { SignedIn } from '../session-manager.js';
import type { WebDeps } from '../web-deps.js';
import { INVITATION_PATH } from './member-pages.js';

export function registerInvitationPages(router: Router, deps: WebDeps): void {
  const app = deps.paths.app;
  const { store, renderer } = deps;
  const path = `${app}${INVITATION_PATH}`;
  const nowIso = () => new Date(deps.clock.now()).toISOString();

  const message = (event: H3Event, status: number, heading: string, lines: string[], next = { href: `${app}/signin`, label: 'Sign in' }) =>
    sendHtml(event, renderer.page('message', { title: heading, heading, lines, next }, linksOf(deps, event)), { status });
  const notValid = (event: H3Event) =>
    message(event, 410, 'This invitation is not valid', ['It was already used, was revoked, has expired, or was copied incompletely. Ask whoever invited you to send it again.']);
  const wrongPerson = (event: H3Event, invitation: InvitationRecord, signedIn: SignedIn) =>
    message(event, 403, 'This invitation is for someone else', [
      `It was sent to ${invitation.email}, and you are signed in as ${signedIn.person.email}. Nothing was changed.`,
      `To accept it, sign out, then open the link again and sign in (or create a sign-in) as ${invitation.email}.`,
    ], { href: `${app}/security`, label: 'Go to sign out' });

  const maxMembersOf = (plan: string) => deps.plans.get(plan)?.maxMembers;
  const full = (event: H3Event, account: Account | null, limit: { plan: string; maxMembers: number; members: number }) => {
    const name = account ? organizationName(account) : 'The organization';
    return message(event, 409, `${name} has no room for another member`, [
      `Its ${deps.plans.get(limit.plan)?.name ?? limit.plan} plan ${membersAllowed(limit.maxMembers)}, and it has ${limit.members}. Nothing was changed: you have not joined, and the invitation still works until it expires.`,
      `An owner of ${name} can upgrade the plan (Billing), or an owner or admin can remove a member. Then open this link again.`,
    ], { href: `${app}/`, label: 'Go to the app' });
  };
  /** The plan's limit if a newcomer would exceed it now (the store checks again, atomically, when they join). */
  async function overLimit(account: Account | null, personEmail: string | null) {
    const maxMembers = account ? maxMembersOf(account.plan) : undefined;
    if (!account || maxMembers === undefined) return null;
    const members = await store.listMembers(account.id);
    if (personEmail !== null && members.some((member) => member.email === personEmail)) return null;
    return members.length >= maxMembers ? { plan: account.plan, maxMembers, members: members.length } : null;
  }
  /** Joins through the store; a full organization answers the limit page. */
  async function join(event: H3Event, invitation: InvitationRecord, tokenHash: string, personId: string) {
    try {
      return { accepted: await store.acceptInvitation(tokenHash, personId, nowIso(), maxMembersOf) };
    } catch (error) {
      if (error instanceof MemberLimitError) return { refused: full(event, await store.getAccount(invitation.accountId), error) };
      throw error;
    }
  }

  async function pageFor(event: H3Event, token: string, invitation: InvitationRecord, extra: Record<string, unknown> = {}, status?: number): Promise<string> {
    const account = await store.getAccount(invitation.accountId);
    const signedIn = await deps.sessions.resolve(event);
    if (signedIn && signedIn.person.email !== invitation.email) return wrongPerson(event, invitation, signedIn);
    const limit = await overLimit(account, invitation.email);
    if (limit) return full(event, account, limit);
    const hasSignIn = signedIn !== null || (await store.findPersonByEmail(invitation.email)) !== null || (await store.findLoginByEmail(invitation.email)) !== null;
    const data = {
      title: 'Accept your invitation',
      organization: account ? organizationName(account) : 'an organization',
      invitation: { email: invitation.email, role: invitation.role },
      token,
      action: path,
      mode: signedIn ? 'join' : hasSignIn ? 'signin' : 'create',
      signinHref: `${app}/signin?next=${encodeURIComponent(`${path}?token=${token}`)}`,
      csrf: signedIn ? deps.csrf.sessionToken(signedIn.session.id) : deps.csrf.anonymousToken(event),
      ...extra,
    };
    return sendHtml(event, renderer.page('invitation', data, linksOf(deps, event)), status ? { status } : {});
  }

  router.get(
    path,
    eventHandler(async (event) => {
      const token = String(getQuery(event).token ?? '');
      const invitation = token.length > 0 && token.length < 100 ? await store.peekInvitation(hashToken(token), nowIso()) : null;
      return invitation ? pageFor(event, token, invitation) : notValid(event);
    }),
  );

  router.post(
    path,
    eventHandler(async (event) => {
      const refused = deps.csrf.originProblem(event);
      if (refused) return forbidden(deps, event, refused);
      const form = await readForm(event).catch(() => null);
      const token = form?.token ?? '';
      if (!form || token.length === 0 || token.length >= 100) return notValid(event);
      const tokenHash = hashToken(token);
      const invitation = await store.peekInvitation(tokenHash, nowIso());
      if (!invitation) return notValid(event);
      const signedIn = await deps.sessions.resolve(event);

      if (signedIn) {
        if (!deps.csrf.verify(deps.csrf.sessionToken(signedIn.session.id), form.csrf)) return forbidden(deps, event, 'missing or wrong form token');
        if (signedIn.person.email !== invitation.email) return wrongPerson(event, invitation, signedIn);
        const joined = await join(event, invitation, tokenHash, signedIn.person.id);
        if ('refused' in joined) return joined.refused;
        const accepted = joined.accepted;
        if (!accepted) return notValid(event);
        await store.selectSessionAccount(signedIn.session.id, signedIn.person.id, accepted.membership.accountId);
        return redirectAfterPost(event, `${app}/`);
      }

      if (!deps.csrf.verifyAnonymous(event, form.csrf)) return forbidden(deps, event, 'missing or wrong form token');
      // Someone who can sign in already accepts after signing in, never by choosing a new password here.
      if ((await store.findPersonByEmail(invitation.email)) || (await store.findLoginByEmail(invitation.email))) return pageFor(event, token, invitation);
      // Refused before the sign-in is made: a full organization changes nothing.
      const account = await store.getAccount(invitation.accountId);
      const limit = await overLimit(account, null);
      if (limit) return full(event, account, limit);
      const weak = passwordProblem(form.password ?? '');
      if (weak) return pageFor(event, token, invitation, formProblem(path, {}, { password: weak }), 400);
      let personId: string;
      try {
        // The invitation reached this mailbox: the address is confirmed.
        personId = (await store.createPerson({ email: invitation.email, passwordHash: await hashPassword(form.password ?? ''), emailVerifiedAt: nowIso() }, 'app')).id;
      } catch (error) {
        if (error instanceof EmailTakenError) return pageFor(event, token, invitation);
        throw error;
      }
      const joined = await join(event, invitation, tokenHash, personId);
      // Filled up between the check above and now: the new sign-in stays, to accept once there is room.
      if ('refused' in joined) return joined.refused;
      const accepted = joined.accepted;
      if (!accepted) return notValid(event);
      await deps.sessions.start(event, accepted.membership.accountId, personId);
      deps.devices.remember(event, accepted.membership.accountId);
      await store.recordAuditEvent({ actor: personActor(personId), action: 'signin.success', accountId: accepted.membership.accountId, details: { ip: deps.clientAddress(event), via: 'invitation' } });
      return redirectAfterPost(event, `${app}/`);
    }),
  );
}
