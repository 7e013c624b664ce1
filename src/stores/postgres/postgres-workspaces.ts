/** The PostgreSQL side of WorkspaceStore, BudgetStore and GuardrailStore, on the store's pool. */
import type { Pool } from 'pg';
import { budgetPeriodKey } from '../budget-periods.js';
import type { BudgetStore } from '../budget-store.js';
import type { GuardrailStore } from '../guardrail-store.js';
import { guardrailAuditDetails, guardrailValues, toBudget, toGuardrail, toWorkspace, type BudgetRow, type GuardrailRow, type WorkspaceRow } from '../guardrail-rows.js';
import { NotFoundInStoreError } from '../store.js';
import { WorkspaceConflictError, workspaceSlug, type WorkspaceStore } from '../workspace-store.js';
import type { PostgresHelpers } from './postgres-account-auth.js';
import { inTransaction, queryRows, type Queryable } from './postgres-session.js';

/** Throws unless the workspace is one of the account's (a key may only join its own organization's). */
export async function requirePostgresWorkspace(db: Queryable, accountId: string, id: string): Promise<WorkspaceRow> {
  const [row] = await queryRows<WorkspaceRow>(db, 'SELECT * FROM workspaces WHERE account_id = $1 AND id = $2', [accountId, id]);
  if (!row) throw new NotFoundInStoreError('workspace', id);
  return row;
}

/** A replacement key keeps its predecessor's budget (and what it spent against it) and guardrail. */
export const POSTGRES_KEY_SCOPE_COPIES = [
  `INSERT INTO budgets (account_id, scope, scope_id, limit_nano_usd, period, include_byok, created_at, updated_at)
   SELECT account_id, scope, $1, limit_nano_usd, period, include_byok, created_at, updated_at FROM budgets WHERE scope = 'key' AND scope_id = $2`,
  `INSERT INTO budget_meter (account_id, scope, scope_id, period_key, spent_nano_usd, managed_nano_usd)
   SELECT account_id, scope, $1, period_key, spent_nano_usd, managed_nano_usd FROM budget_meter WHERE scope = 'key' AND scope_id = $2`,
  `INSERT INTO guardrails (account_id, scope, scope_id, allowed_models, denied_models, allowed_providers, denied_providers, require_zdr, created_at, updated_at)
   SELECT account_id, scope, $1, allowed_models, denied_models, allowed_providers, denied_providers, require_zdr, created_at, updated_at FROM guardrails WHERE scope = 'key' AND scope_id = $2`,
];

export function createPostgresWorkspaces(pool: Pool, helpers: PostgresHelpers): WorkspaceStore & BudgetStore & GuardrailStore {
  const { audit, newId, nowIso } = helpers;
  const freeSlug = async (db: Queryable, accountId: string, name: string, id: string): Promise<string> => {
    const slug = workspaceSlug(name);
    const taken = await queryRows(db, 'SELECT 1 FROM workspaces WHERE account_id = $1 AND slug = $2 AND id <> $3', [accountId, slug, id]);
    if (taken.length > 0) throw new WorkspaceConflictError(slug);
    return slug;
  };
  // Workspace changes of one organization take turns on its row, so two creates cannot both take a slug.
  const lockAccount = async (db: Queryable, accountId: string): Promise<void> => {
    const rows = await queryRows(db, 'SELECT 1 FROM accounts WHERE id = $1 FOR UPDATE', [accountId]);
    if (rows.length === 0) throw new NotFoundInStoreError('account', accountId);
  };

  return {
    listWorkspaces: async (accountId) =>
      (await queryRows<WorkspaceRow>(pool, 'SELECT * FROM workspaces WHERE account_id = $1 ORDER BY is_default DESC, name, id', [accountId])).map(toWorkspace),
    getWorkspace: async (accountId, id) => {
      const [row] = await queryRows<WorkspaceRow>(pool, 'SELECT * FROM workspaces WHERE account_id = $1 AND id = $2', [accountId, id]);
      return row ? toWorkspace(row) : null;
    },
    getDefaultWorkspace: async (accountId) => {
      const [row] = await queryRows<WorkspaceRow>(pool, 'SELECT * FROM workspaces WHERE account_id = $1 AND is_default', [accountId]);
      if (!row) throw new NotFoundInStoreError('account', accountId);
      return toWorkspace(row);
    },
    createWorkspace: (input, actor) =>
      inTransaction(pool, async (db) => {
        await lockAccount(db, input.accountId);
        const slug = await freeSlug(db, input.accountId, input.name, '');
        const [row] = await queryRows<WorkspaceRow>(
          db,
          'INSERT INTO workspaces (id, account_id, name, slug, is_default, created_at) VALUES ($1, $2, $3, $4, FALSE, $5) RETURNING *',
          [newId('ws_'), input.accountId, input.name, slug, nowIso()],
        );
        await audit(db, actor, 'workspace.create', input.accountId, null, { workspaceId: row!.id, name: input.name });
        return toWorkspace(row!);
      }),
    renameWorkspace: (accountId, id, name, actor) =>
      inTransaction(pool, async (db) => {
        await lockAccount(db, accountId);
        const before = await requirePostgresWorkspace(db, accountId, id);
        const slug = await freeSlug(db, accountId, name, id);
        const [row] = await queryRows<WorkspaceRow>(db, 'UPDATE workspaces SET name = $1, slug = $2 WHERE account_id = $3 AND id = $4 RETURNING *', [name, slug, accountId, id]);
        await audit(db, actor, 'workspace.rename', accountId, null, { workspaceId: id, from: before.name, to: name });
        return toWorkspace(row!);
      }),
    setDefaultWorkspace: (accountId, id, actor) =>
      inTransaction(pool, async (db) => {
        await lockAccount(db, accountId);
        await requirePostgresWorkspace(db, accountId, id);
        await queryRows(db, 'UPDATE workspaces SET is_default = FALSE WHERE account_id = $1 AND is_default', [accountId]);
        const [row] = await queryRows<WorkspaceRow>(db, 'UPDATE workspaces SET is_default = TRUE WHERE account_id = $1 AND id = $2 RETURNING *', [accountId, id]);
        await audit(db, actor, 'workspace.set_default', accountId, null, { workspaceId: id });
        return toWorkspace(row!);
      }),
    moveApiKeyToWorkspace: (accountId, keyId, workspaceId, actor) =>
      inTransaction(pool, async (db) => {
        await requirePostgresWorkspace(db, accountId, workspaceId);
        const moved = await queryRows(db, 'UPDATE api_keys SET workspace_id = $1 WHERE account_id = $2 AND id = $3 RETURNING 1', [workspaceId, accountId, keyId]);
        if (moved.length === 0) throw new NotFoundInStoreError('api_key', keyId);
        await audit(db, actor, 'key.move_workspace', accountId, keyId, { workspaceId });
      }),

    setBudget: (input, actor) =>
      inTransaction(pool, async (db) => {
        const [row] = await queryRows<BudgetRow>(
          db,
          `INSERT INTO budgets (account_id, scope, scope_id, limit_nano_usd, period, include_byok, created_at, updated_at)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $7)
           ON CONFLICT (account_id, scope, scope_id) DO UPDATE SET limit_nano_usd = EXCLUDED.limit_nano_usd, period = EXCLUDED.period,
           include_byok = EXCLUDED.include_byok, updated_at = EXCLUDED.updated_at RETURNING *`,
          [input.accountId, input.scope, input.scopeId, input.limitNanoUsd, input.period, input.includeByok, nowIso()],
        );
        await audit(db, actor, 'budget.set', input.accountId, input.scope === 'key' ? input.scopeId : null, {
          scope: input.scope,
          scopeId: input.scopeId,
          limitNanoUsd: input.limitNanoUsd,
          period: input.period,
          includeByok: input.includeByok,
        });
        return toBudget(row!);
      }),
    removeBudget: (accountId, scope, scopeId, actor) =>
      inTransaction(pool, async (db) => {
        const removed = await queryRows(db, 'DELETE FROM budgets WHERE account_id = $1 AND scope = $2 AND scope_id = $3 RETURNING 1', [accountId, scope, scopeId]);
        if (removed.length > 0) await audit(db, actor, 'budget.remove', accountId, scope === 'key' ? scopeId : null, { scope, scopeId });
        return removed.length > 0;
      }),
    listBudgets: async (accountId) => (await queryRows<BudgetRow>(pool, 'SELECT * FROM budgets WHERE account_id = $1 ORDER BY scope, scope_id', [accountId])).map(toBudget),
    readBudgetSpend: async (accountId, scope, scopeId, period, at) => {
      const [row] = await queryRows<{ spent: string }>(
        pool,
        `SELECT COALESCE((SELECT CASE WHEN COALESCE(b.include_byok, TRUE) THEN m.spent_nano_usd ELSE m.managed_nano_usd END
                          FROM budget_meter m LEFT JOIN budgets b ON b.account_id = m.account_id AND b.scope = m.scope AND b.scope_id = m.scope_id
                          WHERE m.account_id = $1 AND m.scope = $2 AND m.scope_id = $3 AND m.period_key = $4), 0)
              + (SELECT COALESCE(SUM(nano_usd), 0) FROM budget_reservations
                 WHERE account_id = $1 AND scope = $2 AND scope_id = $3 AND period_key = $4 AND expires_at > $5) AS spent`,
        [accountId, scope, scopeId, budgetPeriodKey(period, Date.parse(at)), at],
      );
      return Number(row?.spent ?? 0);
    },

    readBudgetsSpend: async (accountId, budgets, at) => {
      const rows = await queryRows<{ spent: string }>(
        pool,
        `SELECT COALESCE((SELECT CASE WHEN COALESCE(b.include_byok, TRUE) THEN m.spent_nano_usd ELSE m.managed_nano_usd END
                          FROM budget_meter m LEFT JOIN budgets b ON b.account_id = m.account_id AND b.scope = m.scope AND b.scope_id = m.scope_id
                          WHERE m.account_id = $1 AND m.scope = q.scope AND m.scope_id = q.scope_id AND m.period_key = q.period_key), 0)
              + (SELECT COALESCE(SUM(r.nano_usd), 0) FROM budget_reservations r
                 WHERE r.account_id = $1 AND r.scope = q.scope AND r.scope_id = q.scope_id AND r.period_key = q.period_key AND r.expires_at > $2) AS spent
         FROM unnest($3::text[], $4::text[], $5::text[]) WITH ORDINALITY AS q(scope, scope_id, period_key, ord)
         ORDER BY q.ord`,
        [accountId, at, budgets.map((budget) => budget.scope), budgets.map((budget) => budget.scopeId), budgets.map((budget) => budgetPeriodKey(budget.period, Date.parse(at)))],
      );
      return rows.map((row) => Number(row.spent));
    },

    setGuardrail: (input, actor) =>
      inTransaction(pool, async (db) => {
        const values = guardrailValues(input);
        const [row] = await queryRows<GuardrailRow>(
          db,
          `INSERT INTO guardrails (account_id, scope, scope_id, allowed_models, denied_models, allowed_providers, denied_providers, require_zdr, created_at, updated_at)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $9)
           ON CONFLICT (account_id, scope, scope_id) DO UPDATE SET allowed_models = EXCLUDED.allowed_models, denied_models = EXCLUDED.denied_models,
           allowed_providers = EXCLUDED.allowed_providers, denied_providers = EXCLUDED.denied_providers, require_zdr = EXCLUDED.require_zdr,
           updated_at = EXCLUDED.updated_at RETURNING *`,
          [input.accountId, input.scope, input.scopeId, values.allowed_models, values.denied_models, values.allowed_providers, values.denied_providers, input.requireZdr, nowIso()],
        );
        await audit(db, actor, 'guardrail.set', input.accountId, input.scope === 'key' ? input.scopeId : null, guardrailAuditDetails(input));
        return toGuardrail(row!);
      }),
    removeGuardrail: (accountId, scope, scopeId, actor) =>
      inTransaction(pool, async (db) => {
        const removed = await queryRows(db, 'DELETE FROM guardrails WHERE account_id = $1 AND scope = $2 AND scope_id = $3 RETURNING 1', [accountId, scope, scopeId]);
        if (removed.length > 0) await audit(db, actor, 'guardrail.remove', accountId, scope === 'key' ? scopeId : null, { scope, scopeId });
        return removed.length > 0;
      }),
    listGuardrails: async (accountId) => (await queryRows<GuardrailRow>(pool, 'SELECT * FROM guardrails WHERE account_id = $1 ORDER BY scope, scope_id', [accountId])).map(toGuardrail),
  };
}
