/** The SQLite side of PeopleStore, sharing the store's connection and transactions (sqlite-account-auth.ts's helpers). */
import type { Database } from 'better-sqlite3';
import { EmailTakenError, normalizeEmail } from '../account-auth-store.js';
import {
  KeyHeirError,
  LastOwnerError,
  keysRevokedBy,
  MemberLimitError,
  type MaxMembersOf,
  NotAMemberError,
  type InvitationRecord,
  type MembershipRecord,
  type MemberView,
  type PeopleStore,
  type PersonRecord,
  type Role,
} from '../people-store.js';
import { NotFoundInStoreError } from '../store.js';
import type { SqliteHelpers } from './sqlite-account-auth.js';
import { toAccount, type AccountRow } from './sqlite-rows.js';

interface PersonRow { id: string; email: string; password_hash: string | null; email_verified_at: string | null; created_at: string; updated_at: string }
interface MembershipRow { account_id: string; person_id: string; role: Role; created_at: string }
interface InvitationRow {
  id: string; account_id: string; email: string; role: Role; token_hash: string; invited_by: string | null; created_at: string; expires_at: string;
  sent_count: number; last_sent_at: string; accepted_at: string | null; accepted_by: string | null; revoked_at: string | null;
}

const toPerson = (row: PersonRow): PersonRecord => ({
  id: row.id,
  email: row.email,
  passwordHash: row.password_hash,
  emailVerifiedAt: row.email_verified_at,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
});
const toMembership = (row: MembershipRow): MembershipRecord => ({ accountId: row.account_id, personId: row.person_id, role: row.role, createdAt: row.created_at });
const toInvitation = (row: InvitationRow): InvitationRecord => ({
  id: row.id,
  accountId: row.account_id,
  email: row.email,
  role: row.role,
  invitedBy: row.invited_by,
  createdAt: row.created_at,
  expiresAt: row.expires_at,
  sentCount: row.sent_count,
  lastSentAt: row.last_sent_at,
  acceptedAt: row.accepted_at,
  acceptedBy: row.accepted_by,
  revokedAt: row.revoked_at,
});

const PENDING = 'accepted_at IS NULL AND revoked_at IS NULL AND expires_at > ?';

function prepare(db: Database) {
  return {
    person: db.prepare<[string], PersonRow>('SELECT * FROM people WHERE id = ?'),
    personByEmail: db.prepare<[string], PersonRow>('SELECT * FROM people WHERE email = ?'),
    insertPerson: db.prepare<[PersonRow], unknown>(
      `INSERT INTO people (id, email, password_hash, email_verified_at, created_at, updated_at)
       VALUES (@id, @email, @password_hash, @email_verified_at, @created_at, @updated_at)`,
    ),
    login: db.prepare<[string], { email: string; password_hash: string; email_verified_at: string | null; updated_at: string }>(
      'SELECT email, password_hash, email_verified_at, updated_at FROM account_logins WHERE account_id = ?',
    ),
    setPassword: db.prepare<[string, string, string], unknown>('UPDATE people SET password_hash = ?, updated_at = ? WHERE id = ?'),
    setLoginPassword: db.prepare<[string, string, string], unknown>('UPDATE account_logins SET password_hash = ?, updated_at = ? WHERE email = ?'),
    markVerified: db.prepare<[string, string], unknown>('UPDATE people SET email_verified_at = coalesce(email_verified_at, ?) WHERE id = ?'),
    account: db.prepare<[string], AccountRow>('SELECT * FROM accounts WHERE id = ?'),
    membership: db.prepare<[string, string], MembershipRow>('SELECT * FROM memberships WHERE account_id = ? AND person_id = ?'),
    insertMembership: db.prepare<[MembershipRow], unknown>(
      'INSERT INTO memberships (account_id, person_id, role, created_at) VALUES (@account_id, @person_id, @role, @created_at) ON CONFLICT DO NOTHING',
    ),
    memberships: db.prepare<[string], MembershipRow & { a_id: string; a_email: string; a_name: string | null; a_plan: string; a_status: 'active' | 'inactive'; a_created_at: string }>(
      `SELECT m.*, a.id AS a_id, a.email AS a_email, a.name AS a_name, a.plan AS a_plan, a.status AS a_status, a.created_at AS a_created_at
       FROM memberships m JOIN accounts a ON a.id = m.account_id WHERE m.person_id = ? ORDER BY m.created_at, m.account_id`,
    ),
    members: db.prepare<[string], MembershipRow & { email: string }>(
      `SELECT m.*, p.email FROM memberships m JOIN people p ON p.id = m.person_id WHERE m.account_id = ?
       ORDER BY CASE m.role WHEN 'owner' THEN 0 WHEN 'admin' THEN 1 WHEN 'member' THEN 2 ELSE 3 END, p.email`,
    ),
    memberCount: db.prepare<[string], number>('SELECT count(*) FROM memberships WHERE account_id = ?').pluck(),
    owners: db.prepare<[string], number>("SELECT count(*) FROM memberships WHERE account_id = ? AND role = 'owner'").pluck(),
    setRole: db.prepare<[string, string, string], MembershipRow>('UPDATE memberships SET role = ? WHERE account_id = ? AND person_id = ? RETURNING *'),
    deleteMembership: db.prepare<[string, string], unknown>('DELETE FROM memberships WHERE account_id = ? AND person_id = ?'),
    liveKeys: db.prepare<[string, string, string], { id: string; hash: string }>(
      `SELECT id, hash FROM api_keys WHERE account_id = ? AND person_id = ? AND revoked_at IS NULL AND (expires_at IS NULL OR expires_at > ?) ORDER BY id`,
    ),
    liveManagementKeys: db.prepare<[string, string, string], { id: string; hash: string }>(
      `SELECT id, hash FROM api_keys WHERE account_id = ? AND person_id = ? AND kind = 'management' AND revoked_at IS NULL AND (expires_at IS NULL OR expires_at > ?) ORDER BY id`,
    ),
    revokeKey: db.prepare<[string, string], unknown>('UPDATE api_keys SET revoked_at = ? WHERE id = ?'),
    handOverKey: db.prepare<[string, string], unknown>('UPDATE api_keys SET person_id = ? WHERE id = ?'),
    deleteMemberSessions: db.prepare<[string, string], unknown>('DELETE FROM account_sessions WHERE account_id = ? AND person_id = ?'),
    deletePersonSessions: db.prepare<[string, string], unknown>('DELETE FROM account_sessions WHERE person_id = ? AND id <> ?'),
    rename: db.prepare<[string | null, string], AccountRow>('UPDATE accounts SET name = ? WHERE id = ? RETURNING *'),
    insertAccount: db.prepare<[AccountRow], unknown>(
      "INSERT INTO accounts (id, email, name, plan, status, created_at) VALUES (@id, @email, @name, @plan, 'active', @created_at)",
    ),
    selectAccount: db.prepare<[string, string, string, string], unknown>(
      'UPDATE account_sessions SET account_id = ? WHERE id = ? AND person_id = ? AND EXISTS (SELECT 1 FROM memberships WHERE account_id = ? AND person_id = account_sessions.person_id)',
    ),
    bindSession: db.prepare<[string, string], unknown>('UPDATE account_sessions SET person_id = ? WHERE id = ? AND person_id IS NULL'),
    supersedeInvitations: db.prepare<[string, string, string, string], unknown>(
      `UPDATE org_invitations SET revoked_at = ? WHERE account_id = ? AND email = ? AND ${PENDING}`,
    ),
    insertInvitation: db.prepare<[InvitationRow], unknown>(
      `INSERT INTO org_invitations (id, account_id, email, role, token_hash, invited_by, created_at, expires_at, sent_count, last_sent_at, accepted_at, accepted_by, revoked_at)
       VALUES (@id, @account_id, @email, @role, @token_hash, @invited_by, @created_at, @expires_at, @sent_count, @last_sent_at, @accepted_at, @accepted_by, @revoked_at)`,
    ),
    resend: db.prepare<[string, string, string, string, string, string], InvitationRow>(
      `UPDATE org_invitations SET token_hash = ?, expires_at = ?, sent_count = sent_count + 1, last_sent_at = ?
       WHERE account_id = ? AND id = ? AND ${PENDING} RETURNING *`,
    ),
    revoke: db.prepare<[string, string, string, string], InvitationRow>(`UPDATE org_invitations SET revoked_at = ? WHERE account_id = ? AND id = ? AND ${PENDING} RETURNING *`),
    pending: db.prepare<[string, string], InvitationRow>(`SELECT * FROM org_invitations WHERE account_id = ? AND ${PENDING} ORDER BY created_at, id`),
    peek: db.prepare<[string, string], InvitationRow>(`SELECT * FROM org_invitations WHERE token_hash = ? AND ${PENDING}`),
    accept: db.prepare<[string, string, string, string], InvitationRow>(
      `UPDATE org_invitations SET accepted_at = ?, accepted_by = ? WHERE token_hash = ? AND ${PENDING} RETURNING *`,
    ),
  };
}

export function createSqlitePeople(db: Database, helpers: SqliteHelpers): PeopleStore {
  const { write, guarded, audit, newId, nowIso } = helpers;
  let statements: ReturnType<typeof prepare> | undefined;
  const sql = () => (statements ??= prepare(db));

  function requireMembership(accountId: string, personId: string): MembershipRow {
    const row = sql().membership.get(accountId, personId);
    if (!row) throw new NotAMemberError(accountId, personId);
    return row;
  }

  /** Demoting or removing `row` must leave another owner. */
  function keepAnOwner(row: MembershipRow): void {
    if (row.role === 'owner' && sql().owners.get(row.account_id)! <= 1) throw new LastOwnerError();
  }

  function insertPerson(email: string, passwordHash: string | null, verifiedAt: string | null, at: string): PersonRow {
    const row: PersonRow = { id: newId('psn_'), email, password_hash: passwordHash, email_verified_at: verifiedAt, created_at: at, updated_at: at };
    sql().insertPerson.run(row);
    return row;
  }

  return {
    getPerson: guarded((id: string) => {
      const row = sql().person.get(id);
      return row ? toPerson(row) : null;
    }),
    findPersonByEmail: guarded((email: string) => {
      const row = sql().personByEmail.get(normalizeEmail(email));
      return row ? toPerson(row) : null;
    }),
    adoptLogin: write((accountId: string) => {
      const login = sql().login.get(accountId);
      if (!login) return null;
      const at = nowIso();
      const person = sql().personByEmail.get(login.email) ?? insertPerson(login.email, login.password_hash, login.email_verified_at, at);
      if (!sql().membership.get(accountId, person.id)) {
        sql().insertMembership.run({ account_id: accountId, person_id: person.id, role: 'owner', created_at: at });
        audit('system', 'member.adopt', accountId, null, { personId: person.id, role: 'owner' });
      }
      return toPerson(person);
    }),
    createPerson: write((input: { email: string; passwordHash: string; emailVerifiedAt: string | null }, actor: string) => {
      const email = normalizeEmail(input.email);
      if (sql().personByEmail.get(email)) throw new EmailTakenError();
      const row = insertPerson(email, input.passwordHash, input.emailVerifiedAt, nowIso());
      audit(actor, 'person.create', null, null, { personId: row.id });
      return toPerson(row);
    }),
    setPersonPassword: write((personId: string, passwordHash: string, actor: string) => {
      const person = sql().person.get(personId);
      if (!person) throw new NotAMemberError('', personId);
      const at = nowIso();
      sql().setPassword.run(passwordHash, at, personId);
      sql().setLoginPassword.run(passwordHash, at, person.email);
      audit(actor, 'person.password_set', null, null, { personId });
    }),
    markPersonVerified: write((personId: string, at: string) => void sql().markVerified.run(at, personId)),

    getMembership: guarded((accountId: string, personId: string) => {
      const row = sql().membership.get(accountId, personId);
      return row ? toMembership(row) : null;
    }),
    listMemberships: guarded((personId: string) =>
      sql()
        .memberships.all(personId)
        .map((row) => ({
          ...toMembership(row),
          account: toAccount({ id: row.a_id, email: row.a_email, name: row.a_name, plan: row.a_plan, status: row.a_status, created_at: row.a_created_at }),
        })),
    ),
    listMembers: guarded((accountId: string): MemberView[] => sql().members.all(accountId).map((row) => ({ ...toMembership(row), email: row.email }))),
    addMember: write((input: { accountId: string; personId: string; role: Role }, actor: string) => {
      if (!sql().account.get(input.accountId)) throw new NotFoundInStoreError('account', input.accountId);
      const existing = sql().membership.get(input.accountId, input.personId);
      if (existing) return toMembership(existing);
      const row: MembershipRow = { account_id: input.accountId, person_id: input.personId, role: input.role, created_at: nowIso() };
      sql().insertMembership.run(row);
      audit(actor, 'member.add', input.accountId, null, { personId: input.personId, role: input.role });
      return toMembership(row);
    }),
    setMemberRole: write((accountId: string, personId: string, role: Role, actor: string) => {
      const before = requireMembership(accountId, personId);
      if (role !== 'owner') keepAnOwner(before);
      const after = sql().setRole.get(role, accountId, personId)!;
      audit(actor, 'member.set_role', accountId, null, { personId, from: before.role, to: role });
      const revoking = keysRevokedBy(role);
      const revokedKeys = revoking === 'none' ? [] : (revoking === 'all' ? sql().liveKeys : sql().liveManagementKeys).all(accountId, personId, nowIso());
      for (const key of revokedKeys) {
        sql().revokeKey.run(nowIso(), key.id);
        audit(actor, 'key.revoke', accountId, key.id, { reason: 'role_changed', role });
      }
      return { ...toMembership(after), revokedKeys };
    }),
    removeMember: write((accountId: string, personId: string, options: { heirPersonId: string | null }, actor: string) => {
      const membership = requireMembership(accountId, personId);
      keepAnOwner(membership);
      const heir = options.heirPersonId;
      if (heir !== null) {
        const heirRole = sql().membership.get(accountId, heir)?.role;
        if (heir === personId || (heirRole !== 'owner' && heirRole !== 'admin')) throw new KeyHeirError('keys can be handed only to another owner or admin of the organization');
      }
      const at = nowIso();
      const keys = sql().liveKeys.all(accountId, personId, at);
      for (const key of keys) {
        if (heir === null) sql().revokeKey.run(at, key.id);
        else sql().handOverKey.run(heir, key.id);
        audit(actor, heir === null ? 'key.revoke' : 'key.hand_over', accountId, key.id, heir === null ? { reason: 'member_removed' } : { from: personId, to: heir });
      }
      const endedSessions = sql().deleteMemberSessions.run(accountId, personId).changes;
      sql().deleteMembership.run(accountId, personId);
      audit(actor, 'member.remove', accountId, null, { personId, role: membership.role, keys: heir === null ? 'revoked' : 'handed_over', keyCount: keys.length });
      return {
        membership: toMembership(membership),
        revokedKeys: heir === null ? keys : [],
        handedOverKeyIds: heir === null ? [] : keys.map((key) => key.id),
        endedSessions,
      };
    }),

    renameAccount: write((accountId: string, name: string | null, actor: string) => {
      const row = sql().rename.get(name, accountId);
      if (!row) throw new NotFoundInStoreError('account', accountId);
      audit(actor, 'account.rename', accountId, null, { name });
      return toAccount(row);
    }),
    createOrganization: write((input: { ownerPersonId: string; name: string | null; plan: string }, actor: string) => {
      const owner = sql().person.get(input.ownerPersonId);
      if (!owner) throw new NotAMemberError('', input.ownerPersonId);
      const at = nowIso();
      const row: AccountRow = { id: newId('acct_'), email: owner.email, name: input.name, plan: input.plan, status: 'active', created_at: at };
      sql().insertAccount.run(row);
      sql().insertMembership.run({ account_id: row.id, person_id: owner.id, role: 'owner', created_at: at });
      audit(actor, 'account.create', row.id, null, { plan: row.plan, via: 'organization', ownerPersonId: owner.id });
      return toAccount(row);
    }),

    selectSessionAccount: write((sessionId: string, personId: string, accountId: string) => sql().selectAccount.run(accountId, sessionId, personId, accountId).changes > 0),
    bindSessionPerson: write((sessionId: string, personId: string) => void sql().bindSession.run(personId, sessionId)),
    deletePersonSessions: write((personId: string, exceptId?: string) => sql().deletePersonSessions.run(personId, exceptId ?? '').changes),

    createInvitation: write(
      (input: { accountId: string; email: string; role: Role; invitedBy: string | null; tokenHash: string; expiresAt: string }, actor: string) => {
        if (!sql().account.get(input.accountId)) throw new NotFoundInStoreError('account', input.accountId);
        const at = nowIso();
        const email = normalizeEmail(input.email);
        sql().supersedeInvitations.run(at, input.accountId, email, at);
        const row: InvitationRow = {
          id: newId('inv_'),
          account_id: input.accountId,
          email,
          role: input.role,
          token_hash: input.tokenHash,
          invited_by: input.invitedBy,
          created_at: at,
          expires_at: input.expiresAt,
          sent_count: 1,
          last_sent_at: at,
          accepted_at: null,
          accepted_by: null,
          revoked_at: null,
        };
        sql().insertInvitation.run(row);
        audit(actor, 'invitation.create', input.accountId, null, { invitationId: row.id, role: input.role, expiresAt: input.expiresAt });
        return toInvitation(row);
      },
    ),
    resendInvitation: write((accountId: string, id: string, input: { tokenHash: string; expiresAt: string }, actor: string) => {
      const at = nowIso();
      const row = sql().resend.get(input.tokenHash, input.expiresAt, at, accountId, id, at);
      if (!row) return null;
      audit(actor, 'invitation.resend', accountId, null, { invitationId: id, sentCount: row.sent_count });
      return toInvitation(row);
    }),
    revokeInvitation: write((accountId: string, id: string, actor: string) => {
      const at = nowIso();
      const row = sql().revoke.get(at, accountId, id, at);
      if (row) audit(actor, 'invitation.revoke', accountId, null, { invitationId: id });
      return row !== undefined;
    }),
    listInvitations: guarded((accountId: string, at: string) => sql().pending.all(accountId, at).map(toInvitation)),
    peekInvitation: guarded((tokenHash: string, at: string) => {
      const row = sql().peek.get(tokenHash, at);
      return row ? toInvitation(row) : null;
    }),
    acceptInvitation: write((tokenHash: string, personId: string, at: string, maxMembersOf?: MaxMembersOf) => {
      const person = sql().person.get(personId);
      const pending = sql().peek.get(tokenHash, at);
      if (!person || !pending || pending.email !== person.email) return null;
      const existing = sql().membership.get(pending.account_id, personId);
      const plan = sql().account.get(pending.account_id)?.plan;
      const limit = plan === undefined ? undefined : maxMembersOf?.(plan);
      if (!existing && plan !== undefined && limit !== undefined) {
        const members = sql().memberCount.get(pending.account_id)!;
        if (members >= limit) throw new MemberLimitError(pending.account_id, plan, limit, members);
      }
      const row = sql().accept.get(at, personId, tokenHash, at)!;
      const membership: MembershipRow = existing ?? { account_id: row.account_id, person_id: personId, role: row.role, created_at: at };
      if (!existing) sql().insertMembership.run(membership);
      audit(`person:${personId}`, 'invitation.accept', row.account_id, null, { invitationId: row.id, personId, role: membership.role });
      return { invitation: toInvitation(row), membership: toMembership(membership) };
    }),
  };
}
