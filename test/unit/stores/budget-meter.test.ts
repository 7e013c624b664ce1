import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { budgetChargesOf, type BudgetCharge } from '../../../src/stores/budget-meter.js';
import { allPeriodKeys } from '../../../src/stores/budget-periods.js';
import type { LedgerRecord } from '../../../src/stores/ledger-store.js';

/** The meter rows as first written: each record charged to each of its rows on its own. */
function chargedOneByOne(records: readonly LedgerRecord[]): Map<string, BudgetCharge> {
  const rows = new Map<string, BudgetCharge>();
  for (const record of records) {
    const spent = record.budgetNanoUsd ?? record.costNanoUsd ?? 0;
    const managed = record.meteredNanoUsd;
    if (spent <= 0 && managed <= 0) continue;
    for (const periodKey of allPeriodKeys(Date.parse(record.startedAt))) {
      for (const [scope, scopeId] of [['key', record.keyId], ['workspace', record.workspaceId], ['member', record.personId]] as const) {
        if (!scopeId) continue;
        const id = [record.accountId, scope, scopeId, periodKey].join('|');
        const row = rows.get(id) ?? { accountId: record.accountId, scope, scopeId, periodKey, spentNanoUsd: 0, managedNanoUsd: 0 };
        row.spentNanoUsd += Math.max(spent, managed);
        row.managedNanoUsd += managed;
        rows.set(id, row);
      }
    }
  }
  return rows;
}

const byRow = (charges: readonly BudgetCharge[]) => new Map(charges.map((charge) => [[charge.accountId, charge.scope, charge.scopeId, charge.periodKey].join('|'), charge]));

// Few ids and a few days around month and week ends, so records share rows (and sums) often.
const recordArb = fc.record({
  accountId: fc.constantFrom('acct_a', 'acct_b'),
  keyId: fc.constantFrom('key_1', 'key_2', null),
  workspaceId: fc.constantFrom('ws_1', 'ws_2', null, undefined, ''),
  personId: fc.constantFrom('per_1', null, undefined),
  startedAt: fc.integer({ min: Date.UTC(2026, 10, 28), max: Date.UTC(2026, 11, 3) }).map((ms) => new Date(ms).toISOString()),
  costNanoUsd: fc.option(fc.integer({ min: -5, max: 1_000_000 }), { nil: null }),
  budgetNanoUsd: fc.option(fc.integer({ min: 0, max: 1_000_000 }), { nil: undefined }),
  meteredNanoUsd: fc.integer({ min: 0, max: 1_000_000 }),
});

describe('budget meter rows of a batch', () => {
  it('equal charging each record to each of its rows on its own, for any batch', () => {
    fc.assert(
      fc.property(fc.array(recordArb, { maxLength: 40 }), (records) => {
        const batch = records as unknown as LedgerRecord[];
        const charges = budgetChargesOf(batch);
        expect(byRow(charges)).toEqual(chargedOneByOne(batch));
        expect(charges).toHaveLength(new Set(charges.map((c) => [c.accountId, c.scope, c.scopeId, c.periodKey].join('|'))).size);
      }),
      { numRuns: 300 },
    );
  });

  it('charges one record to its day, week, month and total rows of each scope it has', () => {
    const record = { accountId: 'acct_a', keyId: 'key_1', workspaceId: 'ws_1', personId: null, startedAt: '2026-11-30T23:59:59.999Z', costNanoUsd: 7, meteredNanoUsd: 3 } as unknown as LedgerRecord;
    const keys = budgetChargesOf([record, { ...record, startedAt: '2026-12-01T00:00:00.000Z' }]).map((c) => `${c.scope} ${c.periodKey} ${c.spentNanoUsd}`);
    expect(keys.sort()).toEqual(
      [
        'key d:2026-11-30 7', 'key w:2026-11-30 14', 'key m:2026-11 7', 'key t 14', 'key d:2026-12-01 7', 'key m:2026-12 7',
        'workspace d:2026-11-30 7', 'workspace w:2026-11-30 14', 'workspace m:2026-11 7', 'workspace t 14', 'workspace d:2026-12-01 7', 'workspace m:2026-12 7',
      ].sort(),
    );
  });
});
