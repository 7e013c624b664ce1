/**
 * People and their organizations (docs/teams.md). An organization is an `accounts` row: its id stays
 * the organization id, and every key, limit, usage record and bill keeps pointing at it. A person is one
 * sign-in (email, password, sessions) that may belong to several organizations, with one role in each.
 * Implemented by every Store (SQLite and PostgreSQL); only hashes of passwords and invitation tokens are stored.
 */
import type { Account } from './account.js';

export const ROLES = ['owner', 'admin', 'member', 'viewer'] as const;
export type Role = (typeof ROLES)[number];

export function isRole(value: unknown): value is Role {
  return typeof value === 'string' && (ROLES as readonly string[]).includes(value);
}

export interface PersonRecord {
  id: string;
  /** Normalized (trimmed, lower case): one person per address. */
  email: string;
  /** Null only for a person adopted from a login without one (never made by this release). */
  passwordHash: string | null;
  emailVerifiedAt: string | null;
  createdAt: string;
  updatedAt: string;
}

export interface MembershipRecord {
  accountId: string;
  personId: string;
  role: Role;
  createdAt: string;
}

/** Owners and admins manage every key, so only they may hold a management key (docs/teams.md). */
export function mayHoldManagementKeys(role: Role): boolean {
  return role === 'owner' || role === 'admin';
}

/**
 * Which of the person's live keys in the organization a change to `role` revokes (docs/teams.md): a
 * viewer reads usage only, so a key that still calls models would let them spend; a member keeps their
 * ordinary keys but may not manage everyone's.
 */
export function keysRevokedBy(role: Role): 'none' | 'management' | 'all' {
  if (role === 'viewer') return 'all';
  return mayHoldManagementKeys(role) ? 'none' : 'management';
}

/** What a confirmation (the Members page, `router members role`) says of the keys a role change revoked: '' for none. */
export function roleChangeKeysNotice(role: Role, revoked: number): string {
  if (revoked === 0) return '';
  const everyKey = keysRevokedBy(role) === 'all';
  const count = `${revoked} ${everyKey ? '' : 'management '}key${revoked === 1 ? ' was' : 's were'} revoked`;
  return everyKey ? ` ${count}: a viewer reads usage only and calls no model.` : ` ${count} (only owners and admins hold them).`;
}

export interface RoleChange extends MembershipRecord {
  /** The keys the change revoked (keysRevokedBy): management keys below admin, every key for a viewer. */
  revokedKeys: { id: string; hash: string }[];
}

/** A membership with what the Members page shows of the person. */

export interface MemberView extends MembershipRecord {
  email: string;
}

export interface InvitationRecord {
  id: string;
  accountId: string;
  email: string;
  role: Role;
  /** The person who sent it; null when the operator did (CLI). */
  invitedBy: string | null;
  createdAt: string;
  expiresAt: string;
  sentCount: number;
  lastSentAt: string;
  acceptedAt: string | null;
  acceptedBy: string | null;
  revokedAt: string | null;
}

/** An organization always keeps an owner: the last one cannot leave, be removed or be demoted. */
export class LastOwnerError extends Error {
  constructor() {
    super('an organization needs at least one owner: make another member owner first');
    this.name = 'LastOwnerError';
  }
}

/** A key handed over at removal must go to an admin or owner of the same organization. */
export class KeyHeirError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'KeyHeirError';
  }
}

/** "allows 5 members": a plan's `maxMembers` in every message that names it. */
export function membersAllowed(maxMembers: number): string {
  return `allows ${maxMembers} member${maxMembers === 1 ? '' : 's'}`;
}

/** Joining would take the organization past its plan's `maxMembers` (docs/teams.md); nothing was changed. */
export class MemberLimitError extends Error {
  constructor(readonly accountId: string, readonly plan: string, readonly maxMembers: number, readonly members: number) {
    super(`the ${plan} plan ${membersAllowed(maxMembers)} and organization ${accountId} has ${members}`);
    this.name = 'MemberLimitError';
  }
}

/** The plan's member limit by plan id (undefined: no limit), as plans.yaml's `maxMembers` gives it. */
export type MaxMembersOf = (plan: string) => number | undefined;

/** The person is not (or no longer) a member of the organization. */
export class NotAMemberError extends Error {
  constructor(readonly accountId: string, readonly personId: string) {
    super(`person ${personId} is not a member of organization ${accountId}`);
    this.name = 'NotAMemberError';
  }
}

export interface MemberRemoval {
  membership: MembershipRecord;
  /** Live keys of the person that were revoked now (their hashes, so key caches can forget them at once). */
  revokedKeys: ReadonlyArray<{ id: string; hash: string }>;
  /** Keys handed to the heir (still working, now attributed to the heir). */
  handedOverKeyIds: readonly string[];
  /** Sessions of the person in this organization that were ended. */
  endedSessions: number;
}

export interface PeopleStore {
  getPerson(id: string): Promise<PersonRecord | null>;
  findPersonByEmail(email: string): Promise<PersonRecord | null>;
  /**
   * The person of the account's login, made (with an owner membership) if missing: a login an older
   * release created, or a CLI account whose first password was set. Null when the account has no login.
   * Idempotent and safe to race.
   */
  adoptLogin(accountId: string): Promise<PersonRecord | null>;
  /** A person with no organization yet (an invitation being accepted creates one this way). Throws EmailTakenError. */
  createPerson(input: { email: string; passwordHash: string; emailVerifiedAt: string | null }, actor: string): Promise<PersonRecord>;
  /**
   * Sets the person's password; a login of an account with the same address gets it too, so an older
   * release signing that login in during a rolling upgrade accepts the same password.
   */
  setPersonPassword(personId: string, passwordHash: string, actor: string): Promise<void>;
  markPersonVerified(personId: string, at: string): Promise<void>;

  getMembership(accountId: string, personId: string): Promise<MembershipRecord | null>;
  /** The person's organizations, oldest membership first. */
  listMemberships(personId: string): Promise<Array<MembershipRecord & { account: Account }>>;
  listMembers(accountId: string): Promise<MemberView[]>;
  /** Adds a member (or returns the existing membership unchanged). */
  addMember(input: { accountId: string; personId: string; role: Role }, actor: string): Promise<MembershipRecord>;
  /**
   * Throws LastOwnerError when it would leave no owner, NotAMemberError for a stranger. The person's live
   * keys that the new role may not hold (keysRevokedBy: management keys below admin, every key for a
   * viewer) are revoked in the same transaction; `revokedKeys` lets the caller forget them at once.
   */
  setMemberRole(accountId: string, personId: string, role: Role, actor: string): Promise<RoleChange>;
  /**
   * Removes the member in one transaction: their live keys in this organization are revoked, or handed
   * to `heirPersonId` (an owner or admin) when given; their sessions there end. Throws LastOwnerError for
   * the last owner, KeyHeirError for an unfit heir, NotAMemberError for a stranger.
   */
  removeMember(accountId: string, personId: string, options: { heirPersonId: string | null }, actor: string): Promise<MemberRemoval>;

  /** Display name of the organization (null: show the owner's email). */
  renameAccount(accountId: string, name: string | null, actor: string): Promise<Account>;
  /** A new organization owned by the person (a person with a sign-in may own several). */
  createOrganization(input: { ownerPersonId: string; name: string | null; plan: string }, actor: string): Promise<Account>;

  /** Points the session at another organization of its person; false when the person is not a member. */
  selectSessionAccount(sessionId: string, personId: string, accountId: string): Promise<boolean>;
  /** Records who a session made without a person (an older release) belongs to. */
  bindSessionPerson(sessionId: string, personId: string): Promise<void>;
  /** Ends every session of the person (all organizations) except `exceptId`: a password change or reset. */
  deletePersonSessions(personId: string, exceptId?: string): Promise<number>;

  /**
   * A pending invitation replaces any pending one for the same address in the same organization, in one
   * transaction: only the newest link works.
   */
  createInvitation(
    input: { accountId: string; email: string; role: Role; invitedBy: string | null; tokenHash: string; expiresAt: string },
    actor: string,
  ): Promise<InvitationRecord>;
  /** A new token (and expiry) for a pending invitation, counting the send; null when it is no longer pending. */
  resendInvitation(accountId: string, id: string, input: { tokenHash: string; expiresAt: string }, actor: string): Promise<InvitationRecord | null>;
  revokeInvitation(accountId: string, id: string, actor: string): Promise<boolean>;
  /** Pending (not accepted, not revoked, not expired at `nowIso`) invitations of the organization. */
  listInvitations(accountId: string, nowIso: string): Promise<InvitationRecord[]>;
  /** The invitation if still pending at `nowIso`, without using it (to show the accept page). */
  peekInvitation(tokenHash: string, nowIso: string): Promise<InvitationRecord | null>;
  /**
   * Uses the invitation for the person (whose email must be the invitation's), adding the membership,
   * atomically: of two concurrent uses exactly one succeeds. Null when it is not pending or the emails differ.
   * With `maxMembersOf`, throws MemberLimitError (the invitation stays pending) when a newcomer would take
   * the organization past its plan's limit, checked in the same transaction as the join, so concurrent
   * acceptances (several invitations, or a downgrade since) cannot exceed it together.
   */
  acceptInvitation(
    tokenHash: string,
    personId: string,
    nowIso: string,
    maxMembersOf?: MaxMembersOf,
  ): Promise<{ invitation: InvitationRecord; membership: MembershipRecord } | null>;
}

/** The audit actor of a person acting in the app. */
export function personActor(personId: string): string {
  return `person:${personId}`;
}
