/**
 * Members of the selected organization: the list with roles, invitations (mailed through the app's
 * mailer within the mail limits), role changes and removal (keys revoked at once, or handed to an
 * owner or admin chosen at removal). Who may post what is route-roles.ts's; the rules about owners
 * (only an owner makes or unmakes one, the last one stays) are here and in the store.
 */
import type { H3Event, Router } from 'h3';
import { parseEmailAddress } from '../../core/email-address.js';
import { hashToken, newToken } from '../../core/secret-tokens.js';
import { invitationMessage } from '../../mail/mail-messages.js';
import { isRole, KeyHeirError, LastOwnerError, membersAllowed, NotAMemberError, roleChangeKeysNotice, type InvitationRecord, type Role } from '../../stores/people-store.js';
import { formProblem } from '../form-state.js';
import { linksOf, organizationName, redirectAfterPost, signedInAction, signedInPage, type PageContext } from '../page-kit.js';
import { roleAllows } from '../route-roles.js';
import { zonedTime } from '../time-zone.js';
import type { WebDeps } from '../web-deps.js';

export const INVITATION_DAYS = 7;
export const INVITATION_PATH = '/invitations/accept';

const ROLE_LABELS: Readonly<Record<Role, string>> = {
  owner: 'Owner: everything, billing, ownership, deleting the organization',
  admin: 'Admin: members, every key, provider keys',
  member: 'Member: their own keys, the usage they caused',
  viewer: 'Viewer: reads usage only',
};

/** Only an owner hands out or takes away the owner role. */
const mayAssign = (actor: Role, from: Role | null, to: Role): boolean => actor === 'owner' || (to !== 'owner' && from !== 'owner');

export function registerMemberPages(router: Router, deps: WebDeps): void {
  const app = deps.paths.app;
  const { store } = deps;
  const nowIso = () => new Date(deps.clock.now()).toISOString();
  const invitationUrl = (event: H3Event, token: string) => `${linksOf(deps, event).appUrl}${INVITATION_PATH}?token=${token}`;

  async function membersView(page: PageContext, extra: Record<string, unknown> = {}, status?: number): Promise<string> {
    const manages = roleAllows(page.role, 'admin');
    const [members, invitations] = await Promise.all([store.listMembers(page.account.id), manages ? store.listInvitations(page.account.id, nowIso()) : []]);
    const heirs = members.filter((member) => roleAllows(member.role, 'admin'));
    const maxMembers = deps.plans.get(page.account.plan)?.maxMembers ?? null;
    return page.view(
      'members',
      {
        title: 'Members',
        organizationName: organizationName(page.account),
        manages,
        maxMembers,
        roles: (Object.keys(ROLE_LABELS) as Role[]).filter((role) => mayAssign(page.role, null, role)).map((role) => ({ role, label: ROLE_LABELS[role] })),
        members: members.map((member) => ({
          ...member,
          you: member.personId === page.person.id,
          sinceLabel: zonedTime(member.createdAt, page.timeZone),
          editable: manages && member.personId !== page.person.id && mayAssign(page.role, member.role, member.role),
          heirs: heirs.filter((heir) => heir.personId !== member.personId).map((heir) => ({ personId: heir.personId, email: heir.email })),
        })),
        invitations: invitations.map((invitation) => ({
          ...invitation,
          expiresLabel: zonedTime(invitation.expiresAt, page.timeZone),
          lastSentLabel: zonedTime(invitation.lastSentAt, page.timeZone),
        })),
        ...extra,
      },
      status ? { status } : {},
    );
  }

  /**
   * The plan's maxMembers counts members plus pending invitations (docs/teams.md): one more invitation to
   * `email` (its own pending one not counted twice) must fit, or the message naming the limit and the fix.
   */
  function memberLimitProblem(page: PageContext, members: number, pending: readonly InvitationRecord[], email: string): string | null {
    const plan = deps.plans.get(page.account.plan);
    const maxMembers = plan?.maxMembers;
    if (maxMembers === undefined || members + pending.filter((invitation) => invitation.email !== email).length < maxMembers) return null;
    return `The ${plan?.name ?? page.account.plan} plan ${membersAllowed(maxMembers)} (pending invitations count). An owner can upgrade the plan; an owner or admin can remove someone or revoke an invitation first.`;
  }

  /** Whether one more invitation mail to `email` is within the mail limits (always, with mail off: nothing is sent). */
  const mayMail = async (event: H3Event, email: string) => !deps.mail.sends || deps.strangerMail.allow('invite', email, deps.clientAddress(event));

  /** Mails the invitation; with mail off the inviter is shown the link to pass on. */
  function deliver(event: H3Event, page: PageContext, email: string, role: Role, token: string): { sent: boolean; link?: string } {
    if (!deps.mail.sends) return { sent: false, link: invitationUrl(event, token) };
    const url = invitationUrl(event, token);
    const from = organizationName(page.account);
    deps.mail.sendLater('invitation', async () => invitationMessage(email, { organization: from, role, inviter: page.person.email, url, days: INVITATION_DAYS }));
    return { sent: true };
  }


  router.get(`${app}/members`, signedInPage(deps, (_event, page) => membersView(page)));

  router.post(
    `${app}/members/invite`,
    signedInAction(deps, async (event, page, form) => {
      const email = parseEmailAddress(form.email ?? '');
      const role = form.role ?? '';
      const again = (errors: Record<string, string>, status = 400) => membersView(page, formProblem(`${app}/members/invite`, form, errors), status);
      if (email === null) return again({ email: 'Enter one valid email address, like name@example.com.' });
      if (!isRole(role) || !mayAssign(page.role, null, role)) return again({ role: 'Choose a role from the list.' });
      const [members, pending] = await Promise.all([store.listMembers(page.account.id), store.listInvitations(page.account.id, nowIso())]);
      if (members.some((member) => member.email === email)) return again({ email: `${email} is already a member.` }, 409);
      const full = memberLimitProblem(page, members.length, pending, email);
      if (full) return again({ email: full }, 409);
      if (!(await mayMail(event, email))) return membersView(page, { problem: overLimit(email) }, 429);
      const token = newToken();
      const expiresAt = new Date(deps.clock.now() + INVITATION_DAYS * 86_400_000).toISOString();
      await store.createInvitation({ accountId: page.account.id, email, role, invitedBy: page.person.id, tokenHash: hashToken(token), expiresAt }, page.actor);
      const delivery = deliver(event, page, email, role, token);
      return membersView(page, inviteNotice(email, delivery));
    }),
  );

  router.post(
    `${app}/invitations/:id/resend`,
    signedInAction(deps, async (event, page) => {
      const id = event.context.params?.id ?? '';
      const [members, invitations] = await Promise.all([store.listMembers(page.account.id), store.listInvitations(page.account.id, nowIso())]);
      const pending = invitations.find((invitation) => invitation.id === id);
      if (!pending) return membersView(page, { problem: 'That invitation is no longer pending.' }, 404);
      // A resend is a send: after a downgrade, a link that could not be accepted is not mailed again.
      const full = memberLimitProblem(page, members.length, invitations, pending.email);
      if (full) return membersView(page, { problem: full }, 409);
      const token = newToken();
      const expiresAt = new Date(deps.clock.now() + INVITATION_DAYS * 86_400_000).toISOString();
      // Counted before a new link replaces the old one: over the limit, the link they have keeps working.
      if (!(await mayMail(event, pending.email))) return membersView(page, { problem: overLimit(pending.email) }, 429);
      const resent = await store.resendInvitation(page.account.id, id, { tokenHash: hashToken(token), expiresAt }, page.actor);
      if (!resent) return membersView(page, { problem: 'That invitation is no longer pending.' }, 404);
      const delivery = deliver(event, page, resent.email, resent.role, token);
      return membersView(page, delivery.sent ? { notice: `Invitation sent again to ${resent.email}; the earlier link no longer works.` } : inviteNotice(resent.email, delivery));
    }),
  );

  router.post(
    `${app}/invitations/:id/revoke`,
    signedInAction(deps, async (event, page) => {
      const revoked = await store.revokeInvitation(page.account.id, event.context.params?.id ?? '', page.actor);
      return revoked ? membersView(page, { notice: 'Invitation revoked: its link no longer works.' }) : membersView(page, { problem: 'That invitation is no longer pending.' }, 404);
    }),
  );

  router.post(
    `${app}/members/:person/role`,
    signedInAction(deps, async (event, page, form) => {
      const personId = event.context.params?.person ?? '';
      const role = form.role ?? '';
      const current = await store.getMembership(page.account.id, personId);
      if (!current) return membersView(page, { problem: 'That person is not a member.' }, 404);
      if (!isRole(role) || !mayAssign(page.role, current.role, role)) return membersView(page, { problem: 'Only an owner can make someone an owner or change an owner’s role.' }, 403);
      let revoked: number;
      try {
        const change = await store.setMemberRole(page.account.id, personId, role, page.actor);
        // A key the new role may not hold (a management key below admin, any key of a viewer) stops now on this instance, as a removal's keys do.
        deps.keys.forget(change.revokedKeys.map((key) => key.hash));
        revoked = change.revokedKeys.length;
      } catch (error) {
        if (error instanceof LastOwnerError) return membersView(page, { problem: 'The organization needs an owner: make someone else owner first.' }, 409);
        throw error;
      }
      return membersView(page, { notice: `Role changed to ${role}.${roleChangeKeysNotice(role, revoked)}` });
    }),
  );

  router.post(
    `${app}/members/:person/remove`,
    signedInAction(deps, async (event, page, form) => {
      const personId = event.context.params?.person ?? '';
      const current = await store.getMembership(page.account.id, personId);
      if (!current) return membersView(page, { problem: 'That person is not a member.' }, 404);
      if (!mayAssign(page.role, current.role, current.role)) return membersView(page, { problem: 'Only an owner can remove an owner.' }, 403);
      const heir = form.keys && form.keys !== 'revoke' ? form.keys : null;
      try {
        const removal = await store.removeMember(page.account.id, personId, { heirPersonId: heir }, page.actor);
        // This instance forgets the revoked keys now; other instances within the key cache's TTL, as for any revocation.
        deps.keys.forget(removal.revokedKeys.map((key) => key.hash));
        // Handed-over keys too: a verified key caches its person, and its next request counts for the heir.
        if (removal.handedOverKeyIds.length > 0) {
          const handed = new Set(removal.handedOverKeyIds);
          deps.keys.forget((await store.listApiKeys(page.account.id)).filter((key) => handed.has(key.id)).map((key) => key.hash));
        }
        const keys = heir === null ? `${removal.revokedKeys.length} key${removal.revokedKeys.length === 1 ? '' : 's'} revoked` : `${removal.handedOverKeyIds.length} key${removal.handedOverKeyIds.length === 1 ? '' : 's'} handed over`;
        if (personId === page.person.id) {
          deps.sessions.clearCookie(event);
          return redirectAfterPost(event, `${app}/signin`);
        }
        return membersView(page, { notice: `Member removed; ${keys}; their sessions in this organization ended.` });
      } catch (error) {
        if (error instanceof LastOwnerError) return membersView(page, { problem: 'The last owner cannot be removed. Make someone else owner first.' }, 409);
        if (error instanceof KeyHeirError) return membersView(page, { problem: 'Keys can be handed only to another owner or admin.' }, 400);
        if (error instanceof NotAMemberError) return membersView(page, { problem: 'That person is not a member.' }, 404);
        throw error;
      }
    }),
  );

  router.post(
    `${app}/organizations/switch`,
    signedInAction(deps, async (event, page, form) => {
      const switched = await store.selectSessionAccount(page.session.id, page.person.id, form.organization ?? '');
      if (!switched) return page.view('error-page', { title: 'Not a member', heading: 'Not a member', message: 'You are not a member of that organization.', back: `${app}/` }, { status: 404 });
      await store.recordAuditEvent({ actor: page.actor, action: 'organization.switch', accountId: form.organization ?? null, details: { from: page.account.id } });
      return redirectAfterPost(event, `${app}/`);
    }),
  );
}

function overLimit(email: string): string {
  return `Too many invitations went to ${email} in the last hour; nothing was sent. Try again later: the link they already have keeps working.`;
}

function inviteNotice(email: string, delivery: { sent: boolean; link?: string }): Record<string, unknown> {
  if (delivery.sent) return { notice: `Invitation sent to ${email}. The link works once, for ${INVITATION_DAYS} days.` };
  if (delivery.link) return { notice: `Invitation made for ${email}. Mail is off on this server: send them this link yourself (it works once, for ${INVITATION_DAYS} days).`, invitationLink: delivery.link };
  return { problem: overLimit(email) };
}
