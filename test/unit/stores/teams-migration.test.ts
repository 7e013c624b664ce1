/**
 * Migration 12 (teams) on a copy of a database made with the schema before it (versions 1–11), on
 * SQLite and PostgreSQL: accounts with logins, sessions, keys with limits and counts, usage records and
 * rollups, spend, and billing. Afterwards every row of every earlier table reads as before (the new
 * columns null, sessions now naming their person), each account with a login has exactly one member, its
 * owner, with the login's email, password hash and verification; and a login the previous release
 * makes after the upgrade (no person) is adopted on first use.
 */
import { randomBytes } from 'node:crypto';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { sqliteMigrations } from '../../../src/stores/migrations/sqlite-migrations.js';
import { postgresMigrations } from '../../../src/stores/migrations/postgres-migrations.js';
import { createPool } from '../../../src/stores/postgres/create-postgres-pool.js';
import { migratePostgres } from '../../../src/stores/postgres/migrate-postgres.js';
import { createPostgresStore } from '../../../src/stores/postgres/create-postgres-store.js';
import { migrateSqlite } from '../../../src/stores/sqlite/migrate-sqlite.js';
import { createSqliteStore } from '../../../src/stores/sqlite/create-sqlite-store.js';
import type { Store } from '../../../src/stores/store.js';
import { ManualClock } from '../../contracts/store-contract.js';
import { dropSchemas } from '../../support/service-cleanup.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const BEFORE_TEAMS = 11;
const AT = '2026-10-01T00:00:00.000Z';
const TABLES: Record<string, string> = {
  accounts: 'id',
  account_logins: 'account_id',
  account_sessions: 'id',
  api_keys: 'id',
  api_key_limits: 'key_id',
  key_quota_usage: 'key_id, period',
  provider_keys: 'account_id, provider_id',
  quota_usage: 'account_id, period',
  usage_records: 'id',
  usage_rollups: 'account_id, bucket_start, key_id',
  spend_meter: 'account_id, period',
  billing_accounts: 'account_id',
  link_tokens: 'id',
  audit_events: 'id',
};
/** Columns version 12 adds to earlier tables, and what they hold right after it. */
// Later versions run too, each column at its default: 13 (keys and records keep no workspace of their own: they
// are the default's), 14 (key kinds), 15 (presets: records name none), 16 (insurance: not insured, 0 in SQLite and false in pg), 17 (response cache; its rollup counters are 0, a BIGINT is text in pg).
const ADDED: Record<string, Record<string, unknown>> = {
  accounts: { name: null, response_cache: null },
  api_keys: { person_id: null, workspace_id: null, kind: 'inference', disabled_at: null, updated_at: null },
  usage_records: { person_id: null, workspace_id: null, response_cache_hit_of: null, response_cache_saved_nano_usd: null, preset_slug: null, preset_version: null, insured: expect.toBeOneOf([0, false]) },
  usage_rollups: { response_cache_hits: expect.anything(), response_cache_saved_nano_usd: expect.anything() },
};

/** Rows the release before teams would have written: two accounts with logins, one made by the CLI without. */
function seed(bool: (value: boolean) => string): string {
  const usage = (id: string, account: string, key: string) =>
    `INSERT INTO usage_records (id, request_id, call, started_at, account_id, key_id, route_id, endpoint, provider_id, upstream_model, credential_source, status, retry_count, attempts, prompt_tokens, completion_tokens, cost_nano_usd, metered_nano_usd, total_ms, client_closed)
     VALUES ('${id}', 'req_${id}', 'main', '${AT}', '${account}', '${key}', 'auto', 'chat', 'openai', 'gpt-4o-mini', 'managed', 200, 0, '[]', 10, 20, 1500, 1500, 120, ${bool(false)});`;
  return `
    INSERT INTO accounts (id, email, plan, status, created_at) VALUES ('acct_a', 'ada@example.com', 'pro', 'active', '${AT}');
    INSERT INTO accounts (id, email, plan, status, created_at) VALUES ('acct_b', 'bob@example.com', 'free', 'inactive', '${AT}');
    INSERT INTO accounts (id, email, plan, status, created_at) VALUES ('acct_cli', 'ops@example.com', 'max', 'active', '${AT}');
    INSERT INTO account_logins (account_id, email, password_hash, updated_at, email_verified_at) VALUES ('acct_a', 'ada@example.com', 'scrypt$ada', '${AT}', '${AT}');
    INSERT INTO account_logins (account_id, email, password_hash, updated_at, email_verified_at) VALUES ('acct_b', 'bob@example.com', 'scrypt$bob', '${AT}', NULL);
    INSERT INTO account_sessions (id, account_id, token_hash, created_at, last_seen_at, user_agent, ip) VALUES ('ses_a', 'acct_a', 'th_a', '${AT}', '${AT}', 'Firefox', '127.0.0.1');
    INSERT INTO api_keys (id, account_id, name, prefix, last4, hash, created_at, revoked_at, expires_at) VALUES ('key_a1', 'acct_a', 'laptop', 'sk_router_', 'aaaa', 'hash_a1', '${AT}', NULL, NULL);
    INSERT INTO api_keys (id, account_id, name, prefix, last4, hash, created_at, revoked_at, expires_at) VALUES ('key_a2', 'acct_a', NULL, 'sk_router_', 'bbbb', 'hash_a2', '${AT}', '${AT}', NULL);
    INSERT INTO api_keys (id, account_id, name, prefix, last4, hash, created_at, revoked_at, expires_at) VALUES ('key_cli', 'acct_cli', 'ci', 'sk_router_', 'cccc', 'hash_cli', '${AT}', NULL, '2027-01-01T00:00:00.000Z');
    INSERT INTO api_key_limits (key_id, monthly_requests, requests_per_minute) VALUES ('key_a1', 1000, 60);
    INSERT INTO key_quota_usage (key_id, period, used) VALUES ('key_a1', '2026-10', 42);
    INSERT INTO provider_keys (account_id, provider_id, sealed, last4, created_at, updated_at) VALUES ('acct_a', 'openai', 'v1.sealed', 'wxyz', '${AT}', '${AT}');
    INSERT INTO quota_usage (account_id, period, used, held) VALUES ('acct_a', '2026-10', 42, 3);
    ${usage('u1', 'acct_a', 'key_a1')}
    ${usage('u2', 'acct_cli', 'key_cli')}
    INSERT INTO usage_rollups (account_id, bucket_start, key_id, route_id, provider_id, upstream_model, credential_source, requests, failed_requests, calls, prompt_tokens, completion_tokens, reasoning_tokens, cached_tokens, unknown_usage_calls, unpriced_calls, cost_nano_usd, metered_nano_usd, last_at)
      VALUES ('acct_a', '${AT}', 'key_a1', 'auto', 'openai', 'gpt-4o-mini', 'managed', 1, 0, 1, 10, 20, 0, 0, 0, 0, 1500, 1500, '${AT}');
    INSERT INTO spend_meter (account_id, period, spent_nano_usd) VALUES ('acct_a', '2026-10', 1500);
    INSERT INTO billing_accounts (account_id, customer_id, subscription_id, status, paid_plan, current_period_end, cancel_at_period_end, version, updated_at)
      VALUES ('acct_a', 'cus_1', 'sub_1', 'active', 'pro', '2026-11-01T00:00:00.000Z', ${bool(false)}, 3, '${AT}');
    INSERT INTO link_tokens (id, kind, email, account_id, token_hash, created_at, expires_at, used_at) VALUES ('lnk_1', 'reset', 'ada@example.com', 'acct_a', 'lt_1', '${AT}', '2026-10-02T00:00:00.000Z', NULL);
    INSERT INTO audit_events (id, at, actor, action, account_id, key_id, details) VALUES ('evt_1', '${AT}', 'cli', 'account.create', 'acct_a', NULL, '{"plan":"pro"}');
  `;
}

/** What a login made by the previous release after the upgrade looks like: an account and a login, no person. */
const OLD_RELEASE_SIGNUP = `
  INSERT INTO accounts (id, email, plan, status, created_at) VALUES ('acct_late', 'late@example.com', 'free', 'active', '${AT}');
  INSERT INTO account_logins (account_id, email, password_hash, updated_at) VALUES ('acct_late', 'late@example.com', 'scrypt$late', '${AT}');
  INSERT INTO account_sessions (id, account_id, token_hash, created_at, last_seen_at) VALUES ('ses_late', 'acct_late', 'th_late', '${AT}', '${AT}');
`;

type Rows = Record<string, Array<Record<string, unknown>>>;

async function checkMigration(snapshot: () => Promise<Rows>, migrateToTeams: () => Promise<void>, exec: (sql: string) => Promise<void>, store: Store): Promise<void> {
  const before = await snapshot();
  expect(before.api_keys).toHaveLength(3);
  await migrateToTeams();
  const after = await snapshot();
  for (const table of Object.keys(TABLES)) {
    const expected = before[table]!.map((row) => {
      if (table === 'account_sessions') return { ...row, person_id: expect.stringMatching(/^psn_[0-9a-f]{24}$/) };
      return { ...row, ...ADDED[table] };
    });
    expect(after[table], table).toEqual(expected);
  }

  const ada = await store.findPersonByEmail('ada@example.com');
  expect(ada).toMatchObject({ email: 'ada@example.com', passwordHash: 'scrypt$ada', emailVerifiedAt: AT });
  expect((await store.findSessionByTokenHash('th_a'))?.session.personId).toBe(ada!.id);
  const bob = await store.findPersonByEmail('bob@example.com');
  expect(bob).toMatchObject({ passwordHash: 'scrypt$bob', emailVerifiedAt: null });
  expect(await store.listMembers('acct_a')).toEqual([{ accountId: 'acct_a', personId: ada!.id, role: 'owner', createdAt: AT, email: 'ada@example.com' }]);
  expect(await store.listMembers('acct_b')).toMatchObject([{ personId: bob!.id, role: 'owner' }]);
  // Made by the CLI and never signed in to: no person until a password is set.
  expect(await store.listMembers('acct_cli')).toEqual([]);
  expect(await store.getAccount('acct_a')).toEqual({ id: 'acct_a', email: 'ada@example.com', name: null, plan: 'pro', status: 'active', createdAt: AT });
  expect((await store.findApiKeyByHash('hash_a1'))?.key).toMatchObject({ id: 'key_a1', personId: null, revokedAt: null });
  expect(await store.readQuotaCommitted('acct_a', '2026-10')).toBe(45);
  expect(await store.getBillingRecord('acct_a')).toMatchObject({ customerId: 'cus_1', paidPlan: 'pro' });

  // Rolling upgrade: the previous release, still running, signs someone up after the migration.
  await exec(OLD_RELEASE_SIGNUP);
  expect(await store.findPersonByEmail('late@example.com')).toBeNull();
  const late = await store.adoptLogin('acct_late');
  expect(late).toMatchObject({ email: 'late@example.com', passwordHash: 'scrypt$late' });
  expect(await store.listMembers('acct_late')).toMatchObject([{ personId: late!.id, role: 'owner' }]);
  expect((await store.findSessionByTokenHash('th_late'))?.session.personId).toBeNull();

  // Version 13: every organization, existing or made since by either release, has one default workspace.
  for (const accountId of ['acct_a', 'acct_b', 'acct_cli', 'acct_late']) {
    expect(await store.listWorkspaces(accountId), accountId).toEqual([expect.objectContaining({ accountId, name: 'Default', slug: 'default', isDefault: true })]);
  }
}

describe('migration 12 (teams) on a database from the release before', () => {
  const dir = mkdtempSync(join(tmpdir(), 'router-teams-migration-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('on SQLite changes no existing row and makes each login the owner of its account', async () => {
    const path = join(dir, 'before-teams.db');
    const db = new Database(path);
    migrateSqlite(db, sqliteMigrations.filter((m) => m.version <= BEFORE_TEAMS), AT);
    db.exec(seed((value) => (value ? '1' : '0')));
    const snapshot = async (): Promise<Rows> =>
      Object.fromEntries(Object.entries(TABLES).map(([table, order]) => [table, db.prepare(`SELECT * FROM ${table} ORDER BY ${order}`).all() as Array<Record<string, unknown>>]));
    const store = createSqliteStore({ path, clock: new ManualClock(Date.parse(AT)) });
    try {
      await checkMigration(snapshot, () => store.migrate(), async (sql) => void db.exec(sql), store);
    } finally {
      await store.close();
      db.close();
    }
  });

  const url = process.env.ROUTER_TEST_POSTGRES_URL;
  const schema = `test_teams_migration_${randomBytes(4).toString('hex')}`;
  afterAll(() => (url ? dropSchemas(url, schema) : undefined));

  it.skipIf(!url)('on PostgreSQL changes no existing row and makes each login the owner of its account', async () => {
    const pool = createPool({ url: url!, schema });
    await migratePostgres(pool, postgresMigrations.filter((m) => m.version <= BEFORE_TEAMS), schema, AT);
    await pool.query(seed((value) => (value ? 'TRUE' : 'FALSE')));
    const snapshot = async (): Promise<Rows> => {
      const rows: Rows = {};
      for (const [table, order] of Object.entries(TABLES)) rows[table] = (await pool.query(`SELECT * FROM ${table} ORDER BY ${order}`)).rows;
      return rows;
    };
    const store = createPostgresStore({ url: url!, schema, clock: new ManualClock(Date.parse(AT)) });
    try {
      await checkMigration(snapshot, () => store.migrate(), async (sql) => void (await pool.query(sql)), store);
    } finally {
      await store.close();
      await pool.end();
    }
  });
});
