/**
 * The usage ledger on PostgreSQL, with a small pool of its own so batch writes never take connections
 * from the request path. A batch is one transaction: one multi-row insert of the records (the batch as
 * one JSON parameter), then one statement that upserts the rollups of the records that were new, adds
 * their managed spend and releases the reservations they settle.
 */
import { randomBytes } from 'node:crypto';
import { ledgerRecordIdFloor } from '../ledger-record-ids.js';
import { rollUp, rollUpAttribution, spendOf } from '../ledger-rollup.js';
import { budgetChargesOf } from '../budget-meter.js';
import { ATTRIBUTION_ROLLUP_COLUMNS, DIMENSION_SQL, RECORD_COLUMNS, ROLLUP_SUM_COLUMNS, USAGE_SUMS_SQL, recordValues, toAttributedCell, toLedgerRecord, toSafeInteger, toUsageCell, toUsageSums } from '../ledger-sql.js';
import { keySpendSql, keysSpendSql, toKeySpendWindows, toKeysSpendWindows, type KeySpendRow } from '../key-spend-sql.js';
import type { AttributedCellRow, LedgerRecordRow, UsageCellRow, UsageSumsRow } from '../ledger-sql.js';
import type { LedgerStore, UsageDimension } from '../ledger-store.js';
import { postgresMigrations } from '../migrations/postgres-migrations.js';
import { migratePostgres } from './migrate-postgres.js';
import { createPool, pingPool, type PostgresPoolOptions } from './create-postgres-pool.js';
import { inTransaction, queryRows } from './postgres-session.js';

export interface PostgresLedgerStoreOptions extends PostgresPoolOptions {
  now: () => string;
}

const RECORD_TYPES: Readonly<Record<(typeof RECORD_COLUMNS)[number], string>> = {
  id: 'text',
  request_id: 'text',
  call: 'text',
  started_at: 'timestamptz',
  account_id: 'text',
  key_id: 'text',
  route_id: 'text',
  endpoint: 'text',
  provider_id: 'text',
  upstream_model: 'text',
  credential_source: 'text',
  status: 'integer',
  error_code: 'text',
  retry_count: 'integer',
  attempts: 'jsonb',
  prompt_tokens: 'integer',
  completion_tokens: 'integer',
  reasoning_tokens: 'integer',
  cached_tokens: 'integer',
  cost_nano_usd: 'bigint',
  metered_nano_usd: 'bigint',
  first_byte_ms: 'integer',
  total_ms: 'integer',
  client_closed: 'boolean',
  reservation_id: 'text',
  cache_write_tokens: 'integer',
  cache_write_1h_tokens: 'integer',
  input_cost_nano_usd: 'bigint',
  cache_read_cost_nano_usd: 'bigint',
  cache_write_cost_nano_usd: 'bigint',
  cache_write_1h_cost_nano_usd: 'bigint',
  output_cost_nano_usd: 'bigint',
  reasoning_cost_nano_usd: 'bigint',
  cache_savings_nano_usd: 'bigint',
  server_tools_cost_nano_usd: 'bigint',
  trace_id: 'text',
  finish_reason: 'text',
  server_tool_calls: 'text',
  response_cache_hit_of: 'text',
  response_cache_saved_nano_usd: 'bigint',
  workspace_id: 'text',
  person_id: 'text',
  insured: 'boolean',
  preset_slug: 'text',
  preset_version: 'integer',
};

const INSERT_RECORDS_SQL = `
  INSERT INTO usage_records (${RECORD_COLUMNS.join(', ')})
  SELECT ${RECORD_COLUMNS.join(', ')}
  FROM jsonb_to_recordset($1::jsonb) AS r(${RECORD_COLUMNS.map((column) => `${column} ${RECORD_TYPES[column]}`).join(', ')})
  ON CONFLICT (id) DO NOTHING
  RETURNING id`;

const ROLLUP_COLUMNS = ['account_id', 'bucket_start', 'key_id', 'route_id', 'provider_id', 'upstream_model', 'credential_source', ...ROLLUP_SUM_COLUMNS, 'last_at'];
const ROLLUP_TYPES = (column: string): string =>
  column === 'bucket_start' || column === 'last_at' ? 'timestamptz' : (ROLLUP_SUM_COLUMNS as readonly string[]).includes(column) ? 'bigint' : 'text';

const SETTLE_SQL = `
  WITH rolled AS (
    INSERT INTO usage_rollups AS u (${ROLLUP_COLUMNS.join(', ')})
    SELECT ${ROLLUP_COLUMNS.join(', ')}
    FROM jsonb_to_recordset($1::jsonb) AS r(${ROLLUP_COLUMNS.map((column) => `${column} ${ROLLUP_TYPES(column)}`).join(', ')})
    ON CONFLICT (account_id, bucket_start, key_id, route_id, provider_id, upstream_model, credential_source) DO UPDATE SET
      ${ROLLUP_SUM_COLUMNS.map((column) => `${column} = u.${column} + EXCLUDED.${column}`).join(', ')},
      last_at = GREATEST(u.last_at, EXCLUDED.last_at)
    RETURNING 1
  ), spent AS (
    INSERT INTO spend_meter AS s (account_id, period, spent_nano_usd)
    SELECT account_id, period, nano_usd FROM jsonb_to_recordset($2::jsonb) AS x(account_id text, period text, nano_usd bigint)
    ON CONFLICT (account_id, period) DO UPDATE SET spent_nano_usd = s.spent_nano_usd + EXCLUDED.spent_nano_usd
    RETURNING 1
  ), released AS (
    DELETE FROM spend_reservations WHERE id = ANY($3::text[]) RETURNING 1
  ), charged AS (
    INSERT INTO budget_meter AS b (account_id, scope, scope_id, period_key, spent_nano_usd, managed_nano_usd)
    SELECT account_id, scope, scope_id, period_key, spent_nano_usd, managed_nano_usd
    FROM jsonb_to_recordset($4::jsonb) AS c(account_id text, scope text, scope_id text, period_key text, spent_nano_usd bigint, managed_nano_usd bigint)
    ON CONFLICT (account_id, scope, scope_id, period_key) DO UPDATE SET
      spent_nano_usd = b.spent_nano_usd + EXCLUDED.spent_nano_usd, managed_nano_usd = b.managed_nano_usd + EXCLUDED.managed_nano_usd
    RETURNING 1
  ), released_budgets AS (
    DELETE FROM budget_reservations WHERE id = ANY($3::text[]) RETURNING 1
  ), attributed AS (
    INSERT INTO usage_attribution_rollups AS a (${ATTRIBUTION_ROLLUP_COLUMNS.join(', ')})
    SELECT ${ATTRIBUTION_ROLLUP_COLUMNS.join(', ')}
    FROM jsonb_to_recordset($5::jsonb) AS t(${ATTRIBUTION_ROLLUP_COLUMNS.map((column) => `${column} ${ROLLUP_TYPES(column)}`).join(', ')})
    ON CONFLICT (account_id, bucket_start, key_id, person_id, workspace_id) DO UPDATE SET
      ${ROLLUP_SUM_COLUMNS.map((column) => `${column} = a.${column} + EXCLUDED.${column}`).join(', ')},
      last_at = GREATEST(a.last_at, EXCLUDED.last_at)
    RETURNING 1
  )
  SELECT (SELECT count(*) FROM rolled) AS rolled`;

// Locks a budget's meter row (creating it at 0): reservations against one budget and period take turns.
const LOCK_BUDGET_SQL = `
  INSERT INTO budget_meter AS b (account_id, scope, scope_id, period_key) VALUES ($1, $2, $3, $4)
  ON CONFLICT (account_id, scope, scope_id, period_key) DO UPDATE SET spent_nano_usd = b.spent_nano_usd
  RETURNING spent_nano_usd, managed_nano_usd`;

const BUDGET_HELD_SQL = `SELECT COALESCE(SUM(nano_usd), 0) AS reserved FROM budget_reservations
  WHERE account_id = $1 AND scope = $2 AND scope_id = $3 AND period_key = $4 AND expires_at > $5`;

// Locks the account's meter row (creating it at 0): reservations of one account and month take turns.
const LOCK_METER_SQL = `
  INSERT INTO spend_meter AS s (account_id, period, spent_nano_usd) VALUES ($1, $2, 0)
  ON CONFLICT (account_id, period) DO UPDATE SET spent_nano_usd = s.spent_nano_usd
  RETURNING spent_nano_usd`;

const RESERVED_SQL = 'SELECT COALESCE(SUM(nano_usd), 0) AS reserved FROM spend_reservations WHERE account_id = $1 AND period = $2 AND expires_at > $3';

/** Only the keys of the n-th parameter (a KeyFilter), or every key when it is NULL. */
const keysFilter = (n: number): string => `($${n}::text[] IS NULL OR r.key_id = ANY($${n}::text[]))`;

const sumBySql = (dimension: UsageDimension): string => `
  SELECT ${DIMENSION_SQL[dimension]} AS grp, ${USAGE_SUMS_SQL}
  FROM usage_rollups r WHERE r.account_id = $1 AND r.bucket_start >= $2 AND r.bucket_start < $3 AND ${keysFilter(4)}
  GROUP BY grp ORDER BY cost_nano_usd DESC, grp`;

/** The caller's ranges (a JSON array of [label, from, to]) as rows numbered in the caller's order. */
const RANGES_CTE = `
  WITH ranges AS (
    SELECT e.ord, e.value ->> 0 AS label, (e.value ->> 1)::timestamptz AS range_from, (e.value ->> 2)::timestamptz AS range_to
    FROM jsonb_array_elements($2::jsonb) WITH ORDINALITY AS e(value, ord)
  )`;

const SUM_BY_RANGE_SQL = `${RANGES_CTE}
  SELECT ranges.label AS grp, ${USAGE_SUMS_SQL}
  FROM ranges LEFT JOIN usage_rollups r
    ON r.account_id = $1 AND r.bucket_start >= ranges.range_from AND r.bucket_start < ranges.range_to AND ${keysFilter(3)}
  GROUP BY ranges.ord, ranges.label ORDER BY ranges.ord`;

const sumByRangeAndSql = (dimension: UsageDimension): string => `${RANGES_CTE}
  SELECT ranges.label AS range_label, ${DIMENSION_SQL[dimension]} AS grp, ${USAGE_SUMS_SQL}
  FROM ranges JOIN usage_rollups r
    ON r.account_id = $1 AND r.bucket_start >= ranges.range_from AND r.bucket_start < ranges.range_to
    AND ${keysFilter(3)}
  GROUP BY ranges.ord, ranges.label, grp ORDER BY ranges.ord, cost_nano_usd DESC, grp`;

const SUM_ATTRIBUTED_SQL = `${RANGES_CTE}
  SELECT ranges.label AS range_label, r.key_id AS grp, r.person_id, r.workspace_id, ${USAGE_SUMS_SQL}
  FROM ranges JOIN usage_attribution_rollups r
    ON r.account_id = $1 AND r.bucket_start >= ranges.range_from AND r.bucket_start < ranges.range_to AND ${keysFilter(3)}
  GROUP BY ranges.ord, ranges.label, r.key_id, r.person_id, r.workspace_id ORDER BY ranges.ord, grp, r.person_id, r.workspace_id`;

export function createPostgresLedgerStore(options: PostgresLedgerStoreOptions): LedgerStore {
  const pool = createPool({ poolSize: 4, ...options });

  return {
    kind: 'postgres',
    migrate: () => migratePostgres(pool, postgresMigrations, options.schema, options.now()),
    ping: () => pingPool(pool, 'SELECT 1 FROM usage_records LIMIT 1'),
    close: () => pool.end(),

    writeBatch: (records) =>
      inTransaction(pool, async (db) => {
        const batch = records.map((record) => ({ ...recordValues(record), attempts: record.attempts }));
        const inserted = new Set((await queryRows<{ id: string }>(db, INSERT_RECORDS_SQL, [JSON.stringify(batch)])).map((row) => row.id));
        const fresh = records.filter((record) => inserted.has(record.id));
        const rollups = rollUp(fresh).map(({ key, counts }) => snakeCase({ ...key, ...counts }));
        const spend = spendOf(fresh).map((entry) => ({ account_id: entry.accountId, period: entry.period, nano_usd: entry.nanoUsd }));
        const released = records.flatMap((record) => (record.reservationId === null ? [] : [record.reservationId]));
        const charges = budgetChargesOf(fresh).map((charge) => snakeCase({ ...charge }));
        const attributed = rollUpAttribution(fresh).map(({ key, counts }) => snakeCase({ ...key, ...counts }));
        await queryRows(db, SETTLE_SQL, [JSON.stringify(rollups), JSON.stringify(spend), released, JSON.stringify(charges), JSON.stringify(attributed)]);
        return { written: fresh.length };
      }),

    reserveSpend: (input) =>
      inTransaction(pool, async (db) => {
        const [meter] = await queryRows<{ spent_nano_usd: string }>(db, LOCK_METER_SQL, [input.accountId, input.period]);
        const [held] = await queryRows<{ reserved: string }>(db, RESERVED_SQL, [input.accountId, input.period, input.now]);
        const spentNanoUsd = toSafeInteger(meter?.spent_nano_usd ?? 0);
        const reservedNanoUsd = toSafeInteger(held?.reserved ?? 0);
        if (spentNanoUsd + reservedNanoUsd >= input.capNanoUsd) return { spentNanoUsd, reservedNanoUsd, reserved: false };
        await queryRows(db, 'INSERT INTO spend_reservations (id, account_id, period, nano_usd, expires_at) VALUES ($1, $2, $3, $4, $5)', [
          input.id,
          input.accountId,
          input.period,
          input.nanoUsd,
          input.expiresAt,
        ]);
        return { spentNanoUsd, reservedNanoUsd: reservedNanoUsd + input.nanoUsd, reserved: true };
      }),
    reserveBudgets: (input) =>
      inTransaction(pool, async (db) => {
        // Rows locked in one order (scope, then id), so two requests sharing budgets cannot deadlock.
        const holds = [...input.holds].sort((a, b) => (a.scope === b.scope ? (a.scopeId < b.scopeId ? -1 : 1) : a.scope < b.scope ? -1 : 1));
        const cap = input.managedCap;
        if (cap) {
          // The managed meter first, as reserveSpend locks it: every reservation locks in the same order.
          const [meter] = await queryRows<{ spent_nano_usd: string }>(db, LOCK_METER_SQL, [input.accountId, cap.period]);
          const [held] = await queryRows<{ reserved: string }>(db, RESERVED_SQL, [input.accountId, cap.period, input.now]);
          const spentNanoUsd = toSafeInteger(meter?.spent_nano_usd ?? 0);
          const reservedNanoUsd = toSafeInteger(held?.reserved ?? 0);
          if (spentNanoUsd + reservedNanoUsd >= cap.capNanoUsd) return { reserved: false, refusedBy: 'managed_cap' as const, spentNanoUsd, reservedNanoUsd };
        }
        for (const hold of holds) {
          const [meter] = await queryRows<{ spent_nano_usd: string; managed_nano_usd: string }>(db, LOCK_BUDGET_SQL, [input.accountId, hold.scope, hold.scopeId, hold.periodKey]);
          const [held] = await queryRows<{ reserved: string }>(db, BUDGET_HELD_SQL, [input.accountId, hold.scope, hold.scopeId, hold.periodKey, input.now]);
          const spentNanoUsd = toSafeInteger((hold.includeByok ? meter?.spent_nano_usd : meter?.managed_nano_usd) ?? 0);
          const reservedNanoUsd = toSafeInteger(held?.reserved ?? 0);
          if (spentNanoUsd + reservedNanoUsd >= hold.limitNanoUsd) return { reserved: false, refusedBy: hold, spentNanoUsd, reservedNanoUsd };
        }
        if (cap) {
          await queryRows(db, 'INSERT INTO spend_reservations (id, account_id, period, nano_usd, expires_at) VALUES ($1, $2, $3, $4, $5)', [
            input.id,
            input.accountId,
            cap.period,
            input.nanoUsd,
            input.expiresAt,
          ]);
        }
        for (const hold of holds) {
          await queryRows(
            db,
            'INSERT INTO budget_reservations (id, account_id, scope, scope_id, period_key, nano_usd, expires_at) VALUES ($1, $2, $3, $4, $5, $6, $7)',
            [input.id, input.accountId, hold.scope, hold.scopeId, hold.periodKey, input.nanoUsd, input.expiresAt],
          );
        }
        return { reserved: true };
      }),
    readSpend: async (accountId, period, now) => {
      const [row] = await queryRows<{ spent: string | null; reserved: string }>(
        pool,
        `SELECT (SELECT spent_nano_usd FROM spend_meter WHERE account_id = $1 AND period = $2) AS spent, (${RESERVED_SQL}) AS reserved`,
        [accountId, period, now],
      );
      return { spentNanoUsd: toSafeInteger(row?.spent ?? 0), reservedNanoUsd: toSafeInteger(row?.reserved ?? 0) };
    },

    sumUsageByRange: async (accountId, ranges, keyIds) => {
      const json = JSON.stringify(ranges.map((range) => [range.label, range.from, range.to]));
      return (await queryRows<UsageSumsRow>(pool, SUM_BY_RANGE_SQL, [accountId, json, keyIds ?? null])).map(toUsageSums);
    },
    sumUsageBy: async (accountId, from, to, dimension, keyIds) =>
      (await queryRows<UsageSumsRow>(pool, sumBySql(dimension), [accountId, from, to, keyIds ?? null])).map(toUsageSums),
    sumUsageByRangeAnd: async (accountId, ranges, dimension, keyIds) => {
      const json = JSON.stringify(ranges.map((range) => [range.label, range.from, range.to]));
      return (await queryRows<UsageCellRow>(pool, sumByRangeAndSql(dimension), [accountId, json, keyIds ?? null])).map(toUsageCell);
    },
    sumAttributedUsage: async (accountId, ranges, keyIds) => {
      const json = JSON.stringify(ranges.map((range) => [range.label, range.from, range.to]));
      return (await queryRows<AttributedCellRow>(pool, SUM_ATTRIBUTED_SQL, [accountId, json, keyIds ?? null])).map(toAttributedCell);
    },
    sumKeySpend: async (accountId, keyId, since) => {
      const [row] = await queryRows<KeySpendRow>(pool, keySpendSql((n) => (n > 2 ? `$${n}::timestamptz` : `$${n}`)), [accountId, keyId, since.day, since.week, since.month]);
      return toKeySpendWindows(row);
    },
    sumKeysSpend: async (accountId, keyIds, since) => {
      const rows = await queryRows<KeySpendRow & { key_id: string }>(
        pool,
        keysSpendSql((n) => (n > 2 ? `$${n}::timestamptz` : `$${n}`), 'key_id = ANY($2::text[])'),
        [accountId, [...keyIds], since.day, since.week, since.month],
      );
      return toKeysSpendWindows(keyIds, rows);
    },
    lastUsedByKey: async (accountId) => {
      const rows = await queryRows<{ key_id: string; last_at: Date }>(
        pool,
        `SELECT key_id, MAX(last_at) AS last_at FROM usage_rollups WHERE account_id = $1 AND key_id <> '' GROUP BY key_id ORDER BY key_id`,
        [accountId],
      );
      return rows.map((row) => ({ keyId: row.key_id, lastAt: row.last_at.toISOString() }));
    },

    findRecords: async ({ requestId, accountId }) => {
      const rows = await queryRows<LedgerRecordRow>(
        pool,
        'SELECT * FROM usage_records WHERE request_id = $1 AND ($2::text IS NULL OR account_id = $2) ORDER BY started_at DESC, call LIMIT 100',
        [requestId, accountId ?? null],
      );
      return rows.map(toLedgerRecord);
    },
    listRequests: async ({ accountId, before, limit, keyIds, recorded }) => {
      const rows = await queryRows<LedgerRecordRow>(
        pool,
        `SELECT * FROM usage_records WHERE account_id = $1 AND call = 'main' AND ($2::timestamptz IS NULL OR started_at < $2)
         AND ($4::text[] IS NULL OR key_id = ANY($4::text[]))
         AND ($5::text IS NULL OR person_id = $5 OR (person_id IS NULL AND key_id = ANY($6::text[])))
         AND ($7::text IS NULL OR workspace_id = $7 OR (workspace_id IS NULL AND key_id = ANY($8::text[])))
         ORDER BY started_at DESC, id DESC LIMIT $3`,
        [accountId, before ?? null, limit, keyIds ?? null, recorded?.person?.id ?? null, recorded?.person?.keyIdsNow ?? [], recorded?.workspace?.id ?? null, recorded?.workspace?.keyIdsNow ?? []],
      );
      return rows.map(toLedgerRecord);
    },
    countErrors: async ({ since, accountId }) => {
      const rows = await queryRows<{ code: string; count: string }>(
        pool,
        `SELECT error_code AS code, COUNT(*) AS count FROM usage_records
         WHERE id >= $1 AND call = 'main' AND error_code IS NOT NULL AND ($2::text IS NULL OR account_id = $2)
         GROUP BY error_code ORDER BY count DESC, code`,
        [ledgerRecordIdFloor(Date.parse(since)), accountId ?? null],
      );
      return rows.map((row) => ({ code: row.code, count: toSafeInteger(row.count) }));
    },

    prune: (input) =>
      inTransaction(pool, async (db) => {
        const records = await queryRows(
          db,
          'DELETE FROM usage_records WHERE id IN (SELECT id FROM usage_records WHERE id < $1 ORDER BY id LIMIT $2) RETURNING 1',
          [ledgerRecordIdFloor(Date.parse(input.recordsBefore)), input.limit],
        );
        const reservations = await queryRows(db, 'DELETE FROM spend_reservations WHERE expires_at <= $1 RETURNING 1', [input.now]);
        const budgetHolds = await queryRows(db, 'DELETE FROM budget_reservations WHERE expires_at <= $1 RETURNING 1', [input.now]);
        return { records: records.length, reservations: reservations.length + budgetHolds.length };
      }),

    recordConfigChange: (input) =>
      inTransaction(pool, async (db) => {
        await queryRows(db, 'SELECT pg_advisory_xact_lock(hashtext($1))', [`llm-router:config-audit:${input.action}`]);
        const [last] = await queryRows<{ details: { fingerprint?: unknown } }>(
          db,
          'SELECT details FROM audit_events WHERE action = $1 ORDER BY seq DESC LIMIT 1',
          [input.action],
        );
        if (last?.details.fingerprint === input.fingerprint) return false;
        await queryRows(
          db,
          `INSERT INTO audit_events (id, at, actor, action, account_id, key_id, details) VALUES ($1, $2, 'system', $3, NULL, NULL, $4)`,
          [`evt_${randomBytes(12).toString('hex')}`, input.at, input.action, JSON.stringify({ ...input.details, fingerprint: input.fingerprint })],
        );
        return true;
      }),
  };
}

function snakeCase(values: Record<string, unknown>): Record<string, unknown> {
  // cacheWrite1hTokens → cache_write_1h_tokens: a digit after a letter starts a word too.
  const snake = (name: string): string => name.replace(/(?<=[a-z])(?=\d)/g, '_').replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);
  return Object.fromEntries(Object.entries(values).map(([name, value]) => [snake(name), value]));
}

