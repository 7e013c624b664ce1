/** Every statement the SQLite store runs, prepared once per connection (after migrations created the tables). */
import type { Database } from 'better-sqlite3';
import type { AccountRow, ApiKeyRow, AuditEventRow, ProviderKeyRow } from './sqlite-rows.js';

export type SqliteStatements = ReturnType<typeof prepareSqliteStatements>;

export function prepareSqliteStatements(db: Database) {
  return {
    insertAccount: db.prepare<[AccountRow], unknown>(
      'INSERT INTO accounts (id, email, plan, status, created_at) VALUES (@id, @email, @plan, @status, @created_at)',
    ),
    getAccount: db.prepare<[string], AccountRow>('SELECT * FROM accounts WHERE id = ?'),
    listAccounts: db.prepare<[], AccountRow>('SELECT * FROM accounts ORDER BY created_at, id'),
    setAccountPlan: db.prepare<[string, string], AccountRow>('UPDATE accounts SET plan = ? WHERE id = ? RETURNING *'),
    setAccountStatus: db.prepare<[string, string], AccountRow>('UPDATE accounts SET status = ? WHERE id = ? RETURNING *'),

    insertApiKey: db.prepare<[ApiKeyRow], unknown>(
      `INSERT INTO api_keys (id, account_id, name, prefix, last4, hash, created_at, revoked_at, expires_at, kind, disabled_at, updated_at, workspace_id, person_id)
       VALUES (@id, @account_id, @name, @prefix, @last4, @hash, @created_at, @revoked_at, @expires_at, @kind, @disabled_at, @updated_at, @workspace_id, @person_id)`,
    ),
    getApiKey: db.prepare<[string], ApiKeyRow>('SELECT * FROM api_keys WHERE id = ?'),
    findApiKeyByHash: db.prepare<[string], ApiKeyRow>('SELECT * FROM api_keys WHERE hash = ?'),
    listApiKeys: db.prepare<[string], ApiKeyRow>('SELECT * FROM api_keys WHERE account_id = ? ORDER BY created_at, id'),
    revokeApiKey: db.prepare<[string, string], ApiKeyRow>('UPDATE api_keys SET revoked_at = ? WHERE id = ? RETURNING *'),
    expireApiKey: db.prepare<[string, string], ApiKeyRow>('UPDATE api_keys SET expires_at = ? WHERE id = ? RETURNING *'),
    updateApiKey: db.prepare<{ id: string; name: string | null; disabled_at: string | null; updated_at: string }, ApiKeyRow>(
      'UPDATE api_keys SET name = @name, disabled_at = @disabled_at, updated_at = @updated_at WHERE id = @id RETURNING *',
    ),

    upsertProviderKey: db.prepare<[ProviderKeyRow], ProviderKeyRow>(
      `INSERT INTO provider_keys (account_id, provider_id, sealed, last4, created_at, updated_at)
       VALUES (@account_id, @provider_id, @sealed, @last4, @created_at, @updated_at)
       ON CONFLICT (account_id, provider_id)
       DO UPDATE SET sealed = excluded.sealed, last4 = excluded.last4, updated_at = excluded.updated_at
       RETURNING *`,
    ),
    listProviderKeys: db.prepare<[string], ProviderKeyRow>('SELECT * FROM provider_keys WHERE account_id = ? ORDER BY provider_id'),
    deleteProviderKey: db.prepare<[string, string], unknown>('DELETE FROM provider_keys WHERE account_id = ? AND provider_id = ?'),

    // The common case in one statement (atomic on its own, no BEGIN/COMMIT): an active account within the
    // limit of its current plan is counted and its plan returned. No row back means "look closer" (inactive,
    // unknown, or over the limit), which the store answers in a transaction.
    admitActiveAccount: db.prepare<{ accountId: string; period: string; weight: number; limits: string }, { used: number; plan: string }>(
      `INSERT INTO quota_usage (account_id, period, used)
       SELECT id, @period, @weight FROM accounts
       WHERE id = @accountId AND status = 'active' AND @weight <= coalesce(json_extract(@limits, '$."' || plan || '"'), 0)
       ON CONFLICT (account_id, period) DO UPDATE SET used = used + excluded.used
       WHERE quota_usage.used + quota_usage.held + excluded.used <=
         (SELECT coalesce(json_extract(@limits, '$."' || plan || '"'), 0) FROM accounts WHERE id = @accountId)
       RETURNING used + held AS used, (SELECT plan FROM accounts WHERE id = @accountId) AS plan`,
    ),
    // Counts only when the result stays within the limit; no row comes back when it would not.
    incrementQuota: db.prepare<{ accountId: string; period: string; weight: number; limit: number }, { used: number }>(
      `INSERT INTO quota_usage (account_id, period, used)
       SELECT @accountId, @period, @weight WHERE @weight <= @limit
       ON CONFLICT (account_id, period) DO UPDATE SET used = used + excluded.used
       WHERE quota_usage.used + quota_usage.held + excluded.used <= @limit
       RETURNING used + held AS used`,
    ),
    // The same check, for units held by a quota gate.
    holdQuota: db.prepare<{ accountId: string; period: string; weight: number; limit: number }, { used: number }>(
      `INSERT INTO quota_usage (account_id, period, used, held)
       SELECT @accountId, @period, 0, @weight WHERE @weight <= @limit
       ON CONFLICT (account_id, period) DO UPDATE SET held = held + excluded.held
       WHERE quota_usage.used + quota_usage.held + excluded.held <= @limit
       RETURNING used + held AS used`,
    ),
    readQuota: db.prepare<[string, string], number>('SELECT used FROM quota_usage WHERE account_id = ? AND period = ?').pluck(),
    readQuotaCommitted: db.prepare<[string, string], number>('SELECT used + held FROM quota_usage WHERE account_id = ? AND period = ?').pluck(),
    settleQuota: db.prepare<[number, number, string, string], unknown>(
      'UPDATE quota_usage SET used = MAX(used + ?, 0), held = MAX(held - ?, 0) WHERE account_id = ? AND period = ?',
    ),
    refundQuota: db.prepare<[number, string, string], unknown>(
      'UPDATE quota_usage SET used = MAX(used - ?, 0) WHERE account_id = ? AND period = ?',
    ),

    insertAuditEvent: db.prepare<[AuditEventRow], unknown>(
      `INSERT INTO audit_events (id, at, actor, action, account_id, key_id, details)
       VALUES (@id, @at, @actor, @action, @account_id, @key_id, @details)`,
    ),
    // LIMIT -1 means no limit in SQLite.
    listAuditEvents: db.prepare<[number], AuditEventRow>('SELECT * FROM audit_events ORDER BY seq DESC LIMIT ?'),
    listAccountAuditEvents: db.prepare<[string, number], AuditEventRow>(
      'SELECT * FROM audit_events WHERE account_id = ? ORDER BY seq DESC LIMIT ?',
    ),
  };
}
