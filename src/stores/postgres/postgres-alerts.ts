/** The PostgreSQL side of AlertStore, on the store's pool. */
import type { Pool } from 'pg';
import { isAlertKind, type AlertKind, type AlertRecord, type AlertStore } from '../alert-store.js';
import type { PostgresHelpers } from './postgres-account-auth.js';
import { queryRows } from './postgres-session.js';

interface AlertRow { id: string; account_id: string; kind: string; subject: string; period: string; level: number; details: AlertRecord['details']; created_at: Date }

const toAlert = (row: AlertRow): AlertRecord => ({
  id: row.id,
  accountId: row.account_id,
  kind: row.kind as AlertKind,
  subject: row.subject,
  period: row.period,
  level: row.level,
  details: row.details,
  createdAt: row.created_at.toISOString(),
});

export function createPostgresAlerts(pool: Pool, helpers: PostgresHelpers): AlertStore {
  return {
    recordAlert: async (input, at) => {
      const [row] = await queryRows<AlertRow>(
        pool,
        `INSERT INTO account_alerts (id, account_id, kind, subject, period, level, details, created_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
         ON CONFLICT (account_id, kind, subject, period, level) DO NOTHING RETURNING *`,
        [helpers.newId('alert_'), input.accountId, input.kind, input.subject, input.period, input.level, JSON.stringify(input.details), at],
      );
      return row ? toAlert(row) : null;
    },
    listAlerts: async (accountId, limit) =>
      (await queryRows<AlertRow>(pool, 'SELECT * FROM account_alerts WHERE account_id = $1 ORDER BY created_at DESC, id DESC LIMIT $2', [accountId, limit])).map(toAlert),
    getAlertEmailKinds: async (accountId) => {
      const [row] = await queryRows<{ email_kinds: string }>(pool, 'SELECT email_kinds FROM alert_preferences WHERE account_id = $1', [accountId]);
      return row ? row.email_kinds.split(',').filter(isAlertKind) : null;
    },
    setAlertEmailKinds: async (accountId, kinds, at) => {
      await queryRows(
        pool,
        `INSERT INTO alert_preferences (account_id, email_kinds, updated_at) VALUES ($1, $2, $3)
         ON CONFLICT (account_id) DO UPDATE SET email_kinds = EXCLUDED.email_kinds, updated_at = EXCLUDED.updated_at`,
        [accountId, kinds.join(','), at],
      );
    },
  };
}
