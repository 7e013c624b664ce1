/**
 * The usage ledger on SQLite: its own connection to the store's file (WAL lets it write beside the
 * main store), a short busy timeout so a flush never holds the event loop for long (a busy file fails
 * the flush, and the writer retries it at the next interval), and one IMMEDIATE transaction per batch.
 */
import { randomBytes } from 'node:crypto';
import { ledgerRecordIdFloor } from '../ledger-record-ids.js';
import { rollUp, spendOf } from '../ledger-rollup.js';
import { recordValues, toLedgerRecord, toSafeInteger, toUsageCell, toUsageSums } from '../ledger-sql.js';
import type { LedgerRecord, LedgerStore, SpendReservationInput, UsageDimension, UsageRange } from '../ledger-store.js';
import { sqliteMigrations } from '../migrations/sqlite-migrations.js';
import { migrateSqlite } from './migrate-sqlite.js';
import { guard as guardSqlite, openDatabase as openSqliteDatabase } from './create-sqlite-store.js';
import { prepareSqliteLedgerStatements, type SqliteLedgerStatements } from './prepare-sqlite-ledger-statements.js';

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
    const fresh = records.filter((record) => s.insertRecord.run(sqliteRecordValues(record)).changes > 0);
    for (const { key, counts } of rollUp(fresh)) s.upsertRollup.run({ ...key, ...counts });
    for (const spend of spendOf(fresh)) s.addSpend.run(spend);
    for (const record of records) if (record.reservationId !== null) s.deleteReservation.run(record.reservationId);
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

    sumUsageByRange: read((accountId: string, ranges: readonly UsageRange[]) => {
      const json = JSON.stringify(ranges.map((range) => [range.label, range.from, range.to]));
      return sql().sumByRange.all(json, accountId).map(toUsageSums);
    }),
    sumUsageBy: read((accountId: string, from: string, to: string, dimension: UsageDimension) =>
      sql().sumBy[dimension].all(accountId, from, to).map(toUsageSums),
    ),
    sumUsageByRangeAnd: read((accountId: string, ranges: readonly UsageRange[], dimension: UsageDimension, keyId?: string) => {
      const json = JSON.stringify(ranges.map((range) => [range.label, range.from, range.to]));
      return sql().sumByRangeAnd[dimension].all(json, accountId, keyId ?? null, keyId ?? null).map(toUsageCell);
    }),
    lastUsedByKey: read((accountId: string) => sql().lastUsedByKey.all(accountId).map((row) => ({ keyId: row.key_id, lastAt: row.last_at }))),

    findRecords: read((filter: { requestId: string; accountId?: string }) =>
      sql().findRecords.all({ requestId: filter.requestId, accountId: filter.accountId ?? null }).map(toLedgerRecord),
    ),
    listRequests: read((filter: { accountId: string; before?: string; limit: number }) =>
      sql().listRequests.all({ accountId: filter.accountId, before: filter.before ?? null, limit: filter.limit }).map(toLedgerRecord),
    ),
    countErrors: read((filter: { since: string; accountId?: string }) =>
      sql().countErrors.all({ sinceId: ledgerRecordIdFloor(Date.parse(filter.since)), accountId: filter.accountId ?? null }).map((row) => ({ code: row.code, count: row.count })),
    ),

    prune: write((input: { recordsBefore: string; now: string; limit: number }) => ({
      records: sql().pruneRecords.run(ledgerRecordIdFloor(Date.parse(input.recordsBefore)), input.limit).changes,
      reservations: sql().pruneReservations.run(input.now).changes,
    })),
    recordConfigChange,
  };
}

function sqliteRecordValues(record: LedgerRecord): Record<string, unknown> {
  const values: Record<string, unknown> = recordValues(record);
  // SQLite has no boolean type.
  values.client_closed = record.clientClosed ? 1 : 0;
  return values;
}
