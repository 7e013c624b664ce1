/**
 * The SQLite store: one file, WAL, for a single host (several processes may share the file). Methods are
 * async to fit the Store interface but run synchronous better-sqlite3 calls; every write is one
 * IMMEDIATE transaction, which takes the file's write lock up front, so read-check-write steps such as
 * quota admission are atomic across processes too.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import Database from 'better-sqlite3';
import { API_KEY_PREFIX } from '../../core/api-key.js';
import type { Clock } from '../../core/clock.js';
import { applyKeyPatch, assertKeyLive, createdDetails, planRotation, type RotatingKey } from '../key-lifecycle.js';
import { sqliteMigrations } from '../migrations/sqlite-migrations.js';
import { NotFoundInStoreError, StoreUnavailableError, type ApiKeyKind, type ApiKeyPatch, type QuotaAdmission, type QuotaAdmitInput, type Store } from '../store.js';
import { migrateSqlite } from './migrate-sqlite.js';
import { prepareSqliteStatements, type SqliteStatements } from './prepare-sqlite-statements.js';
import type { SqliteStore } from './sqlite-data-version.js';
import { createSqliteAccountAuth } from './sqlite-account-auth.js';
import { createSqliteAlerts } from './sqlite-alerts.js';
import { createSqliteBilling } from './sqlite-billing.js';
import { createSqlitePeople } from './sqlite-people.js';
import { createSqlitePresets } from './sqlite-presets.js';
import { createSqliteToolCallSignatures } from './sqlite-tool-call-signatures.js';
import { createSqliteWorkspaces, requireSqliteWorkspace } from './sqlite-workspaces.js';
import { toAccount, toApiKey, toAuditEvent, toProviderKey, type AccountRow, type ApiKeyRow } from './sqlite-rows.js';
import { cachePolicyOf, type AccountCachePolicy } from '../response-cache-store.js';

export interface SqliteStoreOptions {
  /** File path, or `:memory:` for a private in-memory database. */
  path: string;
  clock: Clock;
  /** How long a write waits for another process's lock before failing (default 5 s). */
  busyTimeoutMs?: number;
}

// Error codes that mean the database cannot be used right now, as opposed to a bad statement or constraint.
const UNAVAILABLE_CODES = /^SQLITE_(BUSY|LOCKED|CANTOPEN|IOERR|FULL|NOTADB|CORRUPT|READONLY)/;

/** Turns "the database cannot be used now" into StoreUnavailableError (the ledger's store uses it too). */
export function guard<R>(run: () => R): R {
  try {
    return run();
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (typeof code === 'string' && UNAVAILABLE_CODES.test(code)) {
      throw new StoreUnavailableError(`SQLite store unavailable (${code})`, { cause: error });
    }
    throw error;
  }
}

export function openDatabase(path: string, busyTimeoutMs: number): Database.Database {
  if (path !== ':memory:') mkdirSync(dirname(resolve(path)), { recursive: true });
  const db = guard(() => new Database(path));
  db.pragma('journal_mode = WAL');
  // With WAL, NORMAL syncs at checkpoints instead of every commit: a process crash or restart loses no
  // committed count (only an OS crash or power loss could), and each admission skips an fsync.
  db.pragma('synchronous = NORMAL');
  db.pragma(`busy_timeout = ${busyTimeoutMs}`);
  db.pragma('foreign_keys = ON');
  return db;
}

/** A new key's row; `id` and `createdAt` are given when a rotation plan already chose them. */
type KeyMaterial = { name: string | null; hash: string; last4: string; expiresAt?: string | null; id?: string; createdAt?: string; kind?: ApiKeyKind; workspaceId?: string | null; personId?: string | null };

const newId = (prefix: string): string => prefix + randomBytes(12).toString('hex');

/** A retired key (revoked, or past the expiry a rotation gave it) can be neither rotated nor revoked again. */

export function createSqliteStore(options: SqliteStoreOptions): SqliteStore {
  const { clock } = options;
  const db = openDatabase(options.path, options.busyTimeoutMs ?? 5000);
  const ping = db.prepare('SELECT 1');
  const dataVersion = db.prepare<[], number>('PRAGMA data_version').pluck();
  let statements: SqliteStatements | undefined;
  // Prepared on first use: the tables exist only once migrate() ran (here or in another process).
  const sql = (): SqliteStatements => (statements ??= prepareSqliteStatements(db));
  const isoAt = (ms: number): string => new Date(ms).toISOString();

  function write<A extends unknown[], R>(work: (...args: A) => R): (...args: A) => Promise<R> {
    const transaction = db.transaction(work);
    return async (...args) => guard(() => transaction.immediate(...args));
  }

  function guarded<A extends unknown[], R>(work: (...args: A) => R): (...args: A) => Promise<R> {
    return async (...args) => guard(() => work(...args));
  }

  function audit(actor: string, action: string, accountId: string | null, keyId: string | null, details: Record<string, unknown>): void {
    const at = isoAt(clock.now());
    sql().insertAuditEvent.run({ id: newId('evt_'), at, actor, action, account_id: accountId, key_id: keyId, details: JSON.stringify(details) });
  }

  function requireAccount(id: string): AccountRow {
    const row = sql().getAccount.get(id);
    if (!row) throw new NotFoundInStoreError('account', id);
    return row;
  }

  function requireKey(id: string): ApiKeyRow {
    const row = sql().getApiKey.get(id);
    if (!row) throw new NotFoundInStoreError('api_key', id);
    return row;
  }

  function insertKey(accountId: string, input: KeyMaterial): ApiKeyRow {
    const row: ApiKeyRow = {
      id: input.id ?? newId('key_'),
      account_id: accountId,
      name: input.name,
      prefix: API_KEY_PREFIX,
      last4: input.last4,
      hash: input.hash,
      created_at: input.createdAt ?? isoAt(clock.now()),
      revoked_at: null,
      expires_at: input.expiresAt ?? null,
      kind: input.kind ?? 'inference',
      disabled_at: null,
      updated_at: null,
      workspace_id: input.workspaceId ?? null,
      person_id: input.personId ?? null,
    };
    sql().insertApiKey.run(row);
    return row;
  }

  function readUsed(accountId: string, period: string): number {
    return sql().readQuota.get(accountId, period) ?? 0;
  }

  function readCommitted(accountId: string, period: string): number {
    return sql().readQuotaCommitted.get(accountId, period) ?? 0;
  }

  const admitCarefully = write((input: QuotaAdmitInput) => admit(input, 'incrementQuota'));
  const holdCarefully = write((input: QuotaAdmitInput) => admit(input, 'holdQuota'));
  const limitsJsonCache = new WeakMap<object, string>();
  /** The plan limits as the JSON the admission statement reads; the limits object is stable for a router's life. */
  const limitsJson = (limits: Readonly<Record<string, number>>): string => {
    let json = limitsJsonCache.get(limits);
    if (json === undefined) limitsJsonCache.set(limits, (json = JSON.stringify(limits)));
    return json;
  };

  function admit(input: QuotaAdmitInput, statement: 'incrementQuota' | 'holdQuota'): QuotaAdmission {
    const account = requireAccount(input.accountId);
    const limit = Object.hasOwn(input.limitsByPlan, account.plan) ? (input.limitsByPlan[account.plan] ?? 0) : 0;
    const base = { plan: account.plan, status: account.status, limit };
    if (account.status !== 'active') return { ...base, admitted: false, used: readCommitted(input.accountId, input.period) };
    const counted = sql()[statement].get({ accountId: input.accountId, period: input.period, weight: input.weight, limit });
    if (counted) return { ...base, admitted: true, used: counted.used };
    return { ...base, admitted: false, used: readCommitted(input.accountId, input.period) };
  }

  /** Executes the shared rotation plan (key-lifecycle.ts) in the caller's transaction. */
  function rotate(oldKeyId: string, replacement: KeyMaterial, graceSeconds: number, actor: string) {
    const old = requireKey(oldKeyId);
    const plan = planRotation({ old: rotatingKey(old), replacement, graceSeconds, nowMs: clock.now(), newKeyId: newId('key_') });
    const { retireOld } = plan;
    const retired = 'revokedAt' in retireOld ? sql().revokeApiKey.get(retireOld.revokedAt, old.id) : sql().expireApiKey.get(retireOld.expiresAt, old.id);
    const created = insertKey(plan.newKey.accountId, { ...plan.newKey, kind: old.kind, workspaceId: old.workspace_id });
    // Prepared here, not with the other statements: rotation is rare, and the tables exist only after migration.
    db.prepare('INSERT INTO api_key_limits (key_id, monthly_requests, requests_per_minute) SELECT ?, monthly_requests, requests_per_minute FROM api_key_limits WHERE key_id = ?').run(created.id, plan.copyFromKeyId);
    db.prepare('INSERT INTO key_quota_usage (key_id, period, used) SELECT ?, period, used FROM key_quota_usage WHERE key_id = ?').run(created.id, plan.copyFromKeyId);
    for (const statement of KEY_SCOPE_COPIES) db.prepare(statement).run({ to: created.id, from: plan.copyFromKeyId });
    for (const event of plan.audit) audit(actor, event.action, event.accountId, event.keyId, event.details);
    return { revoked: toApiKey(retired ?? old), created: toApiKey(created) };
  }

  const helpers = { write, guarded, audit, newId, nowIso: () => isoAt(clock.now()) };
  return {
    ...createSqliteAccountAuth(db, helpers),
    ...createSqliteBilling(db, helpers),
    ...createSqlitePeople(db, helpers),
    ...createSqliteAlerts(db, helpers),
    ...createSqliteToolCallSignatures(db, helpers),
    ...createSqliteWorkspaces(db, helpers),
    ...createSqlitePresets(db, helpers),
    kind: 'sqlite',

    migrate: guarded(() => migrateSqlite(db, sqliteMigrations, isoAt(clock.now()))),
    ping: guarded(() => void ping.get()),
    dataVersion: { current: () => guard(() => dataVersion.get() ?? 0) },
    close: async () => void db.close(),

    createAccount: write((input: { email: string; plan: string }, actor: string) => {
      const row: AccountRow = { id: newId('acct_'), email: input.email, plan: input.plan, status: 'active', created_at: isoAt(clock.now()) };
      sql().insertAccount.run(row);
      audit(actor, 'account.create', row.id, null, { plan: row.plan });
      return toAccount(row);
    }),
    getAccount: guarded((id: string) => {
      const row = sql().getAccount.get(id);
      return row ? toAccount(row) : null;
    }),
    listAccounts: guarded(() => sql().listAccounts.all().map(toAccount)),
    setAccountPlan: write((id: string, plan: string, actor: string) => {
      const before = requireAccount(id);
      const after = sql().setAccountPlan.get(plan, id) ?? before;
      audit(actor, 'account.set_plan', id, null, { from: before.plan, to: plan });
      return toAccount(after);
    }),
    getResponseCachePolicy: guarded((id: string) => cachePolicyOf(db.prepare<[string], { response_cache: string | null }>('SELECT response_cache FROM accounts WHERE id = ?').get(id)?.response_cache)),
    setResponseCachePolicy: write((id: string, policy: AccountCachePolicy, actor: string) => {
      const before = requireAccount(id) as AccountRow & { response_cache?: string | null };
      db.prepare('UPDATE accounts SET response_cache = ? WHERE id = ?').run(policy, id);
      audit(actor, 'account.set_response_cache', id, null, { from: cachePolicyOf(before.response_cache), to: policy });
    }),
    deactivateAccount: write((id: string, actor: string) => {
      const before = requireAccount(id);
      const after = sql().setAccountStatus.get('inactive', id) ?? before;
      // A deactivated account keeps no signed-in browser.
      db.prepare('DELETE FROM account_sessions WHERE account_id = ?').run(id);
      audit(actor, 'account.deactivate', id, null, { previousStatus: before.status });
      return toAccount(after);
    }),

    createApiKey: write((input: { accountId: string; name: string | null; hash: string; last4: string; expiresAt?: string | null; kind?: ApiKeyKind; workspaceId?: string | null; personId?: string | null }, actor: string) => {
      requireAccount(input.accountId);
      if (input.workspaceId) requireSqliteWorkspace(db, input.accountId, input.workspaceId);
      const key = insertKey(input.accountId, input);
      audit(actor, 'key.create', key.account_id, key.id, createdDetails(key.name, key.expires_at, key.kind, key.workspace_id));
      return toApiKey(key);
    }),
    updateApiKey: write((id: string, patch: ApiKeyPatch, actor: string) => {
      const key = requireKey(id);
      const now = isoAt(clock.now());
      const change = applyKeyPatch({ name: key.name, disabledAt: key.disabled_at }, patch, now);
      const updated = sql().updateApiKey.get({ id, name: change.name, disabled_at: change.disabledAt, updated_at: now }) ?? key;
      audit(actor, 'key.update', key.account_id, id, change.details);
      return toApiKey(updated);
    }),
    findApiKeyByHash: guarded((hash: string) => {
      const key = sql().findApiKeyByHash.get(hash);
      if (!key) return null;
      return { key: toApiKey(key), account: toAccount(requireAccount(key.account_id)) };
    }),
    getApiKey: guarded((id: string) => {
      const row = sql().getApiKey.get(id);
      return row ? toApiKey(row) : null;
    }),
    listApiKeys: guarded((accountId: string) => sql().listApiKeys.all(accountId).map(toApiKey)),
    rotateApiKey: write(rotate),
    revokeApiKey: write((id: string, actor: string) => {
      const key = requireKey(id);
      const nowMs = clock.now();
      assertKeyLive(lifecycleOf(key), nowMs);
      const revoked = sql().revokeApiKey.get(isoAt(nowMs), id) ?? key;
      audit(actor, 'key.revoke', key.account_id, id, {});
      return toApiKey(revoked);
    }),

    setProviderKey: write((input: { accountId: string; providerId: string; sealed: string; last4: string }, actor: string) => {
      requireAccount(input.accountId);
      const at = isoAt(clock.now());
      const row = { account_id: input.accountId, provider_id: input.providerId, sealed: input.sealed, last4: input.last4 };
      const stored = sql().upsertProviderKey.get({ ...row, created_at: at, updated_at: at });
      if (!stored) throw new Error('provider key upsert returned no row');
      audit(actor, 'provider_key.set', input.accountId, null, { providerId: input.providerId });
      return toProviderKey(stored);
    }),
    listProviderKeys: guarded((accountId: string) => sql().listProviderKeys.all(accountId).map(toProviderKey)),
    removeProviderKey: write((accountId: string, providerId: string, actor: string) => {
      const removed = sql().deleteProviderKey.run(accountId, providerId).changes > 0;
      if (removed) audit(actor, 'provider_key.remove', accountId, null, { providerId });
      return removed;
    }),

    admitQuota: async (input: QuotaAdmitInput) => {
      const counted = await guard(() =>
        sql().admitActiveAccount.get({ accountId: input.accountId, period: input.period, weight: input.weight, limits: limitsJson(input.limitsByPlan) }),
      );
      if (counted) return { plan: counted.plan, status: 'active', admitted: true, used: counted.used, limit: input.limitsByPlan[counted.plan] ?? 0 };
      return admitCarefully(input);
    },
    refundQuota: write((accountId: string, period: string, weight: number) => void sql().refundQuota.run(weight, accountId, period)),
    readQuota: guarded(readUsed),
    holdQuota: async (input: QuotaAdmitInput) => holdCarefully(input),
    settleQuota: write((accountId: string, period: string, delta: number) => void sql().settleQuota.run(delta, delta, accountId, period)),
    readQuotaCommitted: guarded(readCommitted),

    listAuditEvents: guarded((filter: { accountId?: string; limit?: number } = {}) => {
      const limit = filter.limit ?? -1;
      const rows = filter.accountId === undefined ? sql().listAuditEvents.all(limit) : sql().listAccountAuditEvents.all(filter.accountId, limit);
      return rows.map(toAuditEvent);
    }),
  };
}

/** A replacement key keeps its predecessor's budget (and what it spent against it) and guardrail. */
const KEY_SCOPE_COPIES = [
  `INSERT INTO budgets (account_id, scope, scope_id, limit_nano_usd, period, include_byok, created_at, updated_at)
   SELECT account_id, scope, @to, limit_nano_usd, period, include_byok, created_at, updated_at FROM budgets WHERE scope = 'key' AND scope_id = @from`,
  `INSERT INTO budget_meter (account_id, scope, scope_id, period_key, spent_nano_usd, managed_nano_usd)
   SELECT account_id, scope, @to, period_key, spent_nano_usd, managed_nano_usd FROM budget_meter WHERE scope = 'key' AND scope_id = @from`,
  `INSERT INTO guardrails (account_id, scope, scope_id, allowed_models, denied_models, allowed_providers, denied_providers, require_zdr, created_at, updated_at)
   SELECT account_id, scope, @to, allowed_models, denied_models, allowed_providers, denied_providers, require_zdr, created_at, updated_at FROM guardrails WHERE scope = 'key' AND scope_id = @from`,
];

/** The row as the shared key-lifecycle rules see it. */
function lifecycleOf(key: ApiKeyRow) {
  return { id: key.id, revoked: key.revoked_at !== null, expiresAtMs: key.expires_at === null ? null : Date.parse(key.expires_at) };
}

function rotatingKey(key: ApiKeyRow): RotatingKey {
  return { ...lifecycleOf(key), accountId: key.account_id, expiresAt: key.expires_at, personId: key.person_id ?? null };
}
