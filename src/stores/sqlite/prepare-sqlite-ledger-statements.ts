/** Every statement the SQLite ledger store runs, prepared once per connection (after migrations created the tables). */
import type { Database } from 'better-sqlite3';
import { ATTRIBUTION_ROLLUP_COLUMNS, DIMENSION_SQL, RECORD_COLUMNS, ROLLUP_SUM_COLUMNS, USAGE_SUMS_SQL, type AttributedCellRow, type LedgerRecordRow, type UsageCellRow, type UsageSumsRow } from '../ledger-sql.js';
import { keySpendSql, keysSpendSql, type KeySpendRow } from '../key-spend-sql.js';
import type { RecordedScope, UsageDimension } from '../ledger-store.js';

/** A RecordedScope as listRequests' parameters: null ids match everyone; key lists as JSON arrays. */
export interface RecordedScopeParams {
  person: string | null;
  personKeys: string;
  workspace: string | null;
  workspaceKeys: string;
}

export function recordedScopeParams(scope: RecordedScope | undefined): RecordedScopeParams {
  return {
    person: scope?.person?.id ?? null,
    personKeys: JSON.stringify(scope?.person?.keyIdsNow ?? []),
    workspace: scope?.workspace?.id ?? null,
    workspaceKeys: JSON.stringify(scope?.workspace?.keyIdsNow ?? []),
  };
}

export type SqliteLedgerStatements = ReturnType<typeof prepareSqliteLedgerStatements>;

/** The caller's ranges (a JSON array of [label, from, to]) as rows numbered in the caller's order. */
const RANGES_CTE = `WITH ranges AS (
         SELECT CAST(key AS INTEGER) AS ord, json_extract(value, '$[0]') AS label,
                json_extract(value, '$[1]') AS range_from, json_extract(value, '$[2]') AS range_to
         FROM json_each(?)
       )`;

/** Only the keys of a JSON array (a KeyFilter), or every key when the parameter is NULL; takes the parameter twice. */
const KEYS_FILTER = `(? IS NULL OR r.key_id IN (SELECT value FROM json_each(?)))`;

const camel = (column: string): string => column.replace(/_([a-z0-9])/g, (_, letter: string) => letter.toUpperCase());

export function prepareSqliteLedgerStatements(db: Database) {
  const rollupColumns = ['account_id', 'bucket_start', 'key_id', 'route_id', 'provider_id', 'upstream_model', 'credential_source', ...ROLLUP_SUM_COLUMNS, 'last_at'];
  const sumBy = (dimension: UsageDimension) =>
    db.prepare<[string, string, string, string | null, string | null], UsageSumsRow>(
      `SELECT ${DIMENSION_SQL[dimension]} AS grp, ${USAGE_SUMS_SQL}
       FROM usage_rollups r WHERE r.account_id = ? AND r.bucket_start >= ? AND r.bucket_start < ? AND ${KEYS_FILTER}
       GROUP BY grp ORDER BY cost_nano_usd DESC, grp`,
    );
  const sumByRangeAnd = (dimension: UsageDimension) =>
    db.prepare<[string, string, string | null, string | null], UsageCellRow>(
      `${RANGES_CTE}
       SELECT ranges.label AS range_label, ${DIMENSION_SQL[dimension]} AS grp, ${USAGE_SUMS_SQL}
       FROM ranges JOIN usage_rollups r
         ON r.account_id = ? AND r.bucket_start >= ranges.range_from AND r.bucket_start < ranges.range_to
         AND ${KEYS_FILTER}
       GROUP BY ranges.ord, grp ORDER BY ranges.ord, cost_nano_usd DESC, grp`,
    );
  return {
    ping: db.prepare('SELECT 1 FROM usage_records LIMIT 1'),
    // OR IGNORE: a record id already stored (a batch retried after a lost reply) is skipped, not counted twice.
    // Positional parameters (recordRow's order): binding an array costs no look-up by name per column.
    insertRecord: db.prepare<unknown[], unknown>(
      `INSERT OR IGNORE INTO usage_records (${RECORD_COLUMNS.join(', ')}) VALUES (${RECORD_COLUMNS.map(() => '?').join(', ')})`,
    ),
    upsertRollup: db.prepare<[Record<string, unknown>], unknown>(
      `INSERT INTO usage_rollups (${rollupColumns.join(', ')}) VALUES (${rollupColumns.map((c) => `@${camel(c)}`).join(', ')})
       ON CONFLICT (account_id, bucket_start, key_id, route_id, provider_id, upstream_model, credential_source) DO UPDATE SET
       ${ROLLUP_SUM_COLUMNS.map((c) => `${c} = ${c} + excluded.${c}`).join(', ')}, last_at = MAX(last_at, excluded.last_at)`,
    ),
    // Version 18: the same sums per key and the person and workspace the key had (usage-attribution.ts).
    upsertAttribution: db.prepare<[Record<string, unknown>], unknown>(
      `INSERT INTO usage_attribution_rollups (${ATTRIBUTION_ROLLUP_COLUMNS.join(', ')}) VALUES (${ATTRIBUTION_ROLLUP_COLUMNS.map((c) => `@${camel(c)}`).join(', ')})
       ON CONFLICT (account_id, bucket_start, key_id, person_id, workspace_id) DO UPDATE SET
       ${ROLLUP_SUM_COLUMNS.map((c) => `${c} = ${c} + excluded.${c}`).join(', ')}, last_at = MAX(last_at, excluded.last_at)`,
    ),
    sumAttributed: db.prepare<[string, string, string | null, string | null], AttributedCellRow>(
      `${RANGES_CTE}
       SELECT ranges.label AS range_label, r.key_id AS grp, r.person_id AS person_id, r.workspace_id AS workspace_id, ${USAGE_SUMS_SQL}
       FROM ranges JOIN usage_attribution_rollups r
         ON r.account_id = ? AND r.bucket_start >= ranges.range_from AND r.bucket_start < ranges.range_to AND ${KEYS_FILTER}
       GROUP BY ranges.ord, r.key_id, r.person_id, r.workspace_id ORDER BY ranges.ord, grp, person_id, workspace_id`,
    ),
    addSpend: db.prepare<[{ accountId: string; period: string; nanoUsd: number }], unknown>(
      `INSERT INTO spend_meter (account_id, period, spent_nano_usd) VALUES (@accountId, @period, @nanoUsd)
       ON CONFLICT (account_id, period) DO UPDATE SET spent_nano_usd = spent_nano_usd + excluded.spent_nano_usd`,
    ),
    deleteReservation: db.prepare<[string], unknown>('DELETE FROM spend_reservations WHERE id = ?'),
    readSpent: db.prepare<[string, string], number>('SELECT spent_nano_usd FROM spend_meter WHERE account_id = ? AND period = ?').pluck(),
    readReserved: db
      .prepare<[string, string, string], number>(
        'SELECT COALESCE(SUM(nano_usd), 0) FROM spend_reservations WHERE account_id = ? AND period = ? AND expires_at > ?',
      )
      .pluck(),
    insertReservation: db.prepare<[{ id: string; accountId: string; period: string; nanoUsd: number; expiresAt: string }], unknown>(
      'INSERT INTO spend_reservations (id, account_id, period, nano_usd, expires_at) VALUES (@id, @accountId, @period, @nanoUsd, @expiresAt)',
    ),

    // Every range gets a row (zeros when empty): json_each numbers them so the order is the caller's.
    sumByRange: db.prepare<[string, string, string | null, string | null], UsageSumsRow>(
      `${RANGES_CTE}
       SELECT ranges.label AS grp, ${USAGE_SUMS_SQL}
       FROM ranges LEFT JOIN usage_rollups r
         ON r.account_id = ? AND r.bucket_start >= ranges.range_from AND r.bucket_start < ranges.range_to AND ${KEYS_FILTER}
       GROUP BY ranges.ord ORDER BY ranges.ord`,
    ),
    sumBy: { key: sumBy('key'), route: sumBy('route'), provider: sumBy('provider'), model: sumBy('model') },
    sumByRangeAnd: { key: sumByRangeAnd('key'), route: sumByRangeAnd('route'), provider: sumByRangeAnd('provider'), model: sumByRangeAnd('model') },
    sumKeySpend: db.prepare<[Record<'p1' | 'p2' | 'p3' | 'p4' | 'p5', string>], KeySpendRow>(keySpendSql((n) => `@p${n}`)),
    sumKeysSpend: db.prepare<[Record<'p1' | 'p2' | 'p3' | 'p4' | 'p5', string>], KeySpendRow & { key_id: string }>(
      keysSpendSql((n) => `@p${n}`, 'key_id IN (SELECT value FROM json_each(@p2))'),
    ),
    lastUsedByKey: db.prepare<[string], { key_id: string; last_at: string }>(
      `SELECT key_id, MAX(last_at) AS last_at FROM usage_rollups WHERE account_id = ? AND key_id <> '' GROUP BY key_id ORDER BY key_id`,
    ),

    findRecords: db.prepare<[{ requestId: string; accountId: string | null }], LedgerRecordRow>(
      `SELECT * FROM usage_records WHERE request_id = @requestId AND (@accountId IS NULL OR account_id = @accountId)
       ORDER BY started_at DESC, call LIMIT 100`,
    ),
    listRequests: db.prepare<[{ accountId: string; before: string | null; limit: number; keys: string | null } & RecordedScopeParams], LedgerRecordRow>(
      `SELECT * FROM usage_records WHERE account_id = @accountId AND call = 'main' AND (@before IS NULL OR started_at < @before)
       AND (@keys IS NULL OR key_id IN (SELECT value FROM json_each(@keys)))
       AND (@person IS NULL OR person_id = @person OR (person_id IS NULL AND key_id IN (SELECT value FROM json_each(@personKeys))))
       AND (@workspace IS NULL OR workspace_id = @workspace OR (workspace_id IS NULL AND key_id IN (SELECT value FROM json_each(@workspaceKeys))))
       ORDER BY started_at DESC, id DESC LIMIT @limit`,
    ),
    countErrors: db.prepare<[{ sinceId: string; accountId: string | null }], { code: string; count: number }>(
      `SELECT error_code AS code, COUNT(*) AS count FROM usage_records
       WHERE id >= @sinceId AND call = 'main' AND error_code IS NOT NULL AND (@accountId IS NULL OR account_id = @accountId)
       GROUP BY error_code ORDER BY count DESC, code`,
    ),

    // Ids sort by start time: the oldest records are the lowest ids.
    pruneRecords: db.prepare<[string, number], unknown>(
      'DELETE FROM usage_records WHERE id IN (SELECT id FROM usage_records WHERE id < ? ORDER BY id LIMIT ?)',
    ),
    pruneReservations: db.prepare<[string], unknown>('DELETE FROM spend_reservations WHERE expires_at <= ?'),
    pruneBudgetReservations: db.prepare<[string], unknown>('DELETE FROM budget_reservations WHERE expires_at <= ?'),

    // Budgets (version 13): meter rows per scope and period, and the estimates of requests in flight.
    addBudgetCharge: db.prepare<[Record<string, unknown>], unknown>(
      `INSERT INTO budget_meter (account_id, scope, scope_id, period_key, spent_nano_usd, managed_nano_usd)
       VALUES (@accountId, @scope, @scopeId, @periodKey, @spentNanoUsd, @managedNanoUsd)
       ON CONFLICT (account_id, scope, scope_id, period_key) DO UPDATE SET
       spent_nano_usd = spent_nano_usd + excluded.spent_nano_usd, managed_nano_usd = managed_nano_usd + excluded.managed_nano_usd`,
    ),
    deleteBudgetReservations: db.prepare<[string], unknown>('DELETE FROM budget_reservations WHERE id = ?'),
    readBudgetMeter: db.prepare<[string, string, string, string], { spent_nano_usd: number; managed_nano_usd: number }>(
      'SELECT spent_nano_usd, managed_nano_usd FROM budget_meter WHERE account_id = ? AND scope = ? AND scope_id = ? AND period_key = ?',
    ),
    readBudgetHeld: db
      .prepare<[string, string, string, string, string], number>(
        `SELECT COALESCE(SUM(nano_usd), 0) FROM budget_reservations
         WHERE account_id = ? AND scope = ? AND scope_id = ? AND period_key = ? AND expires_at > ?`,
      )
      .pluck(),
    insertBudgetReservation: db.prepare<[Record<string, unknown>], unknown>(
      `INSERT INTO budget_reservations (id, account_id, scope, scope_id, period_key, nano_usd, expires_at)
       VALUES (@id, @accountId, @scope, @scopeId, @periodKey, @nanoUsd, @expiresAt)`,
    ),

    lastAuditDetails: db.prepare<[string], string>('SELECT details FROM audit_events WHERE action = ? ORDER BY seq DESC LIMIT 1').pluck(),
    insertAuditEvent: db.prepare<[{ id: string; at: string; action: string; details: string }], unknown>(
      `INSERT INTO audit_events (id, at, actor, action, account_id, key_id, details) VALUES (@id, @at, 'system', @action, NULL, NULL, @details)`,
    ),
  };
}
