/** The SQLite side of AccountAuthStore and KeyLimitStore, sharing the store's connection and transactions. */
import type { Database } from 'better-sqlite3';
import { EmailTakenError, normalizeEmail, type AccountAuthStore, type LinkKind, type LinkTokenRecord, type LoginRecord, type SessionRecord } from '../account-auth-store.js';
import type { KeyLimitStore } from '../key-limit-store.js';
import type { Account } from '../store.js';
import { toAccount, type AccountRow } from './sqlite-rows.js';

export interface SqliteHelpers {
  write<A extends unknown[], R>(work: (...args: A) => R): (...args: A) => Promise<R>;
  guarded<A extends unknown[], R>(work: (...args: A) => R): (...args: A) => Promise<R>;
  audit(actor: string, action: string, accountId: string | null, keyId: string | null, details: Record<string, unknown>): void;
  newId(prefix: string): string;
  nowIso(): string;
}

interface LoginRow { account_id: string; email: string; password_hash: string; updated_at: string; email_verified_at?: string | null }
interface SessionRow { id: string; account_id: string; person_id?: string | null; token_hash: string; created_at: string; last_seen_at: string; user_agent: string | null; ip: string | null }
interface LinkRow { id: string; kind: LinkKind; email: string; account_id: string | null; created_at: string; expires_at: string; used_at: string | null }
interface LimitRow { key_id: string; monthly_requests: number | null; requests_per_minute: number | null }

const toLogin = (row: LoginRow): LoginRecord => ({
  accountId: row.account_id,
  email: row.email,
  passwordHash: row.password_hash,
  updatedAt: row.updated_at,
  emailVerifiedAt: row.email_verified_at ?? null,
});
const toSession = (row: SessionRow): SessionRecord => ({
  id: row.id,
  accountId: row.account_id,
  personId: row.person_id ?? null,
  tokenHash: row.token_hash,
  createdAt: row.created_at,
  lastSeenAt: row.last_seen_at,
  userAgent: row.user_agent,
  ip: row.ip,
});
const toLink = (row: LinkRow): LinkTokenRecord => ({
  id: row.id,
  kind: row.kind,
  email: row.email,
  accountId: row.account_id,
  createdAt: row.created_at,
  expiresAt: row.expires_at,
  usedAt: row.used_at,
});
const toLimits = (row: LimitRow) => ({ keyId: row.key_id, monthlyRequests: row.monthly_requests, requestsPerMinute: row.requests_per_minute });

function prepare(db: Database) {
  return {
    insertAccount: db.prepare<[AccountRow], unknown>('INSERT INTO accounts (id, email, plan, status, created_at) VALUES (@id, @email, @plan, @status, @created_at)'),
    getAccount: db.prepare<[string], AccountRow>('SELECT * FROM accounts WHERE id = ?'),
    accountsByEmail: db.prepare<[string], AccountRow>('SELECT * FROM accounts WHERE lower(trim(email)) = ? ORDER BY created_at, id'),
    loginByEmail: db.prepare<[string], LoginRow>('SELECT * FROM account_logins WHERE email = ?'),
    loginByAccount: db.prepare<[string], LoginRow>('SELECT * FROM account_logins WHERE account_id = ?'),
    insertLogin: db.prepare<[LoginRow], unknown>('INSERT INTO account_logins (account_id, email, password_hash, updated_at) VALUES (@account_id, @email, @password_hash, @updated_at)'),
    upsertLogin: db.prepare<[LoginRow], unknown>(
      `INSERT INTO account_logins (account_id, email, password_hash, updated_at) VALUES (@account_id, @email, @password_hash, @updated_at)
       ON CONFLICT (account_id) DO UPDATE SET email = excluded.email, password_hash = excluded.password_hash, updated_at = excluded.updated_at`,
    ),
    markVerified: db.prepare<[string, string], unknown>('UPDATE account_logins SET email_verified_at = coalesce(email_verified_at, ?) WHERE account_id = ?'),
    insertSession: db.prepare<[SessionRow], unknown>(
      `INSERT INTO account_sessions (id, account_id, person_id, token_hash, created_at, last_seen_at, user_agent, ip)
       VALUES (@id, @account_id, @person_id, @token_hash, @created_at, @last_seen_at, @user_agent, @ip)`,
    ),
    sessionByHash: db.prepare<[string], SessionRow>('SELECT * FROM account_sessions WHERE token_hash = ?'),
    touchSession: db.prepare<[string, string], unknown>('UPDATE account_sessions SET last_seen_at = ? WHERE id = ?'),
    listSessions: db.prepare<[string], SessionRow>('SELECT * FROM account_sessions WHERE account_id = ? ORDER BY last_seen_at DESC, id'),
    deleteSession: db.prepare<[string, string], unknown>('DELETE FROM account_sessions WHERE account_id = ? AND id = ?'),
    deleteSessionsExcept: db.prepare<[string, string], unknown>('DELETE FROM account_sessions WHERE account_id = ? AND id <> ?'),
    insertLink: db.prepare<[LinkRow & { token_hash: string }], unknown>(
      `INSERT INTO link_tokens (id, kind, email, account_id, token_hash, created_at, expires_at, used_at)
       VALUES (@id, @kind, @email, @account_id, @token_hash, @created_at, @expires_at, @used_at)`,
    ),
    supersedeLinks: db.prepare<[string, string, string, string], unknown>(
      'UPDATE link_tokens SET expires_at = ? WHERE kind = ? AND email = ? AND used_at IS NULL AND expires_at > ?',
    ),
    peekLink: db.prepare<[string, string], LinkRow>('SELECT * FROM link_tokens WHERE token_hash = ? AND used_at IS NULL AND expires_at > ?'),
    consumeLink: db.prepare<[string, string, string], LinkRow>(
      'UPDATE link_tokens SET used_at = ? WHERE token_hash = ? AND used_at IS NULL AND expires_at > ? RETURNING *',
    ),
    upsertLimits: db.prepare<[LimitRow], unknown>(
      `INSERT INTO api_key_limits (key_id, monthly_requests, requests_per_minute) VALUES (@key_id, @monthly_requests, @requests_per_minute)
       ON CONFLICT (key_id) DO UPDATE SET monthly_requests = excluded.monthly_requests, requests_per_minute = excluded.requests_per_minute`,
    ),
    deleteLimits: db.prepare<[string], unknown>('DELETE FROM api_key_limits WHERE key_id = ?'),
    getLimits: db.prepare<[string], LimitRow>('SELECT * FROM api_key_limits WHERE key_id = ?'),
    listLimits: db.prepare<[string], LimitRow>(
      'SELECT l.* FROM api_key_limits l JOIN api_keys k ON k.id = l.key_id WHERE k.account_id = ? ORDER BY l.key_id',
    ),
    keyAccount: db.prepare<[string], string>('SELECT account_id FROM api_keys WHERE id = ?').pluck(),
    admitKey: db.prepare<{ keyId: string; period: string; weight: number; limit: number }, { used: number }>(
      `INSERT INTO key_quota_usage (key_id, period, used) SELECT @keyId, @period, @weight WHERE @weight <= @limit
       ON CONFLICT (key_id, period) DO UPDATE SET used = used + excluded.used WHERE key_quota_usage.used + excluded.used <= @limit
       RETURNING used`,
    ),
    readKey: db.prepare<[string, string], number>('SELECT used FROM key_quota_usage WHERE key_id = ? AND period = ?').pluck(),
    refundKey: db.prepare<[number, string, string], unknown>('UPDATE key_quota_usage SET used = MAX(used - ?, 0) WHERE key_id = ? AND period = ?'),
    replacement: db.prepare<[string], string>(
      "SELECT key_id FROM audit_events WHERE action = 'key.create' AND json_extract(details, '$.rotatedFrom') = ? ORDER BY seq LIMIT 1",
    ).pluck(),
    replacements: db.prepare<[string], { old_id: string; key_id: string }>(
      `SELECT json_extract(details, '$.rotatedFrom') AS old_id, key_id FROM audit_events
       WHERE account_id = ? AND action = 'key.create' AND json_extract(details, '$.rotatedFrom') IS NOT NULL ORDER BY seq`,
    ),
  };
}

export function createSqliteAccountAuth(db: Database, helpers: SqliteHelpers): AccountAuthStore & KeyLimitStore {
  const { write, guarded, audit, newId, nowIso } = helpers;
  let statements: ReturnType<typeof prepare> | undefined;
  const sql = () => (statements ??= prepare(db));

  return {
    createAccountWithLogin: write((input: { email: string; plan: string; passwordHash: string }, actor: string): Account => {
      const email = normalizeEmail(input.email);
      if (sql().loginByEmail.get(email)) throw new EmailTakenError();
      const at = nowIso();
      const row: AccountRow = { id: newId('acct_'), email, plan: input.plan, status: 'active', created_at: at };
      sql().insertAccount.run(row);
      sql().insertLogin.run({ account_id: row.id, email, password_hash: input.passwordHash, updated_at: at });
      audit(actor, 'account.create', row.id, null, { plan: row.plan, via: 'signup' });
      return toAccount(row);
    }),
    findLoginByEmail: guarded((email: string) => {
      const login = sql().loginByEmail.get(normalizeEmail(email));
      if (!login) return null;
      const account = sql().getAccount.get(login.account_id);
      return account ? { login: toLogin(login), account: toAccount(account) } : null;
    }),
    getLogin: guarded((accountId: string) => {
      const row = sql().loginByAccount.get(accountId);
      return row ? toLogin(row) : null;
    }),
    setPassword: write((input: { accountId: string; email: string; passwordHash: string }, actor: string) => {
      const email = normalizeEmail(input.email);
      const holder = sql().loginByEmail.get(email);
      if (holder && holder.account_id !== input.accountId) throw new EmailTakenError();
      sql().upsertLogin.run({ account_id: input.accountId, email, password_hash: input.passwordHash, updated_at: nowIso() });
      audit(actor, 'account.password_set', input.accountId, null, {});
    }),
    markEmailVerified: write((accountId: string, at: string) => {
      sql().markVerified.run(at, accountId);
    }),
    findAccountsByEmail: guarded((email: string) => sql().accountsByEmail.all(normalizeEmail(email)).map(toAccount)),

    createSession: write((input: { accountId: string; personId?: string | null; tokenHash: string; userAgent: string | null; ip: string | null }) => {
      const at = nowIso();
      const row: SessionRow = {
        id: newId('ses_'),
        account_id: input.accountId,
        person_id: input.personId ?? null,
        token_hash: input.tokenHash,
        created_at: at,
        last_seen_at: at,
        user_agent: input.userAgent,
        ip: input.ip,
      };
      sql().insertSession.run(row);
      return toSession(row);
    }),
    findSessionByTokenHash: guarded((tokenHash: string) => {
      const row = sql().sessionByHash.get(tokenHash);
      if (!row) return null;
      const account = sql().getAccount.get(row.account_id);
      return account ? { session: toSession(row), account: toAccount(account) } : null;
    }),
    touchSession: guarded((id: string, at: string) => void sql().touchSession.run(at, id)),
    listSessions: guarded((accountId: string) => sql().listSessions.all(accountId).map(toSession)),
    deleteSession: write((accountId: string, id: string) => sql().deleteSession.run(accountId, id).changes > 0),
    deleteSessions: write((accountId: string, exceptId?: string) => sql().deleteSessionsExcept.run(accountId, exceptId ?? '').changes),

    createLinkToken: write(
      (input: { kind: LinkKind; email: string; accountId: string | null; tokenHash: string; expiresAt: string }, actor: string) => {
        const row = {
          id: newId('lnk_'),
          kind: input.kind,
          email: normalizeEmail(input.email),
          account_id: input.accountId,
          token_hash: input.tokenHash,
          created_at: nowIso(),
          expires_at: input.expiresAt,
          used_at: null,
        };
        sql().supersedeLinks.run(row.created_at, row.kind, row.email, row.created_at);
        sql().insertLink.run(row);
        audit(actor, `link.${input.kind}_issued`, input.accountId, null, { expiresAt: input.expiresAt });
        return toLink(row);
      },
    ),
    peekLinkToken: guarded((tokenHash: string, nowIsoValue: string) => {
      const row = sql().peekLink.get(tokenHash, nowIsoValue);
      return row ? toLink(row) : null;
    }),
    consumeLinkToken: write((tokenHash: string, nowIsoValue: string) => {
      const row = sql().consumeLink.get(nowIsoValue, tokenHash, nowIsoValue);
      return row ? toLink(row) : null;
    }),
    recordAuditEvent: write((input: { actor: string; action: string; accountId: string | null; details: Record<string, unknown> }) =>
      audit(input.actor, input.action, input.accountId, null, input.details),
    ),

    setKeyLimits: write((limits: { keyId: string; monthlyRequests: number | null; requestsPerMinute: number | null }, actor: string) => {
      const accountId = sql().keyAccount.get(limits.keyId) ?? null;
      if (limits.monthlyRequests === null && limits.requestsPerMinute === null) sql().deleteLimits.run(limits.keyId);
      else sql().upsertLimits.run({ key_id: limits.keyId, monthly_requests: limits.monthlyRequests, requests_per_minute: limits.requestsPerMinute });
      audit(actor, 'key.set_limits', accountId, limits.keyId, { monthlyRequests: limits.monthlyRequests, requestsPerMinute: limits.requestsPerMinute });
    }),
    getKeyLimits: guarded((keyId: string) => {
      const row = sql().getLimits.get(keyId);
      return row ? toLimits(row) : null;
    }),
    listKeyLimits: guarded((accountId: string) => sql().listLimits.all(accountId).map(toLimits)),
    admitKeyQuota: write((input: { keyId: string; period: string; weight: number; limit: number }) => {
      const counted = sql().admitKey.get(input);
      if (counted) return { admitted: true, used: counted.used };
      return { admitted: false, used: sql().readKey.get(input.keyId, input.period) ?? 0 };
    }),
    refundKeyQuota: write((keyId: string, period: string, weight: number) => void sql().refundKey.run(weight, keyId, period)),
    readKeyQuota: guarded((keyId: string, period: string) => sql().readKey.get(keyId, period) ?? 0),
    findReplacementKeyId: guarded((keyId: string) => sql().replacement.get(keyId) ?? null),
    listReplacements: guarded((accountId: string) => {
      const map = new Map<string, string>();
      for (const row of sql().replacements.all(accountId)) if (!map.has(row.old_id)) map.set(row.old_id, row.key_id);
      return map;
    }),
  };
}
