/** The SQLite side of BillingStore, on the store's connection and IMMEDIATE transactions. */
import type { Database } from 'better-sqlite3';
import type { BillingChange, BillingChangeResult, BillingRecord, BillingStore } from '../billing-store.js';
import { NotFoundInStoreError } from '../store.js';
import type { SqliteHelpers } from './sqlite-account-auth.js';
import { toAccount, type AccountRow } from './sqlite-rows.js';

interface BillingRow {
  account_id: string;
  customer_id: string | null;
  subscription_id: string | null;
  status: string | null;
  paid_plan: string | null;
  current_period_end: string | null;
  cancel_at_period_end: number;
  past_due_since: string | null;
  kept_plan: string | null;
  kept_until: string | null;
  next_change_at: string | null;
  last_event_id: string | null;
  version: number;
  updated_at: string;
}

const toRecord = (row: BillingRow): BillingRecord => ({
  accountId: row.account_id,
  customerId: row.customer_id,
  subscriptionId: row.subscription_id,
  status: row.status,
  paidPlan: row.paid_plan,
  currentPeriodEnd: row.current_period_end,
  cancelAtPeriodEnd: row.cancel_at_period_end === 1,
  pastDueSince: row.past_due_since,
  keptPlan: row.kept_plan,
  keptUntil: row.kept_until,
  nextChangeAt: row.next_change_at,
  lastEventId: row.last_event_id,
  version: row.version,
  updatedAt: row.updated_at,
});

function prepare(db: Database) {
  return {
    get: db.prepare<[string], BillingRow>('SELECT * FROM billing_accounts WHERE account_id = ?'),
    hasEvent: db.prepare<[string], number>('SELECT 1 FROM billing_events WHERE event_id = ?').pluck(),
    insertEvent: db.prepare<[string, string, string, string], unknown>(
      'INSERT INTO billing_events (event_id, type, account_id, received_at) VALUES (?, ?, ?, ?) ON CONFLICT (event_id) DO NOTHING',
    ),
    upsert: db.prepare<[BillingRow], unknown>(
      `INSERT INTO billing_accounts (account_id, customer_id, subscription_id, status, paid_plan, current_period_end, cancel_at_period_end,
         past_due_since, kept_plan, kept_until, next_change_at, last_event_id, version, updated_at)
       VALUES (@account_id, @customer_id, @subscription_id, @status, @paid_plan, @current_period_end, @cancel_at_period_end,
         @past_due_since, @kept_plan, @kept_until, @next_change_at, @last_event_id, @version, @updated_at)
       ON CONFLICT (account_id) DO UPDATE SET customer_id = excluded.customer_id, subscription_id = excluded.subscription_id,
         status = excluded.status, paid_plan = excluded.paid_plan, current_period_end = excluded.current_period_end,
         cancel_at_period_end = excluded.cancel_at_period_end, past_due_since = excluded.past_due_since, kept_plan = excluded.kept_plan,
         kept_until = excluded.kept_until, next_change_at = excluded.next_change_at, last_event_id = excluded.last_event_id,
         version = excluded.version, updated_at = excluded.updated_at`,
    ),
    due: db.prepare<[string, number], BillingRow>(
      'SELECT * FROM billing_accounts WHERE next_change_at IS NOT NULL AND next_change_at <= ? ORDER BY next_change_at, account_id LIMIT ?',
    ),
    getAccount: db.prepare<[string], AccountRow>('SELECT * FROM accounts WHERE id = ?'),
    setPlan: db.prepare<[string, string], AccountRow>('UPDATE accounts SET plan = ? WHERE id = ? RETURNING *'),
  };
}

/** Thrown inside the transaction to roll the event id back with everything else. */
class VersionConflict extends Error {}

export function createSqliteBilling(db: Database, helpers: SqliteHelpers): BillingStore {
  const { write, guarded, audit, nowIso } = helpers;
  let statements: ReturnType<typeof prepare> | undefined;
  const sql = () => (statements ??= prepare(db));

  const save = write((change: BillingChange): BillingChangeResult => {
    const at = nowIso();
    const account = sql().getAccount.get(change.accountId);
    if (!account) throw new NotFoundInStoreError('account', change.accountId);
    if (change.event && sql().insertEvent.run(change.event.id, change.event.type, change.accountId, at).changes === 0) return { outcome: 'duplicate' };
    const before = sql().get.get(change.accountId);
    if ((before?.version ?? 0) !== change.expectedVersion) throw new VersionConflict();
    const { facts } = change;
    sql().upsert.run({
      account_id: change.accountId,
      customer_id: facts.customerId,
      subscription_id: facts.subscriptionId,
      status: facts.status,
      paid_plan: facts.paidPlan,
      current_period_end: facts.currentPeriodEnd,
      cancel_at_period_end: facts.cancelAtPeriodEnd ? 1 : 0,
      past_due_since: facts.pastDueSince,
      kept_plan: facts.keptPlan,
      kept_until: facts.keptUntil,
      next_change_at: facts.nextChangeAt,
      last_event_id: change.event?.id ?? before?.last_event_id ?? null,
      version: change.expectedVersion + 1,
      updated_at: at,
    });
    const planChanged = account.plan !== change.plan;
    const after = planChanged ? (sql().setPlan.get(change.plan, change.accountId) ?? account) : account;
    if (planChanged) audit(change.actor, 'account.set_plan', change.accountId, null, { from: account.plan, to: change.plan, ...change.details });
    audit(change.actor, 'billing.update', change.accountId, null, change.details);
    return { outcome: 'applied', account: toAccount(after), planChanged };
  });

  return {
    getBillingRecord: guarded((accountId: string) => {
      const row = sql().get.get(accountId);
      return row ? toRecord(row) : null;
    }),
    hasBillingEvent: guarded((eventId: string) => sql().hasEvent.get(eventId) === 1),
    saveBillingChange: async (change) => {
      try {
        return await save(change);
      } catch (error) {
        if (error instanceof VersionConflict) return { outcome: 'conflict' };
        throw error;
      }
    },
    listDueBillingRecords: guarded((nowIso: string, limit: number) => sql().due.all(nowIso, limit).map(toRecord)),
  };
}
