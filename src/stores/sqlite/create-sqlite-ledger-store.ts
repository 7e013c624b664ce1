/**
 * The usage ledger on SQLite: its own connection to the store's file (WAL lets it write beside the
 * main store), a short busy timeout so a flush never holds the event loop for long (a busy file fails
 * the flush, and the writer retries it at the next interval), and one IMMEDIATE transaction per batch.
 */
import { randomBytes } from 'node:crypto';
import { ledgerRecordIdFloor } from '../ledger-record-ids.js';
import { rollUp, rollUpAttribution, spendOf } from '../ledger-rollup.js';
import { RECORD_COLUMNS, recordRow, toAttributedCell, toLedgerRecord, toSafeInteger, toUsageCell, toUsageSums } from '../ledger-sql.js';
import { toKeySpendWindows, toKeysSpendWindows } from '../key-spend-sql.js';
import type { KeyFilter, LedgerRecord, LedgerStore, RecordedScope, SpendReservationInput, UsageDimension, UsageRange } from '../ledger-store.js';
import { budgetChargesOf } from '../budget-meter.js';
import type { BudgetHold, BudgetReservation, BudgetReservationInput } from '../budget-store.js';
import { sqliteMigrations } from '../migrations/sqlite-migrations.js';
import { migrateSqlite } from './migrate-sqlite.js';
import { guard as guardSqlite, openDatabase as openSqliteDatabase } from './create-sqlite-store.js';
import { prepareSqliteLedgerStatements, recordedScopeParams, type SqliteLedgerStatements } from './prepare-sqlite-ledger-statements.js';

export interface SqliteLedgerStoreOptions {
  /** The store's file, or `:memory:` (a private database of the ledger's own). */
  path: string;
  /** How long a write waits for another connection's lock (default 250 ms). */
  busyTimeoutMs?: number;
  /** When the migrations ran, for schema_migrations (ISO). */
  now: () => string;
}

export function createSqliteLedgerStore(options: SqliteLedgerStoreOptions): LedgerStore {
  const db = openSqliteDatabase(options.path, options.busyTimeoutMs ?? 250);
  let statements: SqliteLedgerStatements | undefined;
  const sql = (): SqliteLedgerStatements => (statements ??= prepareSqliteLedgerStatements(db));

  function write<A extends unknown[], R>(work: (...args: A) => R): (...args: A) => Promise<R> {
    const transaction = db.transaction(work);
    return async (...args) => guardSqlite(() => transaction.immediate(...args));
  }

  function read<A extends unknown[], R>(work: (...args: A) => R): (...args: A) => Promise<R> {
    return async (...args) => guardSqlite(() => work(...args));
  }

  const writeBatch = write((records: readonly LedgerRecord[]) => {
    const s = sql();
    const fresh = records.filter((record) => s.insertRecord.run(sqliteRecordRow(record)).changes > 0);
    for (const { key, counts } of rollUp(fresh)) s.upsertRollup.run({ ...key, ...counts });
    for (const { key, counts } of rollUpAttribution(fresh)) s.upsertAttribution.run({ ...key, ...counts });
    for (const spend of spendOf(fresh)) s.addSpend.run(spend);
    for (const charge of budgetChargesOf(fresh)) s.addBudgetCharge.run({ ...charge });
    for (const record of records) {
      if (record.reservationId === null) continue;
      s.deleteReservation.run(record.reservationId);
      s.deleteBudgetReservations.run(record.reservationId);
    }
    return { written: fresh.length };
  });

  const standing = (accountId: string, period: string, now: string) => ({
    spentNanoUsd: toSafeInteger(sql().readSpent.get(accountId, period) ?? 0),
    reservedNanoUsd: toSafeInteger(sql().readReserved.get(accountId, period, now) ?? 0),
  });

  const reserveSpend = write((input: SpendReservationInput) => {
    const before = standing(input.accountId, input.period, input.now);
    if (before.spentNanoUsd + before.reservedNanoUsd >= input.capNanoUsd) return { ...before, reserved: false };
    sql().insertReservation.run({ id: input.id, accountId: input.accountId, period: input.period, nanoUsd: input.nanoUsd, expiresAt: input.expiresAt });
    return { spentNanoUsd: before.spentNanoUsd, reservedNanoUsd: before.reservedNanoUsd + input.nanoUsd, reserved: true };
  });

  const budgetStanding = (accountId: string, hold: BudgetHold, now: string) => {
    const meter = sql().readBudgetMeter.get(accountId, hold.scope, hold.scopeId, hold.periodKey);
    const spent = meter === undefined ? 0 : hold.includeByok ? meter.spent_nano_usd : meter.managed_nano_usd;
    return { spentNanoUsd: toSafeInteger(spent), reservedNanoUsd: toSafeInteger(sql().readBudgetHeld.get(accountId, hold.scope, hold.scopeId, hold.periodKey, now) ?? 0) };
  };

  // One IMMEDIATE transaction: every process on the file checks and holds in turn, all holds or none.
  const reserveBudgets = write((input: BudgetReservationInput): BudgetReservation => {
    const cap = input.managedCap;
    if (cap) {
      const managed = standing(input.accountId, cap.period, input.now);
      if (managed.spentNanoUsd + managed.reservedNanoUsd >= cap.capNanoUsd) return { reserved: false, refusedBy: 'managed_cap', ...managed };
    }
    for (const hold of input.holds) {
      const standing = budgetStanding(input.accountId, hold, input.now);
      if (standing.spentNanoUsd + standing.reservedNanoUsd >= hold.limitNanoUsd) return { reserved: false, refusedBy: hold, ...standing };
    }
    if (cap) sql().insertReservation.run({ id: input.id, accountId: input.accountId, period: cap.period, nanoUsd: input.nanoUsd, expiresAt: input.expiresAt });
    for (const hold of input.holds) {
      sql().insertBudgetReservation.run({ id: input.id, accountId: input.accountId, scope: hold.scope, scopeId: hold.scopeId, periodKey: hold.periodKey, nanoUsd: input.nanoUsd, expiresAt: input.expiresAt });
    }
    return { reserved: true };
  });

  const recordConfigChange = write((input: { action: string; fingerprint: string; details: Record<string, unknown>; at: string }) => {
    const last = sql().lastAuditDetails.get(input.action);
    if (last !== undefined && (JSON.parse(last) as { fingerprint?: unknown }).fingerprint === input.fingerprint) return false;
    sql().insertAuditEvent.run({
      id: `evt_${randomBytes(12).toString('hex')}`,
      at: input.at,
      action: input.action,
      details: JSON.stringify({ ...input.details, fingerprint: input.fingerprint }),
    });
    return true;
  });

  return {
    kind: 'sqlite',
    migrate: read(() => migrateSqlite(db, sqliteMigrations, options.now())),
    ping: read(() => void sql().ping.get()),
    close: async () => void db.close(),

    writeBatch,
    reserveSpend,
    readSpend: read(standing),
    reserveBudgets,

    sumUsageByRange: read((accountId: string, ranges: readonly UsageRange[], keyIds?: KeyFilter) => {
      const json = JSON.stringify(ranges.map((range) => [range.label, range.from, range.to]));
      const keys = keysJson(keyIds);
      return sql().sumByRange.all(json, accountId, keys, keys).map(toUsageSums);
    }),
    sumUsageBy: read((accountId: string, from: string, to: string, dimension: UsageDimension, keyIds?: KeyFilter) => {
      const keys = keysJson(keyIds);
      return sql().sumBy[dimension].all(accountId, from, to, keys, keys).map(toUsageSums);
    }),
    sumUsageByRangeAnd: read((accountId: string, ranges: readonly UsageRange[], dimension: UsageDimension, keyIds?: KeyFilter) => {
      const json = JSON.stringify(ranges.map((range) => [range.label, range.from, range.to]));
      const keys = keysJson(keyIds);
      return sql().sumByRangeAnd[dimension].all(json, accountId, keys, keys).map(toUsageCell);
    }),
    sumAttributedUsage: read((accountId: string, ranges: readonly UsageRange[], keyIds?: KeyFilter) => {
      const json = JSON.stringify(ranges.map((range) => [range.label, range.from, range.to]));
      const keys = keysJson(keyIds);
      return sql().sumAttributed.all(json, accountId, keys, keys).map(toAttributedCell);
    }),
    sumKeySpend: read((accountId: string, keyId: string, since: Record<'day' | 'week' | 'month', string>) =>
      toKeySpendWindows(sql().sumKeySpend.get({ p1: accountId, p2: keyId, p3: since.day, p4: since.week, p5: since.month })),
    ),
    sumKeysSpend: read((accountId: string, keyIds: readonly string[], since: Record<'day' | 'week' | 'month', string>) =>
      toKeysSpendWindows(keyIds, sql().sumKeysSpend.all({ p1: accountId, p2: JSON.stringify(keyIds), p3: since.day, p4: since.week, p5: since.month })),
    ),
    lastUsedByKey: read((accountId: string) => sql().lastUsedByKey.all(accountId).map((row) => ({ keyId: row.key_id, lastAt: row.last_at }))),

    findRecords: read((filter: { requestId: string; accountId?: string }) =>
      sql().findRecords.all({ requestId: filter.requestId, accountId: filter.accountId ?? null }).map(toLedgerRecord),
    ),
    listRequests: read((filter: { accountId: string; before?: string; limit: number; keyIds?: KeyFilter; recorded?: RecordedScope }) =>
      sql()
        .listRequests.all({ accountId: filter.accountId, before: filter.before ?? null, limit: filter.limit, keys: keysJson(filter.keyIds), ...recordedScopeParams(filter.recorded) })
        .map(toLedgerRecord),
    ),
    countErrors: read((filter: { since: string; accountId?: string }) =>
      sql().countErrors.all({ sinceId: ledgerRecordIdFloor(Date.parse(filter.since)), accountId: filter.accountId ?? null }).map((row) => ({ code: row.code, count: row.count })),
    ),

    prune: write((input: { recordsBefore: string; now: string; limit: number }) => ({
      records: sql().pruneRecords.run(ledgerRecordIdFloor(Date.parse(input.recordsBefore)), input.limit).changes,
      reservations: sql().pruneReservations.run(input.now).changes + sql().pruneBudgetReservations.run(input.now).changes,
    })),
    recordConfigChange,
  };
}

/** A key filter as the statements take it: a JSON array, or NULL for every key. */
function keysJson(keyIds: KeyFilter | undefined): string | null {
  return keyIds === undefined ? null : JSON.stringify(keyIds);
}

const CLIENT_CLOSED = RECORD_COLUMNS.indexOf('client_closed');
const INSURED = RECORD_COLUMNS.indexOf('insured');

function sqliteRecordRow(record: LedgerRecord): unknown[] {
  const row: unknown[] = recordRow(record);
  // SQLite has no boolean type.
  row[CLIENT_CLOSED] = record.clientClosed ? 1 : 0;
  row[INSURED] = record.insured === true ? 1 : 0;
  return row;
}
