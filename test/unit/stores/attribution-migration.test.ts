/**
 * Migration 18 (usage attribution) on a database from version 17 with usage records and rollups, on
 * SQLite and PostgreSQL: no existing row changes, the new table starts empty, usage from before reads by
 * the key's current holder, and so does what the previous release still writes during a rolling upgrade
 * (records and rollups only); what this release writes counts for the person and workspace recorded.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import type { LedgerStore } from '../../../src/stores/ledger-store.js';
import { postgresMigrations } from '../../../src/stores/migrations/postgres-migrations.js';
import { sqliteMigrations } from '../../../src/stores/migrations/sqlite-migrations.js';
import { createPool } from '../../../src/stores/postgres/create-postgres-pool.js';
import { createPostgresLedgerStore } from '../../../src/stores/postgres/create-postgres-ledger-store.js';
import { migratePostgres } from '../../../src/stores/postgres/migrate-postgres.js';
import { createSqliteLedgerStore } from '../../../src/stores/sqlite/create-sqlite-ledger-store.js';
import { migrateSqlite } from '../../../src/stores/sqlite/migrate-sqlite.js';
import type { TeamDirectory } from '../../../src/usage/usage-attribution.js';
import { usageReport } from '../../../src/usage/usage-report.js';
import { ledgerRecord } from '../../contracts/ledger-store-contract.js';
import { dropSchemas } from '../../support/service-cleanup.js';

const BEFORE = 17;
const AT = '2026-11-10T10:00:00.000Z';

/** A record and its rollup as version 17 wrote them (the previous release writes the same after the upgrade). */
function v17Usage(id: string, at: string, key: string, bool: (value: boolean) => string): string {
  return `
    INSERT INTO usage_records (id, request_id, call, started_at, account_id, key_id, route_id, endpoint, provider_id, upstream_model, credential_source, status, retry_count, attempts, prompt_tokens, completion_tokens, cost_nano_usd, metered_nano_usd, total_ms, client_closed, person_id, workspace_id)
      VALUES ('${id}', 'req_${id}', 'main', '${at}', 'acct_a', '${key}', 'auto', 'chat', 'openai', 'gpt-4.1', 'byok', 200, 0, '[]', 10, 20, 1500, 0, 120, ${bool(false)}, 'psn_gone', 'wks_old');
    INSERT INTO usage_rollups (account_id, bucket_start, key_id, route_id, provider_id, upstream_model, credential_source, requests, failed_requests, calls, prompt_tokens, completion_tokens, reasoning_tokens, cached_tokens, unknown_usage_calls, unpriced_calls, cost_nano_usd, metered_nano_usd, last_at)
      VALUES ('acct_a', '${at}', '${key}', 'auto', 'openai', 'gpt-4.1', 'byok', 1, 0, 1, 10, 20, 0, 0, 0, 0, 1500, 0, '${at}')
      ON CONFLICT (account_id, bucket_start, key_id, route_id, provider_id, upstream_model, credential_source) DO UPDATE SET requests = usage_rollups.requests + 1, calls = usage_rollups.calls + 1, cost_nano_usd = usage_rollups.cost_nano_usd + 1500;`;
}

// key_1 is held by the admin now, in the workspace it moved to.
const directory: TeamDirectory = {
  keys: [{ keyId: 'key_1', personId: 'psn_admin', workspaceId: 'wks_new' }],
  people: new Map([['psn_admin', 'admin@example.com'], ['psn_gone', 'gone@example.com']]),
  workspaces: new Map([['wks_old', 'Old'], ['wks_new', 'New']]),
};

type Snapshot = () => Promise<Record<string, unknown[]>>;

async function checkMigration(ledger: LedgerStore, snapshot: Snapshot, exec: (sql: string) => Promise<void>, bool: (value: boolean) => string): Promise<void> {
  const before = await snapshot();
  expect(before.usage_rollups).toHaveLength(1);
  await ledger.migrate();
  expect(await snapshot()).toEqual(before);
  const query = { accountId: 'acct_a', from: '2026-11-10', to: '2026-11-10', tz: 'UTC', directory } as const;
  const rows = async (by: 'member' | 'workspace') => (await usageReport(ledger, { ...query, by })).rows.map((row) => [row.group, row.requests, row.costNanoUsd]);
  // Before version 18 nothing was attributed: the key's current holder and workspace.
  expect(await rows('member')).toEqual([['psn_admin', 1, 1500]]);
  expect(await ledger.sumAttributedUsage('acct_a', [{ label: 'd', from: '2026-11-10T00:00:00.000Z', to: '2026-11-11T00:00:00.000Z' }])).toEqual([]);

  // Rolling upgrade: the previous release writes a record and its rollup; this release writes one attributed to who caused it.
  await exec(v17Usage('u2', '2026-11-10T11:00:00.000Z', 'key_1', bool));
  await ledger.writeBatch([ledgerRecord({ startedAt: '2026-11-10T11:01:00.000Z', accountId: 'acct_a', keyId: 'key_1', personId: 'psn_gone', workspaceId: 'wks_old', costNanoUsd: 7 })]);
  expect(await rows('member')).toEqual([
    ['psn_admin', 2, 3000],
    ['psn_gone', 1, 7],
  ]);
  expect(await rows('workspace')).toEqual([
    ['wks_new', 2, 3000],
    ['wks_old', 1, 7],
  ]);
  expect((await usageReport(ledger, { ...query, by: 'day' })).totals.requests).toBe(3);
}

describe('migration 18 (usage attribution) on a database from version 17', () => {
  const dir = mkdtempSync(join(tmpdir(), 'router-attribution-migration-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('on SQLite changes no row, and usage from before (or from the previous release) counts for the key\u2019s current holder', async () => {
    const path = join(dir, 'v17.db');
    const db = new Database(path);
    migrateSqlite(db, sqliteMigrations.filter((m) => m.version <= BEFORE), AT);
    const bool = (value: boolean) => (value ? '1' : '0');
    db.exec(v17Usage('u1', AT, 'key_1', bool));
    const snapshot = async () => ({
      usage_records: db.prepare('SELECT * FROM usage_records ORDER BY id').all(),
      usage_rollups: db.prepare('SELECT * FROM usage_rollups ORDER BY bucket_start, key_id').all(),
    });
    const ledger = createSqliteLedgerStore({ path, now: () => AT });
    try {
      await checkMigration(ledger, snapshot, async (sql) => void db.exec(sql), bool);
    } finally {
      await ledger.close();
      db.close();
    }
  });

  const url = process.env.ROUTER_TEST_POSTGRES_URL;
  const schema = `test_attribution_migration_${randomBytes(4).toString('hex')}`;
  afterAll(() => (url ? dropSchemas(url, schema) : undefined));

  it.skipIf(!url)('on PostgreSQL changes no row, and usage from before (or from the previous release) counts for the key\u2019s current holder', async () => {
    const pool = createPool({ url: url!, schema });
    await migratePostgres(pool, postgresMigrations.filter((m) => m.version <= BEFORE), schema, AT);
    const bool = (value: boolean) => (value ? 'TRUE' : 'FALSE');
    await pool.query(v17Usage('u1', AT, 'key_1', bool));
    const snapshot = async () => ({
      usage_records: (await pool.query('SELECT * FROM usage_records ORDER BY id')).rows,
      usage_rollups: (await pool.query('SELECT * FROM usage_rollups ORDER BY bucket_start, key_id')).rows,
    });
    const ledger = createPostgresLedgerStore({ url: url!, schema, now: () => AT });
    try {
      await checkMigration(ledger, snapshot, async (sql) => void (await pool.query(sql)), bool);
    } finally {
      await ledger.close();
      await pool.end();
    }
  });
});
