import type { VersionedMigration } from './versioned-migration.js';

/**
 * Usage attribution (docs/teams.md#usage-by-member-and-workspace): usage sums per quarter hour, key and
 * the person and workspace the key belonged to when each request ran, so a key moved to another
 * workspace or handed to an admin at a member's removal leaves its past usage where it was caused.
 * usage_records has carried the two since versions 12 and 13; the rollups every view reads did not.
 *
 * A table of its own rather than two columns on usage_rollups: the rollups' primary key is what the
 * previous release's upsert names in ON CONFLICT, and a key changing hands inside a quarter hour needs
 * two rows, so the columns would have to join that key (a table rebuild, a contract step). Additive: the
 * previous release never reads this table and keeps writing usage_rollups, and what it writes during a
 * rolling upgrade is simply not attributed; readers give usage_rollups less this table's sums (rows
 * from before this version, or from the previous release) to the key's current holder. '' is "none"
 * (a key the operator made has no person), as in usage_rollups' key columns.
 */
const table = (time: 'TEXT' | 'TIMESTAMPTZ', int: 'INTEGER' | 'BIGINT'): string => `
  CREATE TABLE usage_attribution_rollups (
    account_id TEXT NOT NULL,
    bucket_start ${time} NOT NULL,
    key_id TEXT NOT NULL,
    person_id TEXT NOT NULL,
    workspace_id TEXT NOT NULL,
    ${SUMS.map((column) => `${column} ${int} NOT NULL DEFAULT 0`).join(',\n    ')},
    last_at ${time} NOT NULL,
    PRIMARY KEY (account_id, bucket_start, key_id, person_id, workspace_id)
  );
`;

/** The summed columns, as in usage_rollups (ledger-sql.ts ROLLUP_SUM_COLUMNS at this version). */
const SUMS = [
  'requests',
  'failed_requests',
  'calls',
  'prompt_tokens',
  'completion_tokens',
  'reasoning_tokens',
  'cached_tokens',
  'unknown_usage_calls',
  'unpriced_calls',
  'cost_nano_usd',
  'metered_nano_usd',
  'cache_write_tokens',
  'cache_write_1h_tokens',
  'input_cost_nano_usd',
  'cache_read_cost_nano_usd',
  'cache_write_cost_nano_usd',
  'cache_write_1h_cost_nano_usd',
  'output_cost_nano_usd',
  'reasoning_cost_nano_usd',
  'cache_savings_nano_usd',
  'server_tools_cost_nano_usd',
  'response_cache_hits',
  'response_cache_saved_nano_usd',
];

export const v18UsageAttribution: VersionedMigration = {
  version: 18,
  name: 'usage attributed to the person and workspace of the key when it was used',
  sqlite: table('TEXT', 'INTEGER'),
  postgres: table('TIMESTAMPTZ', 'BIGINT'),
};
