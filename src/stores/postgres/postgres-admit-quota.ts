/**
 * Monthly quota admission as ONE statement: read the account's current plan and status, look up that
 * plan's limit, and count the request only if the total stays within it. ON CONFLICT … DO UPDATE … WHERE
 * takes the counter row's lock, so concurrent statements from any number of instances serialize on it
 * and can never overrun the limit. The same statement holds units for a quota gate (column `held`).
 */
import { NotFoundInStoreError, type AccountStatus, type QuotaAdmission, type QuotaAdmitInput } from '../store.js';
import { queryRows, type Queryable } from './postgres-session.js';

const admitSql = (column: 'used' | 'held') => `
  WITH account AS (
    SELECT plan, status, COALESCE(($4::jsonb ->> plan)::bigint, 0) AS quota_limit
    FROM accounts WHERE id = $1
  ), counted AS (
    INSERT INTO quota_usage AS q (account_id, period, used, held)
    SELECT $1::text, $2::text, ${column === 'used' ? '$3::integer, 0' : '0, $3::integer'}
    FROM account WHERE status = 'active' AND $3::integer <= quota_limit
    ON CONFLICT (account_id, period) DO UPDATE SET ${column} = q.${column} + $3::integer
    WHERE q.used + q.held + $3::integer <= (SELECT quota_limit FROM account)
    RETURNING used + held AS committed
  )
  SELECT account.plan, account.status, account.quota_limit, counted.committed AS counted
  FROM account LEFT JOIN counted ON true`;

const ADMIT_SQL = admitSql('used');
const HOLD_SQL = admitSql('held');

interface AdmitRow {
  plan: string;
  status: AccountStatus;
  quota_limit: string;
  counted: number | null;
}

export async function readQuotaUsed(db: Queryable, accountId: string, period: string): Promise<number> {
  const rows = await queryRows<{ used: number }>(db, 'SELECT used FROM quota_usage WHERE account_id = $1 AND period = $2', [accountId, period]);
  return rows[0]?.used ?? 0;
}

export async function readQuotaCommitted(db: Queryable, accountId: string, period: string): Promise<number> {
  const sql = 'SELECT used + held AS committed FROM quota_usage WHERE account_id = $1 AND period = $2';
  const rows = await queryRows<{ committed: number }>(db, sql, [accountId, period]);
  return rows[0]?.committed ?? 0;
}

export async function postgresAdmitQuota(db: Queryable, input: QuotaAdmitInput, hold = false): Promise<QuotaAdmission> {
  const { accountId, period, weight } = input;
  const [row] = await queryRows<AdmitRow>(db, hold ? HOLD_SQL : ADMIT_SQL, [accountId, period, weight, JSON.stringify(input.limitsByPlan)]);
  if (!row) throw new NotFoundInStoreError('account', accountId);
  const decided = { plan: row.plan, status: row.status, limit: Number(row.quota_limit) };
  if (row.counted !== null) return { ...decided, admitted: true, used: row.counted };
  // A fresh read: the statement's own snapshot may predate the increments that made it fail.
  return { ...decided, admitted: false, used: await readQuotaCommitted(db, accountId, period) };
}
