/** The PostgreSQL side of BillingStore: each change locks the account's billing row (or the account) first. */
import type { Pool } from 'pg';
import type { BillingChangeResult, BillingRecord, BillingStore } from '../billing-store.js';
import { NotFoundInStoreError } from '../store.js';
import type { PostgresHelpers } from './postgres-account-auth.js';
import { toAccount, type AccountRow } from './postgres-rows.js';
import { inTransaction, queryRows } from './postgres-session.js';

interface BillingRow {
  account_id: string;
  customer_id: string | null;
  subscription_id: string | null;
  status: string | null;
  paid_plan: string | null;
  current_period_end: Date | null;
  cancel_at_period_end: boolean;
  past_due_since: Date | null;
  kept_plan: string | null;
  kept_until: Date | null;
  next_change_at: Date | null;
  last_event_id: string | null;
  version: number;
  updated_at: Date;
}

const iso = (at: Date | null): string | null => (at === null ? null : at.toISOString());

const toRecord = (row: BillingRow): BillingRecord => ({
  accountId: row.account_id,
  customerId: row.customer_id,
  subscriptionId: row.subscription_id,
  status: row.status,
  paidPlan: row.paid_plan,
  currentPeriodEnd: iso(row.current_period_end),
  cancelAtPeriodEnd: row.cancel_at_period_end,
  pastDueSince: iso(row.past_due_since),
  keptPlan: row.kept_plan,
  keptUntil: iso(row.kept_until),
  nextChangeAt: iso(row.next_change_at),
  lastEventId: row.last_event_id,
  version: row.version,
  updatedAt: row.updated_at.toISOString(),
});

/** Thrown inside the transaction to roll the event id back with everything else. */
class VersionConflict extends Error {}

export function createPostgresBilling(pool: Pool, helpers: PostgresHelpers): BillingStore {
  const { audit, nowIso } = helpers;
  return {
    getBillingRecord: async (accountId) => {
      const [row] = await queryRows<BillingRow>(pool, 'SELECT * FROM billing_accounts WHERE account_id = $1', [accountId]);
      return row ? toRecord(row) : null;
    },
    hasBillingEvent: async (eventId) => (await queryRows(pool, 'SELECT 1 FROM billing_events WHERE event_id = $1', [eventId])).length > 0,
    saveBillingChange: async (change) => {
      try {
        return await inTransaction(pool, async (db): Promise<BillingChangeResult> => {
          const at = nowIso();
          // The account row is locked first: every change of one account's billing queues here.
          const [account] = await queryRows<AccountRow>(db, 'SELECT * FROM accounts WHERE id = $1 FOR UPDATE', [change.accountId]);
          if (!account) throw new NotFoundInStoreError('account', change.accountId);
          if (change.event) {
            const inserted = await queryRows(
              db,
              'INSERT INTO billing_events (event_id, type, account_id, received_at) VALUES ($1, $2, $3, $4) ON CONFLICT (event_id) DO NOTHING RETURNING event_id',
              [change.event.id, change.event.type, change.accountId, at],
            );
            if (inserted.length === 0) return { outcome: 'duplicate' };
          }
          const [before] = await queryRows<BillingRow>(db, 'SELECT * FROM billing_accounts WHERE account_id = $1', [change.accountId]);
          if ((before?.version ?? 0) !== change.expectedVersion) throw new VersionConflict();
          const { facts } = change;
          await queryRows(
            db,
            `INSERT INTO billing_accounts (account_id, customer_id, subscription_id, status, paid_plan, current_period_end, cancel_at_period_end,
               past_due_since, kept_plan, kept_until, next_change_at, last_event_id, version, updated_at)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)
             ON CONFLICT (account_id) DO UPDATE SET customer_id = EXCLUDED.customer_id, subscription_id = EXCLUDED.subscription_id,
               status = EXCLUDED.status, paid_plan = EXCLUDED.paid_plan, current_period_end = EXCLUDED.current_period_end,
               cancel_at_period_end = EXCLUDED.cancel_at_period_end, past_due_since = EXCLUDED.past_due_since, kept_plan = EXCLUDED.kept_plan,
               kept_until = EXCLUDED.kept_until, next_change_at = EXCLUDED.next_change_at, last_event_id = EXCLUDED.last_event_id,
               version = EXCLUDED.version, updated_at = EXCLUDED.updated_at`,
            [
              change.accountId,
              facts.customerId,
              facts.subscriptionId,
              facts.status,
              facts.paidPlan,
              facts.currentPeriodEnd,
              facts.cancelAtPeriodEnd,
              facts.pastDueSince,
              facts.keptPlan,
              facts.keptUntil,
              facts.nextChangeAt,
              change.event?.id ?? before?.last_event_id ?? null,
              change.expectedVersion + 1,
              at,
            ],
          );
          const planChanged = account.plan !== change.plan;
          let after = account;
          if (planChanged) {
            [after = account] = await queryRows<AccountRow>(db, 'UPDATE accounts SET plan = $1 WHERE id = $2 RETURNING *', [change.plan, change.accountId]);
            await audit(db, change.actor, 'account.set_plan', change.accountId, null, { from: account.plan, to: change.plan, ...change.details });
          }
          await audit(db, change.actor, 'billing.update', change.accountId, null, change.details);
          return { outcome: 'applied', account: toAccount(after), planChanged };
        });
      } catch (error) {
        if (error instanceof VersionConflict) return { outcome: 'conflict' };
        throw error;
      }
    },
    listDueBillingRecords: async (nowIsoValue, limit) => {
      const rows = await queryRows<BillingRow>(
        pool,
        'SELECT * FROM billing_accounts WHERE next_change_at IS NOT NULL AND next_change_at <= $1 ORDER BY next_change_at, account_id LIMIT $2',
        [nowIsoValue, limit],
      );
      return rows.map(toRecord);
    },
  };
}
