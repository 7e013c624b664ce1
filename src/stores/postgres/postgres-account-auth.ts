/** The PostgreSQL side of AccountAuthStore and KeyLimitStore, on the store's pool and transactions. */
import type { Pool } from 'pg';
import { EmailTakenError, normalizeEmail, type AccountAuthStore, type LinkKind, type LinkTokenRecord, type LoginRecord, type SessionRecord } from '../account-auth-store.js';
import type { KeyLimitStore, KeyLimits } from '../key-limit-store.js';
import { toAccount, type AccountRow } from './postgres-rows.js';
import { inTransaction, queryRows, type Queryable } from './postgres-session.js';

export interface PostgresHelpers {
  audit(db: Queryable, actor: string, action: string, accountId: string | null, keyId: string | null, details: object): Promise<void>;
  newId(prefix: string): string;
  nowIso(): string;
}

interface LoginRow { account_id: string; email: string; password_hash: string; updated_at: Date; email_verified_at?: Date | null }
interface SessionRow { id: string; account_id: string; person_id?: string | null; token_hash: string; created_at: Date; last_seen_at: Date; user_agent: string | null; ip: string | null }
interface LinkRow { id: string; kind: LinkKind; email: string; account_id: string | null; created_at: Date; expires_at: Date; used_at: Date | null }
interface LimitRow { key_id: string; monthly_requests: number | null; requests_per_minute: number | null }

const toLogin = (row: LoginRow): LoginRecord => ({
  accountId: row.account_id,
  email: row.email,
  passwordHash: row.password_hash,
  updatedAt: row.updated_at.toISOString(),
  emailVerifiedAt: row.email_verified_at ? row.email_verified_at.toISOString() : null,
});
const toSession = (row: SessionRow): SessionRecord => ({
  id: row.id,
  accountId: row.account_id,
  personId: row.person_id ?? null,
  tokenHash: row.token_hash,
  createdAt: row.created_at.toISOString(),
  lastSeenAt: row.last_seen_at.toISOString(),
  userAgent: row.user_agent,
  ip: row.ip,
});
const toLink = (row: LinkRow): LinkTokenRecord => ({
  id: row.id,
  kind: row.kind,
  email: row.email,
  accountId: row.account_id,
  createdAt: row.created_at.toISOString(),
  expiresAt: row.expires_at.toISOString(),
  usedAt: row.used_at === null ? null : row.used_at.toISOString(),
});
const toLimits = (row: LimitRow): KeyLimits => ({ keyId: row.key_id, monthlyRequests: row.monthly_requests, requestsPerMinute: row.requests_per_minute });

// Unique violation: two sign-ups for one address raced; the loser sees the same error as a sequential one.
const isUniqueViolation = (error: unknown): boolean => (error as { code?: unknown }).code === '23505';

export function createPostgresAccountAuth(pool: Pool, helpers: PostgresHelpers): AccountAuthStore & KeyLimitStore {
  const { audit, newId, nowIso } = helpers;

  async function withAccount(db: Queryable, accountId: string) {
    const [account] = await queryRows<AccountRow>(db, 'SELECT * FROM accounts WHERE id = $1', [accountId]);
    return account ? toAccount(account) : null;
  }

  return {
    createAccountWithLogin: async (input, actor) => {
      const email = normalizeEmail(input.email);
      try {
        return await inTransaction(pool, async (db) => {
          const [taken] = await queryRows(db, 'SELECT 1 FROM account_logins WHERE email = $1', [email]);
          if (taken) throw new EmailTakenError();
          const at = nowIso();
          const [row] = await queryRows<AccountRow>(
            db,
            `INSERT INTO accounts (id, email, plan, status, created_at) VALUES ($1, $2, $3, 'active', $4) RETURNING *`,
            [newId('acct_'), email, input.plan, at],
          );
          await queryRows(db, 'INSERT INTO account_logins (account_id, email, password_hash, updated_at) VALUES ($1, $2, $3, $4)', [
            row!.id,
            email,
            input.passwordHash,
            at,
          ]);
          await audit(db, actor, 'account.create', row!.id, null, { plan: row!.plan, via: 'signup' });
          return toAccount(row!);
        });
      } catch (error) {
        throw isUniqueViolation(error) ? new EmailTakenError() : error;
      }
    },
    findLoginByEmail: async (email) => {
      const [login] = await queryRows<LoginRow>(pool, 'SELECT * FROM account_logins WHERE email = $1', [normalizeEmail(email)]);
      if (!login) return null;
      const account = await withAccount(pool, login.account_id);
      return account ? { login: toLogin(login), account } : null;
    },
    getLogin: async (accountId) => {
      const [row] = await queryRows<LoginRow>(pool, 'SELECT * FROM account_logins WHERE account_id = $1', [accountId]);
      return row ? toLogin(row) : null;
    },
    setPassword: async (input, actor) => {
      const email = normalizeEmail(input.email);
      try {
        await inTransaction(pool, async (db) => {
          const [holder] = await queryRows<LoginRow>(db, 'SELECT * FROM account_logins WHERE email = $1', [email]);
          if (holder && holder.account_id !== input.accountId) throw new EmailTakenError();
          await queryRows(
            db,
            `INSERT INTO account_logins (account_id, email, password_hash, updated_at) VALUES ($1, $2, $3, $4)
             ON CONFLICT (account_id) DO UPDATE SET email = EXCLUDED.email, password_hash = EXCLUDED.password_hash, updated_at = EXCLUDED.updated_at`,
            [input.accountId, email, input.passwordHash, nowIso()],
          );
          await audit(db, actor, 'account.password_set', input.accountId, null, {});
        });
      } catch (error) {
        throw isUniqueViolation(error) ? new EmailTakenError() : error;
      }
    },
    markEmailVerified: async (accountId, at) => {
      await queryRows(pool, 'UPDATE account_logins SET email_verified_at = coalesce(email_verified_at, $1) WHERE account_id = $2', [at, accountId]);
    },
    findAccountsByEmail: async (email) =>
      (await queryRows<AccountRow>(pool, 'SELECT * FROM accounts WHERE lower(trim(email)) = $1 ORDER BY created_at, id', [normalizeEmail(email)])).map(
        toAccount,
      ),

    createSession: async (input) => {
      const at = nowIso();
      const [row] = await queryRows<SessionRow>(
        pool,
        `INSERT INTO account_sessions (id, account_id, token_hash, created_at, last_seen_at, user_agent, ip, person_id)
         VALUES ($1, $2, $3, $4, $4, $5, $6, $7) RETURNING *`,
        [newId('ses_'), input.accountId, input.tokenHash, at, input.userAgent, input.ip, input.personId ?? null],
      );
      return toSession(row!);
    },
    findSessionByTokenHash: async (tokenHash) => {
      const [row] = await queryRows<SessionRow>(pool, 'SELECT * FROM account_sessions WHERE token_hash = $1', [tokenHash]);
      if (!row) return null;
      const account = await withAccount(pool, row.account_id);
      return account ? { session: toSession(row), account } : null;
    },
    touchSession: async (id, at) => void (await queryRows(pool, 'UPDATE account_sessions SET last_seen_at = $2 WHERE id = $1', [id, at])),
    listSessions: async (accountId) =>
      (await queryRows<SessionRow>(pool, 'SELECT * FROM account_sessions WHERE account_id = $1 ORDER BY last_seen_at DESC, id', [accountId])).map(toSession),
    deleteSession: async (accountId, id) =>
      (await queryRows(pool, 'DELETE FROM account_sessions WHERE account_id = $1 AND id = $2 RETURNING id', [accountId, id])).length > 0,
    deleteSessions: async (accountId, exceptId) =>
      (await queryRows(pool, 'DELETE FROM account_sessions WHERE account_id = $1 AND id <> $2 RETURNING id', [accountId, exceptId ?? ''])).length,

    createLinkToken: (input, actor) =>
      inTransaction(pool, async (db) => {
        const [email, createdAt] = [normalizeEmail(input.email), nowIso()];
        // One issuer at a time per kind and email (across instances): a second one waits, then sees this link to expire it.
        await queryRows(db, 'SELECT pg_advisory_xact_lock(hashtext($1))', [`llm-router:link:${input.kind}:${email}`]);
        await db.query('UPDATE link_tokens SET expires_at = $3 WHERE kind = $1 AND email = $2 AND used_at IS NULL AND expires_at > $3', [input.kind, email, createdAt]);
        const [row] = await queryRows<LinkRow>(
          db,
          `INSERT INTO link_tokens (id, kind, email, account_id, token_hash, created_at, expires_at)
           VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING *`,
          [newId('lnk_'), input.kind, email, input.accountId, input.tokenHash, createdAt, input.expiresAt],
        );
        await audit(db, actor, `link.${input.kind}_issued`, input.accountId, null, { expiresAt: input.expiresAt });
        return toLink(row!);
      }),
    peekLinkToken: async (tokenHash, now) => {
      const [row] = await queryRows<LinkRow>(pool, 'SELECT * FROM link_tokens WHERE token_hash = $1 AND used_at IS NULL AND expires_at > $2', [tokenHash, now]);
      return row ? toLink(row) : null;
    },
    consumeLinkToken: async (tokenHash, now) => {
      const [row] = await queryRows<LinkRow>(
        pool,
        'UPDATE link_tokens SET used_at = $2 WHERE token_hash = $1 AND used_at IS NULL AND expires_at > $2 RETURNING *',
        [tokenHash, now],
      );
      return row ? toLink(row) : null;
    },
    recordAuditEvent: async (input) => audit(pool, input.actor, input.action, input.accountId, null, input.details),

    setKeyLimits: (limits, actor) =>
      inTransaction(pool, async (db) => {
        const [key] = await queryRows<{ account_id: string }>(db, 'SELECT account_id FROM api_keys WHERE id = $1', [limits.keyId]);
        if (limits.monthlyRequests === null && limits.requestsPerMinute === null) {
          await queryRows(db, 'DELETE FROM api_key_limits WHERE key_id = $1', [limits.keyId]);
        } else {
          await queryRows(
            db,
            `INSERT INTO api_key_limits (key_id, monthly_requests, requests_per_minute) VALUES ($1, $2, $3)
             ON CONFLICT (key_id) DO UPDATE SET monthly_requests = EXCLUDED.monthly_requests, requests_per_minute = EXCLUDED.requests_per_minute`,
            [limits.keyId, limits.monthlyRequests, limits.requestsPerMinute],
          );
        }
        await audit(db, actor, 'key.set_limits', key?.account_id ?? null, limits.keyId, {
          monthlyRequests: limits.monthlyRequests,
          requestsPerMinute: limits.requestsPerMinute,
        });
      }),
    getKeyLimits: async (keyId) => {
      const [row] = await queryRows<LimitRow>(pool, 'SELECT * FROM api_key_limits WHERE key_id = $1', [keyId]);
      return row ? toLimits(row) : null;
    },
    listKeyLimits: async (accountId) =>
      (
        await queryRows<LimitRow>(
          pool,
          'SELECT l.* FROM api_key_limits l JOIN api_keys k ON k.id = l.key_id WHERE k.account_id = $1 ORDER BY l.key_id',
          [accountId],
        )
      ).map(toLimits),
    admitKeyQuota: async ({ keyId, period, weight, limit }) => {
      const [counted] = await queryRows<{ used: number }>(
        pool,
        `INSERT INTO key_quota_usage (key_id, period, used) SELECT $1, $2, $3::int WHERE $3::int <= $4::int
         ON CONFLICT (key_id, period) DO UPDATE SET used = key_quota_usage.used + EXCLUDED.used
         WHERE key_quota_usage.used + EXCLUDED.used <= $4::int RETURNING used`,
        [keyId, period, weight, limit],
      );
      if (counted) return { admitted: true, used: counted.used };
      const [row] = await queryRows<{ used: number }>(pool, 'SELECT used FROM key_quota_usage WHERE key_id = $1 AND period = $2', [keyId, period]);
      return { admitted: false, used: row?.used ?? 0 };
    },
    refundKeyQuota: async (keyId, period, weight) =>
      void (await queryRows(pool, 'UPDATE key_quota_usage SET used = GREATEST(used - $3, 0) WHERE key_id = $1 AND period = $2', [keyId, period, weight])),
    readKeyQuota: async (keyId, period) => {
      const [row] = await queryRows<{ used: number }>(pool, 'SELECT used FROM key_quota_usage WHERE key_id = $1 AND period = $2', [keyId, period]);
      return row?.used ?? 0;
    },
    findReplacementKeyId: async (keyId) => {
      const [row] = await queryRows<{ key_id: string }>(
        pool,
        "SELECT key_id FROM audit_events WHERE action = 'key.create' AND details->>'rotatedFrom' = $1 ORDER BY seq LIMIT 1",
        [keyId],
      );
      return row?.key_id ?? null;
    },
    listReplacements: async (accountId) => {
      const rows = await queryRows<{ old_id: string; key_id: string }>(
        pool,
        `SELECT details->>'rotatedFrom' AS old_id, key_id FROM audit_events
         WHERE account_id = $1 AND action = 'key.create' AND details ? 'rotatedFrom' ORDER BY seq`,
        [accountId],
      );
      const map = new Map<string, string>();
      for (const row of rows) if (!map.has(row.old_id)) map.set(row.old_id, row.key_id);
      return map;
    },
  };
}
