/**
 * How budgets are metered, the same for every dialect. Every record adds what it cost to its key's, its
 * workspace's (and its member's) meter rows for each period that holds its start, whether or not a budget
 * is set, so a budget set mid-month counts the month's spend so far. The ledger writes these rows in the
 * transaction that writes the records, and releases the budget reservations those records settle.
 */
import { allPeriodKeys } from './budget-periods.js';
import type { BudgetScope } from './budget-store.js';
import type { LedgerRecord } from './ledger-store.js';

/** What a batch adds to one meter row. */
export interface BudgetCharge {
  accountId: string;
  scope: BudgetScope;
  scopeId: string;
  periodKey: string;
  /** Every cost (own provider keys included). */
  spentNanoUsd: number;
  /** The managed-access part of it. */
  managedNanoUsd: number;
}

const DAY_MS = 86_400_000;

/**
 * The meter rows a batch adds to, summed per row (a multi-row upsert must not touch a row twice).
 * A record's rows follow from its subjects (account, key, workspace, member) and its UTC day (the day
 * fixes its week, month and total too), so records are summed per subject and day first: a batch of one
 * key's requests makes its period keys and row ids once, not per record (they were 3.5 KB allocated
 * per chat request, bench/measure-allocations.mjs).
 */
export function budgetChargesOf(records: readonly LedgerRecord[]): BudgetCharge[] {
  const sums = new Map<string, { record: LedgerRecord; atMs: number; spentNanoUsd: number; managedNanoUsd: number }>();
  for (const record of records) {
    const spent = record.budgetNanoUsd ?? record.costNanoUsd ?? 0;
    const managed = record.meteredNanoUsd;
    if (spent <= 0 && managed <= 0) continue;
    const atMs = Date.parse(record.startedAt);
    // An absent scope id is skipped below whether null, undefined or empty, so all three may share a sum.
    const id = `${record.accountId}\u0000${record.keyId ?? ''}\u0000${record.workspaceId ?? ''}\u0000${record.personId ?? ''}\u0000${Math.floor(atMs / DAY_MS)}`;
    let sum = sums.get(id);
    if (!sum) sums.set(id, (sum = { record, atMs, spentNanoUsd: 0, managedNanoUsd: 0 }));
    sum.spentNanoUsd += Math.max(spent, managed);
    sum.managedNanoUsd += managed;
  }
  const rows = new Map<string, BudgetCharge>();
  for (const { record, atMs, spentNanoUsd, managedNanoUsd } of sums.values()) {
    const scopes: [BudgetScope, string | null | undefined][] = [
      ['key', record.keyId],
      ['workspace', record.workspaceId],
      ['member', record.personId],
    ];
    for (const periodKey of allPeriodKeys(atMs)) {
      for (const [scope, scopeId] of scopes) {
        if (!scopeId) continue;
        const id = `${record.accountId}\u0000${scope}\u0000${scopeId}\u0000${periodKey}`;
        const row = rows.get(id) ?? { accountId: record.accountId, scope, scopeId, periodKey, spentNanoUsd: 0, managedNanoUsd: 0 };
        row.spentNanoUsd += spentNanoUsd;
        row.managedNanoUsd += managedNanoUsd;
        rows.set(id, row);
      }
    }
  }
  return [...rows.values()];
}

/** The reservation ids a batch settles (released in its transaction, as spend reservations are). */
export function settledReservationIds(records: readonly LedgerRecord[]): string[] {
  return records.flatMap((record) => (record.reservationId === null ? [] : [record.reservationId]));
}
