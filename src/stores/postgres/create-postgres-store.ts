/**
 * The PostgreSQL store: the authority for accounts, keys and monthly counts when several router
 * instances run. Mutations run in transactions that lock the rows they check, and write their audit
 * event in the same transaction. Connection failures surface as StoreUnavailableError (fail closed).
 */
import { randomBytes } from 'node:crypto';
import { API_KEY_PREFIX } from '../../core/api-key.js';
import type { Clock } from '../../core/clock.js';
import { applyKeyPatch, assertKeyLive, createdDetails, planRotation, type RotatingKey } from '../key-lifecycle.js';
import { postgresMigrations } from '../migrations/postgres-migrations.js';
import { NotFoundInStoreError, type ApiKeyKind, type Store } from '../store.js';
import { createPool, pingPool, type PostgresPoolOptions } from './create-postgres-pool.js';
import { migratePostgres } from './migrate-postgres.js';
import { postgresAdmitQuota, readQuotaCommitted, readQuotaUsed } from './postgres-admit-quota.js';
import {
  toAccount,
  toApiKey,
  toAuditEvent,
  toProviderKey,
  type AccountRow,
  type ApiKeyRow,
  type AuditEventRow,
  type ProviderKeyRow,
} from './postgres-rows.js';
import { inTransaction, queryRows, type Queryable } from './postgres-session.js';
import { createPostgresAccountAuth } from './postgres-account-auth.js';
import { createPostgresAlerts } from './postgres-alerts.js';
import { createPostgresToolCallSignatures } from './postgres-tool-call-signatures.js';
import { createPostgresBilling } from './postgres-billing.js';
import { cachePolicyOf } from '../response-cache-store.js';
import { createPostgresPresets } from './postgres-presets.js';
import { POSTGRES_KEY_SCOPE_COPIES, createPostgresWorkspaces, requirePostgresWorkspace } from './postgres-workspaces.js';
import { createPostgresPeople } from './postgres-people.js';

export interface PostgresStoreOptions extends PostgresPoolOptions {
  clock: Clock;
}

/** A new key's row; `id` and `createdAt` are given when a rotation plan already chose them. */
type KeyMaterial = { name: string | null; hash: string; last4: string; expiresAt?: string | null; id?: string; createdAt?: string; kind?: ApiKeyKind; workspaceId?: string | null; personId?: string | null };

const newId = (prefix: string): string => prefix + randomBytes(12).toString('hex');

/** A retired key (revoked, or past the expiry a rotation gave it) can be neither rotated nor revoked again. */

export function createPostgresStore(options: PostgresStoreOptions): Store {
  const { clock } = options;
  const pool = createPool(options);
  const isoAt = (ms: number): string => new Date(ms).toISOString();

  async function audit(db: Queryable, actor: string, action: string, accountId: string | null, keyId: string | null, details: object) {
    await queryRows(
      db,
      'INSERT INTO audit_events (id, at, actor, action, account_id, key_id, details) VALUES ($1, $2, $3, $4, $5, $6, $7)',
      [newId('evt_'), isoAt(clock.now()), actor, action, accountId, keyId, JSON.stringify(details)],
    );
  }

  async function lockAccount(db: Queryable, id: string): Promise<AccountRow> {
    const [row] = await queryRows<AccountRow>(db, 'SELECT * FROM accounts WHERE id = $1 FOR UPDATE', [id]);
    if (!row) throw new NotFoundInStoreError('account', id);
    return row;
  }

  async function lockKey(db: Queryable, id: string): Promise<ApiKeyRow> {
    const [row] = await queryRows<ApiKeyRow>(db, 'SELECT * FROM api_keys WHERE id = $1 FOR UPDATE', [id]);
    if (!row) throw new NotFoundInStoreError('api_key', id);
    return row;
  }

  async function updateAccount(db: Queryable, id: string, column: 'plan' | 'status', value: string): Promise<AccountRow> {
    const [row] = await queryRows<AccountRow>(db, `UPDATE accounts SET ${column} = $1 WHERE id = $2 RETURNING *`, [value, id]);
    if (!row) throw new NotFoundInStoreError('account', id);
    return row;
  }

  async function updateKey(db: Queryable, id: string, column: 'revoked_at' | 'expires_at', at: string): Promise<ApiKeyRow> {
    const [row] = await queryRows<ApiKeyRow>(db, `UPDATE api_keys SET ${column} = $1 WHERE id = $2 RETURNING *`, [at, id]);
    if (!row) throw new NotFoundInStoreError('api_key', id);
    return row;
  }

  async function insertKey(db: Queryable, accountId: string, input: KeyMaterial): Promise<ApiKeyRow> {
    const [row] = await queryRows<ApiKeyRow>(
      db,
      `INSERT INTO api_keys (id, account_id, name, prefix, last4, hash, created_at, expires_at, kind, workspace_id, person_id)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) RETURNING *`,
      [input.id ?? newId('key_'), accountId, input.name, API_KEY_PREFIX, input.last4, input.hash, input.createdAt ?? isoAt(clock.now()), input.expiresAt ?? null, input.kind ?? 'inference', input.workspaceId ?? null, input.personId ?? null],
    );
    if (!row) throw new Error('api key insert returned no row');
    return row;
  }

  /** Executes the shared rotation plan (key-lifecycle.ts) in the caller's transaction, the old key locked. */
  async function rotate(db: Queryable, oldKeyId: string, replacement: KeyMaterial, graceSeconds: number, actor: string) {
    const old = await lockKey(db, oldKeyId);
    const plan = planRotation({ old: rotatingKey(old), replacement, graceSeconds, nowMs: clock.now(), newKeyId: newId('key_') });
    const { retireOld } = plan;
    const retired = 'revokedAt' in retireOld ? await updateKey(db, old.id, 'revoked_at', retireOld.revokedAt) : await updateKey(db, old.id, 'expires_at', retireOld.expiresAt);
    const created = await insertKey(db, plan.newKey.accountId, { ...plan.newKey, kind: old.kind, workspaceId: old.workspace_id });
    await queryRows(
      db,
      'INSERT INTO api_key_limits (key_id, monthly_requests, requests_per_minute) SELECT $1, monthly_requests, requests_per_minute FROM api_key_limits WHERE key_id = $2',
      [created.id, plan.copyFromKeyId],
    );
    await queryRows(db, 'INSERT INTO key_quota_usage (key_id, period, used) SELECT $1, period, used FROM key_quota_usage WHERE key_id = $2', [created.id, plan.copyFromKeyId]);
    for (const statement of POSTGRES_KEY_SCOPE_COPIES) await queryRows(db, statement, [created.id, plan.copyFromKeyId]);
    for (const event of plan.audit) await audit(db, actor, event.action, event.accountId, event.keyId, event.details);
    return { revoked: toApiKey(retired), created: toApiKey(created) };
  }

  const helpers = { audit, newId, nowIso: () => isoAt(clock.now()) };
  return {
    ...createPostgresAccountAuth(pool, helpers),
    ...createPostgresBilling(pool, helpers),
    ...createPostgresPeople(pool, helpers),
    ...createPostgresAlerts(pool, helpers),
    ...createPostgresToolCallSignatures(pool),
    ...createPostgresWorkspaces(pool, helpers),
    ...createPostgresPresets(pool, helpers),
    kind: 'postgres',

    migrate: () => migratePostgres(pool, postgresMigrations, options.schema, isoAt(clock.now())),
    ping: () => pingPool(pool, 'SELECT 1'),
    close: () => pool.end(),

    createAccount: (input, actor) =>
      inTransaction(pool, async (db) => {
        const [row] = await queryRows<AccountRow>(
          db,
          `INSERT INTO accounts (id, email, plan, status, created_at) VALUES ($1, $2, $3, 'active', $4) RETURNING *`,
          [newId('acct_'), input.email, input.plan, isoAt(clock.now())],
        );
        if (!row) throw new Error('account insert returned no row');
        await audit(db, actor, 'account.create', row.id, null, { plan: row.plan });
        return toAccount(row);
      }),
    getAccount: async (id) => {
      const [row] = await queryRows<AccountRow>(pool, 'SELECT * FROM accounts WHERE id = $1', [id]);
      return row ? toAccount(row) : null;
    },
    listAccounts: async () => (await queryRows<AccountRow>(pool, 'SELECT * FROM accounts ORDER BY created_at, id')).map(toAccount),
    setAccountPlan: (id, plan, actor) =>
      inTransaction(pool, async (db) => {
        const before = await lockAccount(db, id);
        const after = await updateAccount(db, id, 'plan', plan);
        await audit(db, actor, 'account.set_plan', id, null, { from: before.plan, to: plan });
        return toAccount(after);
      }),
    getResponseCachePolicy: async (id) => {
      const [row] = await queryRows<{ response_cache: string | null }>(pool, 'SELECT response_cache FROM accounts WHERE id = $1', [id]);
      return cachePolicyOf(row?.response_cache);
    },
    setResponseCachePolicy: (id, policy, actor) =>
      inTransaction(pool, async (db) => {
        const before = (await lockAccount(db, id)) as AccountRow & { response_cache?: string | null };
        await queryRows(db, 'UPDATE accounts SET response_cache = $1 WHERE id = $2', [policy, id]);
        await audit(db, actor, 'account.set_response_cache', id, null, { from: cachePolicyOf(before.response_cache), to: policy });
      }),
    deactivateAccount: (id, actor) =>
      inTransaction(pool, async (db) => {
        const before = await lockAccount(db, id);
        const after = await updateAccount(db, id, 'status', 'inactive');
        // A deactivated account keeps no signed-in browser.
        await queryRows(db, 'DELETE FROM account_sessions WHERE account_id = $1', [id]);
        await audit(db, actor, 'account.deactivate', id, null, { previousStatus: before.status });
        return toAccount(after);
      }),

    createApiKey: (input, actor) =>
      inTransaction(pool, async (db) => {
        await lockAccount(db, input.accountId);
        if (input.workspaceId) await requirePostgresWorkspace(db, input.accountId, input.workspaceId);
        const key = await insertKey(db, input.accountId, input);
        await audit(db, actor, 'key.create', key.account_id, key.id, createdDetails(key.name, key.expires_at, key.kind, key.workspace_id));
        return toApiKey(key);
      }),
    updateApiKey: (id, patch, actor) =>
      inTransaction(pool, async (db) => {
        const key = await lockKey(db, id);
        const now = isoAt(clock.now());
        const change = applyKeyPatch({ name: key.name, disabledAt: key.disabled_at?.toISOString() ?? null }, patch, now);
        const [updated] = await queryRows<ApiKeyRow>(db, 'UPDATE api_keys SET name = $1, disabled_at = $2, updated_at = $3 WHERE id = $4 RETURNING *', [change.name, change.disabledAt, now, id]);
        await audit(db, actor, 'key.update', key.account_id, id, change.details);
        return toApiKey(updated ?? key);
      }),
    findApiKeyByHash: async (hash) => {
      const [key] = await queryRows<ApiKeyRow>(pool, 'SELECT * FROM api_keys WHERE hash = $1', [hash]);
      if (!key) return null;
      const [account] = await queryRows<AccountRow>(pool, 'SELECT * FROM accounts WHERE id = $1', [key.account_id]);
      if (!account) throw new NotFoundInStoreError('account', key.account_id);
      return { key: toApiKey(key), account: toAccount(account) };
    },
    getApiKey: async (id) => {
      const [row] = await queryRows<ApiKeyRow>(pool, 'SELECT * FROM api_keys WHERE id = $1', [id]);
      return row ? toApiKey(row) : null;
    },
    listApiKeys: async (accountId) =>
      (await queryRows<ApiKeyRow>(pool, 'SELECT * FROM api_keys WHERE account_id = $1 ORDER BY created_at, id', [accountId])).map(toApiKey),
    rotateApiKey: (oldKeyId, replacement, graceSeconds, actor) => inTransaction(pool, (db) => rotate(db, oldKeyId, replacement, graceSeconds, actor)),
    revokeApiKey: (id, actor) =>
      inTransaction(pool, async (db) => {
        const key = await lockKey(db, id);
        const nowMs = clock.now();
        assertKeyLive(lifecycleOf(key), nowMs);
        const revoked = await updateKey(db, id, 'revoked_at', isoAt(nowMs));
        await audit(db, actor, 'key.revoke', key.account_id, id, {});
        return toApiKey(revoked);
      }),

    setProviderKey: (input, actor) =>
      inTransaction(pool, async (db) => {
        await lockAccount(db, input.accountId);
        const at = isoAt(clock.now());
        const [row] = await queryRows<ProviderKeyRow>(
          db,
          `INSERT INTO provider_keys (account_id, provider_id, sealed, last4, created_at, updated_at)
           VALUES ($1, $2, $3, $4, $5, $5)
           ON CONFLICT (account_id, provider_id)
           DO UPDATE SET sealed = EXCLUDED.sealed, last4 = EXCLUDED.last4, updated_at = EXCLUDED.updated_at
           RETURNING *`,
          [input.accountId, input.providerId, input.sealed, input.last4, at],
        );
        if (!row) throw new Error('provider key upsert returned no row');
        await audit(db, actor, 'provider_key.set', input.accountId, null, { providerId: input.providerId });
        return toProviderKey(row);
      }),
    listProviderKeys: async (accountId) => {
      const rows = await queryRows<ProviderKeyRow>(pool, 'SELECT * FROM provider_keys WHERE account_id = $1 ORDER BY provider_id', [accountId]);
      return rows.map(toProviderKey);
    },
    removeProviderKey: (accountId, providerId, actor) =>
      inTransaction(pool, async (db) => {
        const deleteSql = 'DELETE FROM provider_keys WHERE account_id = $1 AND provider_id = $2 RETURNING provider_id';
        const removed = await queryRows(db, deleteSql, [accountId, providerId]);
        if (removed.length > 0) await audit(db, actor, 'provider_key.remove', accountId, null, { providerId });
        return removed.length > 0;
      }),

    admitQuota: (input) => postgresAdmitQuota(pool, input),
    refundQuota: async (accountId, period, weight) => {
      const refundSql = 'UPDATE quota_usage SET used = GREATEST(used - $3, 0) WHERE account_id = $1 AND period = $2';
      await queryRows(pool, refundSql, [accountId, period, weight]);
    },
    readQuota: (accountId, period) => readQuotaUsed(pool, accountId, period),
    holdQuota: (input) => postgresAdmitQuota(pool, input, true),
    settleQuota: async (accountId, period, delta) => {
      const settleSql = 'UPDATE quota_usage SET used = GREATEST(used + $3, 0), held = GREATEST(held - $3, 0) WHERE account_id = $1 AND period = $2';
      await queryRows(pool, settleSql, [accountId, period, delta]);
    },
    readQuotaCommitted: (accountId, period) => readQuotaCommitted(pool, accountId, period),

    listAuditEvents: async (filter = {}) => {
      const rows = await queryRows<AuditEventRow>(
        pool,
        'SELECT * FROM audit_events WHERE ($1::text IS NULL OR account_id = $1) ORDER BY seq DESC LIMIT $2',
        [filter.accountId ?? null, filter.limit ?? null],
      );
      return rows.map(toAuditEvent);
    },
  };
}

/** The row as the shared key-lifecycle rules see it. */
function lifecycleOf(key: ApiKeyRow) {
  return { id: key.id, revoked: key.revoked_at !== null, expiresAtMs: key.expires_at === null ? null : key.expires_at.getTime() };
}

function rotatingKey(key: ApiKeyRow): RotatingKey {
  return { ...lifecycleOf(key), accountId: key.account_id, expiresAt: key.expires_at?.toISOString() ?? null, personId: key.person_id ?? null };
}
