/** The SQLite side of WorkspaceStore, BudgetStore and GuardrailStore, on the store's connection. */
import type { Database } from 'better-sqlite3';
import { budgetPeriodKey } from '../budget-periods.js';
import type { BudgetPeriod, BudgetRecord, BudgetScope, BudgetStore } from '../budget-store.js';
import type { GuardrailRecord, GuardrailScope, GuardrailStore } from '../guardrail-store.js';
import { guardrailAuditDetails, guardrailValues, toBudget, toGuardrail, toWorkspace, type BudgetRow, type GuardrailRow, type WorkspaceRow } from '../guardrail-rows.js';
import { NotFoundInStoreError } from '../store.js';
import { WorkspaceConflictError, workspaceSlug, type WorkspaceRecord, type WorkspaceStore } from '../workspace-store.js';
import type { SqliteHelpers } from './sqlite-account-auth.js';

function prepare(db: Database) {
  return {
    listWorkspaces: db.prepare<[string], WorkspaceRow>('SELECT * FROM workspaces WHERE account_id = ? ORDER BY is_default DESC, name, id'),
    getWorkspace: db.prepare<[string, string], WorkspaceRow>('SELECT * FROM workspaces WHERE account_id = ? AND id = ?'),
    getDefault: db.prepare<[string], WorkspaceRow>('SELECT * FROM workspaces WHERE account_id = ? AND is_default = 1'),
    slugTaken: db.prepare<[string, string, string], number>('SELECT 1 FROM workspaces WHERE account_id = ? AND slug = ? AND id <> ?').pluck(),
    insertWorkspace: db.prepare<[WorkspaceRow], unknown>(
      'INSERT INTO workspaces (id, account_id, name, slug, is_default, created_at) VALUES (@id, @account_id, @name, @slug, @is_default, @created_at)',
    ),
    renameWorkspace: db.prepare<[string, string, string, string], WorkspaceRow>('UPDATE workspaces SET name = ?, slug = ? WHERE account_id = ? AND id = ? RETURNING *'),
    clearDefault: db.prepare<[string], unknown>('UPDATE workspaces SET is_default = 0 WHERE account_id = ? AND is_default = 1'),
    makeDefault: db.prepare<[string, string], WorkspaceRow>('UPDATE workspaces SET is_default = 1 WHERE account_id = ? AND id = ? RETURNING *'),
    moveKey: db.prepare<[string, string, string], unknown>('UPDATE api_keys SET workspace_id = ? WHERE account_id = ? AND id = ?'),

    upsertBudget: db.prepare<[Record<string, unknown>], BudgetRow>(
      `INSERT INTO budgets (account_id, scope, scope_id, limit_nano_usd, period, include_byok, created_at, updated_at)
       VALUES (@account_id, @scope, @scope_id, @limit_nano_usd, @period, @include_byok, @at, @at)
       ON CONFLICT (account_id, scope, scope_id) DO UPDATE SET limit_nano_usd = excluded.limit_nano_usd, period = excluded.period,
       include_byok = excluded.include_byok, updated_at = excluded.updated_at RETURNING *`,
    ),
    deleteBudget: db.prepare<[string, string, string], unknown>('DELETE FROM budgets WHERE account_id = ? AND scope = ? AND scope_id = ?'),
    listBudgets: db.prepare<[string], BudgetRow>('SELECT * FROM budgets WHERE account_id = ? ORDER BY scope, scope_id'),
    budgetIncludesByok: db.prepare<[string, string, string], number>('SELECT include_byok FROM budgets WHERE account_id = ? AND scope = ? AND scope_id = ?').pluck(),
    meter: db.prepare<[string, string, string, string], { spent_nano_usd: number; managed_nano_usd: number }>(
      'SELECT spent_nano_usd, managed_nano_usd FROM budget_meter WHERE account_id = ? AND scope = ? AND scope_id = ? AND period_key = ?',
    ),
    /** `meter` and `held` for a JSON list of [scope, scope_id, period_key], a row per item in its order. */
    spentMany: db
      .prepare<[{ account: string; items: string; at: string }], number>(
        `SELECT COALESCE((SELECT CASE WHEN COALESCE(b.include_byok, 1) <> 0 THEN m.spent_nano_usd ELSE m.managed_nano_usd END
                          FROM budget_meter m LEFT JOIN budgets b ON b.account_id = m.account_id AND b.scope = m.scope AND b.scope_id = m.scope_id
                          WHERE m.account_id = @account AND m.scope = q.scope AND m.scope_id = q.scope_id AND m.period_key = q.period_key), 0)
              + (SELECT COALESCE(SUM(r.nano_usd), 0) FROM budget_reservations r
                 WHERE r.account_id = @account AND r.scope = q.scope AND r.scope_id = q.scope_id AND r.period_key = q.period_key AND r.expires_at > @at)
         FROM (SELECT key AS ord, json_extract(value, '$[0]') AS scope, json_extract(value, '$[1]') AS scope_id, json_extract(value, '$[2]') AS period_key
               FROM json_each(@items)) q
         ORDER BY q.ord`,
      )
      .pluck(),
    held: db
      .prepare<[string, string, string, string, string], number>(
        'SELECT COALESCE(SUM(nano_usd), 0) FROM budget_reservations WHERE account_id = ? AND scope = ? AND scope_id = ? AND period_key = ? AND expires_at > ?',
      )
      .pluck(),

    upsertGuardrail: db.prepare<[Record<string, unknown>], GuardrailRow>(
      `INSERT INTO guardrails (account_id, scope, scope_id, allowed_models, denied_models, allowed_providers, denied_providers, require_zdr, created_at, updated_at)
       VALUES (@account_id, @scope, @scope_id, @allowed_models, @denied_models, @allowed_providers, @denied_providers, @require_zdr, @at, @at)
       ON CONFLICT (account_id, scope, scope_id) DO UPDATE SET allowed_models = excluded.allowed_models, denied_models = excluded.denied_models,
       allowed_providers = excluded.allowed_providers, denied_providers = excluded.denied_providers, require_zdr = excluded.require_zdr,
       updated_at = excluded.updated_at RETURNING *`,
    ),
    deleteGuardrail: db.prepare<[string, string, string], unknown>('DELETE FROM guardrails WHERE account_id = ? AND scope = ? AND scope_id = ?'),
    listGuardrails: db.prepare<[string], GuardrailRow>('SELECT * FROM guardrails WHERE account_id = ? ORDER BY scope, scope_id'),
  };
}

/** Throws unless the workspace is one of the account's (a key may only join its own organization's). */
export function requireSqliteWorkspace(db: Database, accountId: string, id: string): void {
  if (db.prepare('SELECT 1 FROM workspaces WHERE account_id = ? AND id = ?').get(accountId, id) === undefined) throw new NotFoundInStoreError('workspace', id);
}

export function createSqliteWorkspaces(db: Database, helpers: SqliteHelpers): WorkspaceStore & BudgetStore & GuardrailStore {
  const { write, guarded, audit, newId, nowIso } = helpers;
  let statements: ReturnType<typeof prepare> | undefined;
  const sql = () => (statements ??= prepare(db));

  const requireWorkspace = (accountId: string, id: string): WorkspaceRow => {
    const row = sql().getWorkspace.get(accountId, id);
    if (!row) throw new NotFoundInStoreError('workspace', id);
    return row;
  };
  const freeSlug = (accountId: string, name: string, id: string): string => {
    const slug = workspaceSlug(name);
    if (sql().slugTaken.get(accountId, slug, id) !== undefined) throw new WorkspaceConflictError(slug);
    return slug;
  };

  return {
    listWorkspaces: guarded((accountId: string) => sql().listWorkspaces.all(accountId).map(toWorkspace)),
    getWorkspace: guarded((accountId: string, id: string) => {
      const row = sql().getWorkspace.get(accountId, id);
      return row ? toWorkspace(row) : null;
    }),
    getDefaultWorkspace: guarded((accountId: string): WorkspaceRecord => {
      const row = sql().getDefault.get(accountId);
      if (!row) throw new NotFoundInStoreError('account', accountId);
      return toWorkspace(row);
    }),
    createWorkspace: write((input: { accountId: string; name: string }, actor: string) => {
      if (!sql().getDefault.get(input.accountId)) throw new NotFoundInStoreError('account', input.accountId);
      const row: WorkspaceRow = { id: newId('ws_'), account_id: input.accountId, name: input.name, slug: freeSlug(input.accountId, input.name, ''), is_default: 0, created_at: nowIso() };
      sql().insertWorkspace.run(row);
      audit(actor, 'workspace.create', input.accountId, null, { workspaceId: row.id, name: row.name });
      return toWorkspace(row);
    }),
    renameWorkspace: write((accountId: string, id: string, name: string, actor: string) => {
      const before = requireWorkspace(accountId, id);
      const row = sql().renameWorkspace.get(name, freeSlug(accountId, name, id), accountId, id) ?? before;
      audit(actor, 'workspace.rename', accountId, null, { workspaceId: id, from: before.name, to: name });
      return toWorkspace(row);
    }),
    setDefaultWorkspace: write((accountId: string, id: string, actor: string) => {
      requireWorkspace(accountId, id);
      sql().clearDefault.run(accountId);
      const row = sql().makeDefault.get(accountId, id)!;
      audit(actor, 'workspace.set_default', accountId, null, { workspaceId: id });
      return toWorkspace(row);
    }),
    moveApiKeyToWorkspace: write((accountId: string, keyId: string, workspaceId: string, actor: string) => {
      requireWorkspace(accountId, workspaceId);
      if (sql().moveKey.run(workspaceId, accountId, keyId).changes === 0) throw new NotFoundInStoreError('api_key', keyId);
      audit(actor, 'key.move_workspace', accountId, keyId, { workspaceId });
    }),

    setBudget: write((input: Omit<BudgetRecord, 'createdAt' | 'updatedAt'>, actor: string) => {
      const row = sql().upsertBudget.get({
        account_id: input.accountId,
        scope: input.scope,
        scope_id: input.scopeId,
        limit_nano_usd: input.limitNanoUsd,
        period: input.period,
        include_byok: input.includeByok ? 1 : 0,
        at: nowIso(),
      })!;
      audit(actor, 'budget.set', input.accountId, input.scope === 'key' ? input.scopeId : null, {
        scope: input.scope,
        scopeId: input.scopeId,
        limitNanoUsd: input.limitNanoUsd,
        period: input.period,
        includeByok: input.includeByok,
      });
      return toBudget(row);
    }),
    removeBudget: write((accountId: string, scope: BudgetScope, scopeId: string, actor: string) => {
      const removed = sql().deleteBudget.run(accountId, scope, scopeId).changes > 0;
      if (removed) audit(actor, 'budget.remove', accountId, scope === 'key' ? scopeId : null, { scope, scopeId });
      return removed;
    }),
    listBudgets: guarded((accountId: string) => sql().listBudgets.all(accountId).map(toBudget)),
    readBudgetSpend: guarded((accountId: string, scope: BudgetScope, scopeId: string, period: BudgetPeriod, at: string) => {
      const periodKey = budgetPeriodKey(period, Date.parse(at));
      const meter = sql().meter.get(accountId, scope, scopeId, periodKey);
      const includeByok = sql().budgetIncludesByok.get(accountId, scope, scopeId) !== 0;
      const spent = meter === undefined ? 0 : includeByok ? meter.spent_nano_usd : meter.managed_nano_usd;
      return spent + (sql().held.get(accountId, scope, scopeId, periodKey, at) ?? 0);
    }),

    readBudgetsSpend: guarded((accountId: string, budgets: ReadonlyArray<{ scope: BudgetScope; scopeId: string; period: BudgetPeriod }>, at: string) => {
      const items = budgets.map((budget) => [budget.scope, budget.scopeId, budgetPeriodKey(budget.period, Date.parse(at))]);
      return sql().spentMany.all({ account: accountId, items: JSON.stringify(items), at });
    }),

    setGuardrail: write((input: Omit<GuardrailRecord, 'createdAt' | 'updatedAt'>, actor: string) => {
      const row = sql().upsertGuardrail.get({
        account_id: input.accountId,
        scope: input.scope,
        scope_id: input.scopeId,
        ...guardrailValues(input),
        require_zdr: input.requireZdr ? 1 : 0,
        at: nowIso(),
      })!;
      audit(actor, 'guardrail.set', input.accountId, input.scope === 'key' ? input.scopeId : null, guardrailAuditDetails(input));
      return toGuardrail(row);
    }),
    removeGuardrail: write((accountId: string, scope: GuardrailScope, scopeId: string, actor: string) => {
      const removed = sql().deleteGuardrail.run(accountId, scope, scopeId).changes > 0;
      if (removed) audit(actor, 'guardrail.remove', accountId, scope === 'key' ? scopeId : null, { scope, scopeId });
      return removed;
    }),
    listGuardrails: guarded((accountId: string) => sql().listGuardrails.all(accountId).map(toGuardrail)),
  };
}
