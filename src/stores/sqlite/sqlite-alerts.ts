/** The SQLite side of AlertStore, on the store's connection. */
import type { Database } from 'better-sqlite3';
import { isAlertKind, type AlertInput, type AlertKind, type AlertRecord, type AlertStore } from '../alert-store.js';
import type { SqliteHelpers } from './sqlite-account-auth.js';

interface AlertRow { id: string; account_id: string; kind: string; subject: string; period: string; level: number; details: string; created_at: string }

const toAlert = (row: AlertRow): AlertRecord => ({
  id: row.id,
  accountId: row.account_id,
  kind: row.kind as AlertKind,
  subject: row.subject,
  period: row.period,
  level: row.level,
  details: JSON.parse(row.details) as AlertRecord['details'],
  createdAt: row.created_at,
});

function prepare(db: Database) {
  return {
    insert: db.prepare<[AlertRow], AlertRow>(
      `INSERT INTO account_alerts (id, account_id, kind, subject, period, level, details, created_at)
       VALUES (@id, @account_id, @kind, @subject, @period, @level, @details, @created_at)
       ON CONFLICT (account_id, kind, subject, period, level) DO NOTHING RETURNING *`,
    ),
    list: db.prepare<[string, number], AlertRow>('SELECT * FROM account_alerts WHERE account_id = ? ORDER BY created_at DESC, id DESC LIMIT ?'),
    getKinds: db.prepare<[string], string>('SELECT email_kinds FROM alert_preferences WHERE account_id = ?').pluck(),
    setKinds: db.prepare<[string, string, string], unknown>(
      `INSERT INTO alert_preferences (account_id, email_kinds, updated_at) VALUES (?, ?, ?)
       ON CONFLICT (account_id) DO UPDATE SET email_kinds = excluded.email_kinds, updated_at = excluded.updated_at`,
    ),
  };
}

export function createSqliteAlerts(db: Database, helpers: SqliteHelpers): AlertStore {
  const { write, guarded, newId } = helpers;
  let statements: ReturnType<typeof prepare> | undefined;
  const sql = () => (statements ??= prepare(db));
  return {
    recordAlert: write((input: AlertInput, at: string) => {
      const row = sql().insert.get({
        id: newId('alert_'),
        account_id: input.accountId,
        kind: input.kind,
        subject: input.subject,
        period: input.period,
        level: input.level,
        details: JSON.stringify(input.details),
        created_at: at,
      });
      return row ? toAlert(row) : null;
    }),
    listAlerts: guarded((accountId: string, limit: number) => sql().list.all(accountId, limit).map(toAlert)),
    getAlertEmailKinds: guarded((accountId: string) => {
      const kinds = sql().getKinds.get(accountId);
      return kinds === undefined ? null : kinds.split(',').filter(isAlertKind);
    }),
    setAlertEmailKinds: write((accountId: string, kinds: readonly AlertKind[], at: string) => {
      sql().setKinds.run(accountId, kinds.join(','), at);
    }),
  };
}
