/**
 * The PostgreSQL side of PeopleStore, on the store's pool and transactions. Changes to an organization's
 * members lock its accounts row first, so two instances cannot both demote or remove "another" owner
 * and leave none.
 */
import type { Pool } from 'pg';
import { EmailTakenError, normalizeEmail } from '../account-auth-store.js';
import { KeyHeirError, LastOwnerError, keysRevokedBy, MemberLimitError, NotAMemberError, type InvitationRecord, type MembershipRecord, type PeopleStore, type PersonRecord, type Role } from '../people-store.js';
import { NotFoundInStoreError } from '../store.js';
import type { PostgresHelpers } from './postgres-account-auth.js';
import { toAccount, type AccountRow } from './postgres-rows.js';
import { inTransaction, queryRows, type Queryable } from './postgres-session.js';

interface PersonRow { id: string; email: string; password_hash: string | null; email_verified_at: Date | null; created_at: Date; updated_at: Date }
interface MembershipRow { account_id: string; person_id: string; role: Role; created_at: Date }
interface InvitationRow {
  id: string; account_id: string; email: string; role: Role; token_hash: string; invited_by: string | null; created_at: Date; expires_at: Date;
  sent_count: number; last_sent_at: Date; accepted_at: Date | null; accepted_by: string | null; revoked_at: Date | null;
}

const iso = (value: Date | null): string | null => (value === null ? null : value.toISOString());
const toPerson = (row: PersonRow): PersonRecord => ({
  id: row.id,
  email: row.email,
  passwordHash: row.password_hash,
  emailVerifiedAt: iso(row.email_verified_at),
  createdAt: row.created_at.toISOString(),
  updatedAt: row.updated_at.toISOString(),
});
const toMembership = (row: MembershipRow): MembershipRecord => ({ accountId: row.account_id, personId: row.person_id, role: row.role, createdAt: row.created_at.toISOString() });
const toInvitation = (row: InvitationRow): InvitationRecord => ({
  id: row.id,
  accountId: row.account_id,
  email: row.email,
  role: row.role,
  invitedBy: row.invited_by,
  createdAt: row.created_at.toISOString(),
  expiresAt: row.expires_at.toISOString(),
  sentCount: row.sent_count,
  lastSentAt: row.last_sent_at.toISOString(),
  acceptedAt: iso(row.accepted_at),
  acceptedBy: row.accepted_by,
  revokedAt: iso(row.revoked_at),
});

/** `$n` is the instant an invitation must still be valid at. */
const pending = (n: number) => `accepted_at IS NULL AND revoked_at IS NULL AND expires_at > $${n}`;
const isUniqueViolation = (error: unknown): boolean => (error as { code?: unknown }).code === '23505';

export function createPostgresPeople(pool: Pool, helpers: PostgresHelpers): PeopleStore {
  const { audit, newId, nowIso } = helpers;

  const one = async <R extends object>(db: Queryable, text: string, values: unknown[]): Promise<R | undefined> => (await queryRows<R & Record<string, unknown>>(db, text, values))[0];
  const membershipOf = (db: Queryable, accountId: string, personId: string) =>
    one<MembershipRow>(db, 'SELECT * FROM memberships WHERE account_id = $1 AND person_id = $2', [accountId, personId]);

  /** Locks the organization's row: member changes to one organization run one at a time across instances. */
  async function lockMembership(db: Queryable, accountId: string, personId: string): Promise<MembershipRow> {
    const account = await one<AccountRow>(db, 'SELECT * FROM accounts WHERE id = $1 FOR UPDATE', [accountId]);
    if (!account) throw new NotFoundInStoreError('account', accountId);
    const row = await membershipOf(db, accountId, personId);
    if (!row) throw new NotAMemberError(accountId, personId);
    return row;
  }

  async function keepAnOwner(db: Queryable, row: MembershipRow): Promise<void> {
    if (row.role !== 'owner') return;
    const counted = await one<{ owners: number }>(db, "SELECT count(*)::int AS owners FROM memberships WHERE account_id = $1 AND role = 'owner'", [row.account_id]);
    if ((counted?.owners ?? 0) <= 1) throw new LastOwnerError();
  }

  async function insertMembership(db: Queryable, accountId: string, personId: string, role: Role, at: string): Promise<MembershipRow> {
    await queryRows(db, 'INSERT INTO memberships (account_id, person_id, role, created_at) VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING', [accountId, personId, role, at]);
    return (await membershipOf(db, accountId, personId))!;
  }

  return {
    getPerson: async (id) => {
      const row = await one<PersonRow>(pool, 'SELECT * FROM people WHERE id = $1', [id]);
      return row ? toPerson(row) : null;
    },
    findPersonByEmail: async (email) => {
      const row = await one<PersonRow>(pool, 'SELECT * FROM people WHERE email = $1', [normalizeEmail(email)]);
      return row ? toPerson(row) : null;
    },
    adoptLogin: (accountId) =>
      inTransaction(pool, async (db) => {
        const login = await one<{ email: string; password_hash: string; email_verified_at: Date | null }>(
          db,
          'SELECT email, password_hash, email_verified_at FROM account_logins WHERE account_id = $1',
          [accountId],
        );
        if (!login) return null;
        // Two instances adopting the same login at once: one inserts, the other finds that row.
        await queryRows(db, 'SELECT pg_advisory_xact_lock(hashtext($1))', [`llm-router:person:${login.email}`]);
        const at = nowIso();
        const person =
          (await one<PersonRow>(db, 'SELECT * FROM people WHERE email = $1', [login.email])) ??
          (await one<PersonRow>(
            db,
            'INSERT INTO people (id, email, password_hash, email_verified_at, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $5) RETURNING *',
            [newId('psn_'), login.email, login.password_hash, login.email_verified_at, at],
          ))!;
        if (!(await membershipOf(db, accountId, person.id))) {
          await insertMembership(db, accountId, person.id, 'owner', at);
          await audit(db, 'system', 'member.adopt', accountId, null, { personId: person.id, role: 'owner' });
        }
        return toPerson(person);
      }),
    createPerson: async (input, actor) => {
      try {
        return await inTransaction(pool, async (db) => {
          const row = await one<PersonRow>(
            db,
            'INSERT INTO people (id, email, password_hash, email_verified_at, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $5) RETURNING *',
            [newId('psn_'), normalizeEmail(input.email), input.passwordHash, input.emailVerifiedAt, nowIso()],
          );
          await audit(db, actor, 'person.create', null, null, { personId: row!.id });
          return toPerson(row!);
        });
      } catch (error) {
        throw isUniqueViolation(error) ? new EmailTakenError() : error;
      }
    },
    setPersonPassword: (personId, passwordHash, actor) =>
      inTransaction(pool, async (db) => {
        const at = nowIso();
        const person = await one<PersonRow>(db, 'UPDATE people SET password_hash = $1, updated_at = $2 WHERE id = $3 RETURNING *', [passwordHash, at, personId]);
        if (!person) throw new NotAMemberError('', personId);
        await queryRows(db, 'UPDATE account_logins SET password_hash = $1, updated_at = $2 WHERE email = $3', [passwordHash, at, person.email]);
        await audit(db, actor, 'person.password_set', null, null, { personId });
      }),
    markPersonVerified: async (personId, at) => {
      await queryRows(pool, 'UPDATE people SET email_verified_at = coalesce(email_verified_at, $1) WHERE id = $2', [at, personId]);
    },

    getMembership: async (accountId, personId) => {
      const row = await membershipOf(pool, accountId, personId);
      return row ? toMembership(row) : null;
    },
    listMemberships: async (personId) => {
      const rows = await queryRows<MembershipRow & { a_email: string; a_name: string | null; a_plan: string; a_status: 'active' | 'inactive'; a_created_at: Date }>(
        pool,
        `SELECT m.*, a.email AS a_email, a.name AS a_name, a.plan AS a_plan, a.status AS a_status, a.created_at AS a_created_at
         FROM memberships m JOIN accounts a ON a.id = m.account_id WHERE m.person_id = $1 ORDER BY m.created_at, m.account_id`,
        [personId],
      );
      return rows.map((row) => ({
        ...toMembership(row),
        account: toAccount({ id: row.account_id, email: row.a_email, name: row.a_name, plan: row.a_plan, status: row.a_status, created_at: row.a_created_at }),
      }));
    },
    listMembers: async (accountId) => {
      const rows = await queryRows<MembershipRow & { email: string }>(
        pool,
        `SELECT m.*, p.email FROM memberships m JOIN people p ON p.id = m.person_id WHERE m.account_id = $1
         ORDER BY CASE m.role WHEN 'owner' THEN 0 WHEN 'admin' THEN 1 WHEN 'member' THEN 2 ELSE 3 END, p.email`,
        [accountId],
      );
      return rows.map((row) => ({ ...toMembership(row), email: row.email }));
    },
    addMember: (input, actor) =>
      inTransaction(pool, async (db) => {
        const account = await one<AccountRow>(db, 'SELECT * FROM accounts WHERE id = $1 FOR UPDATE', [input.accountId]);
        if (!account) throw new NotFoundInStoreError('account', input.accountId);
        const existing = await membershipOf(db, input.accountId, input.personId);
        if (existing) return toMembership(existing);
        const row = await insertMembership(db, input.accountId, input.personId, input.role, nowIso());
        await audit(db, actor, 'member.add', input.accountId, null, { personId: input.personId, role: input.role });
        return toMembership(row);
      }),
    setMemberRole: (accountId, personId, role, actor) =>
      inTransaction(pool, async (db) => {
        const before = await lockMembership(db, accountId, personId);
        if (role !== 'owner') await keepAnOwner(db, before);
        const after = await one<MembershipRow>(db, 'UPDATE memberships SET role = $1 WHERE account_id = $2 AND person_id = $3 RETURNING *', [role, accountId, personId]);
        await audit(db, actor, 'member.set_role', accountId, null, { personId, from: before.role, to: role });
        const at = nowIso();
        const revoking = keysRevokedBy(role);
        const revokedKeys =
          revoking === 'none'
            ? []
            : await queryRows<{ id: string; hash: string }>(
                db,
                `UPDATE api_keys SET revoked_at = $1 WHERE account_id = $2 AND person_id = $3${revoking === 'management' ? " AND kind = 'management'" : ''}
                 AND revoked_at IS NULL AND (expires_at IS NULL OR expires_at > $1) RETURNING id, hash`,
                [at, accountId, personId],
              );
        for (const key of revokedKeys) await audit(db, actor, 'key.revoke', accountId, key.id, { reason: 'role_changed', role });
        return { ...toMembership(after!), revokedKeys };
      }),
    removeMember: (accountId, personId, options, actor) =>
      inTransaction(pool, async (db) => {
        const membership = await lockMembership(db, accountId, personId);
        await keepAnOwner(db, membership);
        const heir = options.heirPersonId;
        if (heir !== null) {
          const heirRole = (await membershipOf(db, accountId, heir))?.role;
          if (heir === personId || (heirRole !== 'owner' && heirRole !== 'admin')) throw new KeyHeirError('keys can be handed only to another owner or admin of the organization');
        }
        const at = nowIso();
        const keys = await queryRows<{ id: string; hash: string }>(
          db,
          'SELECT id, hash FROM api_keys WHERE account_id = $1 AND person_id = $2 AND revoked_at IS NULL AND (expires_at IS NULL OR expires_at > $3) ORDER BY id FOR UPDATE',
          [accountId, personId, at],
        );
        for (const key of keys) {
          if (heir === null) await queryRows(db, 'UPDATE api_keys SET revoked_at = $1 WHERE id = $2', [at, key.id]);
          else await queryRows(db, 'UPDATE api_keys SET person_id = $1 WHERE id = $2', [heir, key.id]);
          await audit(db, actor, heir === null ? 'key.revoke' : 'key.hand_over', accountId, key.id, heir === null ? { reason: 'member_removed' } : { from: personId, to: heir });
        }
        const ended = await queryRows(db, 'DELETE FROM account_sessions WHERE account_id = $1 AND person_id = $2 RETURNING id', [accountId, personId]);
        await queryRows(db, 'DELETE FROM memberships WHERE account_id = $1 AND person_id = $2', [accountId, personId]);
        await audit(db, actor, 'member.remove', accountId, null, { personId, role: membership.role, keys: heir === null ? 'revoked' : 'handed_over', keyCount: keys.length });
        return {
          membership: toMembership(membership),
          revokedKeys: heir === null ? keys : [],
          handedOverKeyIds: heir === null ? [] : keys.map((key) => key.id),
          endedSessions: ended.length,
        };
      }),

    renameAccount: (accountId, name, actor) =>
      inTransaction(pool, async (db) => {
        const row = await one<AccountRow>(db, 'UPDATE accounts SET name = $1 WHERE id = $2 RETURNING *', [name, accountId]);
        if (!row) throw new NotFoundInStoreError('account', accountId);
        await audit(db, actor, 'account.rename', accountId, null, { name });
        return toAccount(row);
      }),
    createOrganization: (input, actor) =>
      inTransaction(pool, async (db) => {
        const owner = await one<PersonRow>(db, 'SELECT * FROM people WHERE id = $1', [input.ownerPersonId]);
        if (!owner) throw new NotAMemberError('', input.ownerPersonId);
        const at = nowIso();
        const row = await one<AccountRow>(
          db,
          "INSERT INTO accounts (id, email, name, plan, status, created_at) VALUES ($1, $2, $3, $4, 'active', $5) RETURNING *",
          [newId('acct_'), owner.email, input.name, input.plan, at],
        );
        await insertMembership(db, row!.id, owner.id, 'owner', at);
        await audit(db, actor, 'account.create', row!.id, null, { plan: input.plan, via: 'organization', ownerPersonId: owner.id });
        return toAccount(row!);
      }),

    selectSessionAccount: async (sessionId, personId, accountId) =>
      (
        await queryRows(
          pool,
          `UPDATE account_sessions SET account_id = $1 WHERE id = $2 AND person_id = $3
           AND EXISTS (SELECT 1 FROM memberships WHERE account_id = $1 AND person_id = $3) RETURNING id`,
          [accountId, sessionId, personId],
        )
      ).length > 0,
    bindSessionPerson: async (sessionId, personId) => {
      await queryRows(pool, 'UPDATE account_sessions SET person_id = $1 WHERE id = $2 AND person_id IS NULL', [personId, sessionId]);
    },
    deletePersonSessions: async (personId, exceptId) =>
      (await queryRows(pool, 'DELETE FROM account_sessions WHERE person_id = $1 AND id <> $2 RETURNING id', [personId, exceptId ?? ''])).length,

    createInvitation: (input, actor) =>
      inTransaction(pool, async (db) => {
        const account = await one<AccountRow>(db, 'SELECT * FROM accounts WHERE id = $1 FOR UPDATE', [input.accountId]);
        if (!account) throw new NotFoundInStoreError('account', input.accountId);
        const [at, email] = [nowIso(), normalizeEmail(input.email)];
        await queryRows(db, `UPDATE org_invitations SET revoked_at = $1 WHERE account_id = $2 AND email = $3 AND ${pending(1)}`, [at, input.accountId, email]);
        const row = await one<InvitationRow>(
          db,
          `INSERT INTO org_invitations (id, account_id, email, role, token_hash, invited_by, created_at, expires_at, sent_count, last_sent_at)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, 1, $7) RETURNING *`,
          [newId('inv_'), input.accountId, email, input.role, input.tokenHash, input.invitedBy, at, input.expiresAt],
        );
        await audit(db, actor, 'invitation.create', input.accountId, null, { invitationId: row!.id, role: input.role, expiresAt: input.expiresAt });
        return toInvitation(row!);
      }),
    resendInvitation: (accountId, id, input, actor) =>
      inTransaction(pool, async (db) => {
        const at = nowIso();
        const row = await one<InvitationRow>(
          db,
          `UPDATE org_invitations SET token_hash = $1, expires_at = $2, sent_count = sent_count + 1, last_sent_at = $3
           WHERE account_id = $4 AND id = $5 AND ${pending(3)} RETURNING *`,
          [input.tokenHash, input.expiresAt, at, accountId, id],
        );
        if (!row) return null;
        await audit(db, actor, 'invitation.resend', accountId, null, { invitationId: id, sentCount: row.sent_count });
        return toInvitation(row);
      }),
    revokeInvitation: (accountId, id, actor) =>
      inTransaction(pool, async (db) => {
        const row = await one<InvitationRow>(db, `UPDATE org_invitations SET revoked_at = $1 WHERE account_id = $2 AND id = $3 AND ${pending(1)} RETURNING *`, [
          nowIso(),
          accountId,
          id,
        ]);
        if (row) await audit(db, actor, 'invitation.revoke', accountId, null, { invitationId: id });
        return row !== undefined;
      }),
    listInvitations: async (accountId, at) =>
      (await queryRows<InvitationRow>(pool, `SELECT * FROM org_invitations WHERE account_id = $1 AND ${pending(2)} ORDER BY created_at, id`, [accountId, at])).map(toInvitation),
    peekInvitation: async (tokenHash, at) => {
      const row = await one<InvitationRow>(pool, `SELECT * FROM org_invitations WHERE token_hash = $1 AND ${pending(2)}`, [tokenHash, at]);
      return row ? toInvitation(row) : null;
    },
    acceptInvitation: (tokenHash, personId, at, maxMembersOf) =>
      inTransaction(pool, async (db) => {
        const person = await one<PersonRow>(db, 'SELECT * FROM people WHERE id = $1', [personId]);
        if (!person) return null;
        const invited = await one<InvitationRow>(db, `SELECT * FROM org_invitations WHERE token_hash = $1 AND email = $2 AND ${pending(3)}`, [tokenHash, person.email, at]);
        if (!invited) return null;
        // The organization's row is locked first, as every member change does: acceptances to it run one at a time.
        const account = await one<AccountRow>(db, 'SELECT * FROM accounts WHERE id = $1 FOR UPDATE', [invited.account_id]);
        const limit = account ? maxMembersOf?.(account.plan) : undefined;
        if (account && limit !== undefined && !(await membershipOf(db, account.id, personId))) {
          const members = (await one<{ members: number }>(db, 'SELECT count(*)::int AS members FROM memberships WHERE account_id = $1', [account.id]))?.members ?? 0;
          if (members >= limit) throw new MemberLimitError(account.id, account.plan, limit, members);
        }
        const row = await one<InvitationRow>(
          db,
          `UPDATE org_invitations SET accepted_at = $1, accepted_by = $2 WHERE token_hash = $3 AND email = $4 AND ${pending(1)} RETURNING *`,
          [at, personId, tokenHash, person.email],
        );
        if (!row) return null;
        const membership = await insertMembership(db, row.account_id, personId, row.role, at);
        await audit(db, `person:${personId}`, 'invitation.accept', row.account_id, null, { invitationId: row.id, personId, role: membership.role });
        return { invitation: toInvitation(row), membership: toMembership(membership) };
      }),
  };
}
