/**
 * The SQL of a key's spend windows (GET /v1/key's usage figures, key limits), the same in SQLite and
 * PostgreSQL, and the mapping of its one row.
 */
import type { KeySpendWindows } from './ledger-store.js';
import { toSafeInteger, type Int } from './ledger-sql.js';

/**
 * A key's cost split by credential source, all time and since three instants (day, week, month), as one
 * row. `param(n)` writes the dialect's n-th placeholder (1: account, 2: key, 3–5: day, week, month).
 */
export function keySpendSql(param: (n: number) => string): string {
  return `SELECT ${spendColumns(param)} FROM usage_rollups WHERE account_id = ${param(1)} AND key_id = ${param(2)}`;
}

/**
 * The same sums for several keys of an account in one query, a row per key that has usage (`key_id`
 * first). `keyIn` is the dialect's test of key_id against the list passed as placeholder 2 (GET
 * /api/v1/keys: a fixed number of queries per page, not one per key).
 */
export function keysSpendSql(param: (n: number) => string, keyIn: string): string {
  return `SELECT key_id, ${spendColumns(param)} FROM usage_rollups WHERE account_id = ${param(1)} AND ${keyIn} GROUP BY key_id`;
}

function spendColumns(param: (n: number) => string): string {
  const byok = "credential_source = 'byok'";
  const windows = [
    ['total', 'TRUE'],
    ['day', `bucket_start >= ${param(3)}`],
    ['week', `bucket_start >= ${param(4)}`],
    ['month', `bucket_start >= ${param(5)}`],
  ];
  const columns = windows.flatMap(([name, since]) => [
    `COALESCE(SUM(CASE WHEN ${since} AND NOT ${byok} THEN cost_nano_usd ELSE 0 END), 0) AS ${name}_managed`,
    `COALESCE(SUM(CASE WHEN ${since} AND ${byok} THEN cost_nano_usd ELSE 0 END), 0) AS ${name}_byok`,
  ]);
  return columns.join(', ');
}

/** The row keySpendSql returns (sums as numbers, or as the strings PostgreSQL gives 64-bit sums as). */
export type KeySpendRow = Record<`${'total' | 'day' | 'week' | 'month'}_${'managed' | 'byok'}`, Int>;

/** keysSpendSql's rows by key; a key without usage gets zeros. */
export function toKeysSpendWindows(keyIds: readonly string[], rows: ReadonlyArray<KeySpendRow & { key_id: string }>): Map<string, KeySpendWindows> {
  const byKey = new Map(rows.map((row) => [row.key_id, row]));
  return new Map(keyIds.map((keyId) => [keyId, toKeySpendWindows(byKey.get(keyId))]));
}

export function toKeySpendWindows(row: KeySpendRow | undefined): KeySpendWindows {
  const of = (name: 'total' | 'day' | 'week' | 'month') => ({ managedNanoUsd: toSafeInteger(row?.[`${name}_managed`] ?? 0), byokNanoUsd: toSafeInteger(row?.[`${name}_byok`] ?? 0) });
  return { total: of('total'), day: of('day'), week: of('week'), month: of('month') };
}
