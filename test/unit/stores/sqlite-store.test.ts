import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { createSqliteStore } from '../../../src/stores/sqlite/create-sqlite-store.js';
import { sqliteMigrations } from '../../../src/stores/migrations/sqlite-migrations.js';
import { runAccountAuthContract } from '../../contracts/account-auth-contract.js';
import { runAlertStoreContract } from '../../contracts/alert-store-contract.js';
import { runToolCallSignatureContract } from '../../contracts/tool-call-signature-contract.js';
import { runBillingStoreContract } from '../../contracts/billing-store-contract.js';
import { runPeopleStoreContract } from '../../contracts/people-store-contract.js';
import { runPresetStoreContract } from '../../contracts/preset-store-contract.js';
import { admitConcurrently, ManualClock, runStoreContract, type MakeStore } from '../../contracts/store-contract.js';

const dir = mkdtempSync(join(tmpdir(), 'router-sqlite-store-'));
let files = 0;
const nextPath = (): string => join(dir, `store-${files++}.db`);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const makeSqliteStore: MakeStore = async (clock) => {
  const store = createSqliteStore({ path: nextPath(), clock });
  await store.migrate();
  return store;
};
runStoreContract('sqlite', makeSqliteStore);
runAccountAuthContract('sqlite', makeSqliteStore);
runBillingStoreContract('sqlite', makeSqliteStore);
runAlertStoreContract('sqlite', makeSqliteStore);
runToolCallSignatureContract('sqlite', makeSqliteStore);
runPeopleStoreContract('sqlite', makeSqliteStore);
runPresetStoreContract('sqlite', makeSqliteStore);

describe('sqlite store', () => {
  const clock = new ManualClock(Date.UTC(2026, 0, 1));

  it('creates the parent directory and records the applied migration once', async () => {
    const path = join(dir, 'nested', 'deeper', 'router.db');
    const store = createSqliteStore({ path, clock });
    await store.migrate();
    await store.migrate();
    await store.close();
    const db = new Database(path, { readonly: true });
    expect(db.prepare('SELECT version, applied_at FROM schema_migrations').all()).toEqual(
      sqliteMigrations.map((migration) => ({ version: migration.version, applied_at: '2026-01-01T00:00:00.000Z' })),
    );
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    db.close();
  });

  it('refuses a database migrated by a newer router', async () => {
    const path = nextPath();
    const store = createSqliteStore({ path, clock });
    await store.migrate();
    const db = new Database(path);
    db.prepare("INSERT INTO schema_migrations (version, name, applied_at) VALUES (99, 'future', 'x')").run();
    db.close();
    await expect(store.migrate()).rejects.toThrow(`database schema version 99 is newer than this router knows (${sqliteMigrations.at(-1)!.version})`);
    await store.close();
  });

  it('works in memory for tests', async () => {
    const store = createSqliteStore({ path: ':memory:', clock });
    await store.migrate();
    await store.ping();
    expect((await store.createAccount({ email: 'a@example.com', plan: 'free' }, 'cli')).status).toBe('active');
    await store.close();
  });

  it('two store instances on one file admit exactly the limit between them', async () => {
    const path = nextPath();
    const first = createSqliteStore({ path, clock });
    await first.migrate();
    const second = createSqliteStore({ path, clock });
    await second.migrate();
    const owner = await first.createAccount({ email: 'a@example.com', plan: 'free' }, 'cli');
    const input = { accountId: owner.id, period: '2026-01', weight: 1, limitsByPlan: { free: 20 } };
    expect(await admitConcurrently([first, second], input, 50)).toBe(20);
    expect(await second.readQuota(owner.id, '2026-01')).toBe(20);
    await Promise.all([first.close(), second.close()]);
  });

  it('reports a locked database as unavailable once the busy timeout passes', async () => {
    const path = nextPath();
    const store = createSqliteStore({ path, clock, busyTimeoutMs: 50 });
    await store.migrate();
    const owner = await store.createAccount({ email: 'a@example.com', plan: 'free' }, 'cli');
    const holder = new Database(path);
    holder.prepare('BEGIN IMMEDIATE').run();
    const admission = store.admitQuota({ accountId: owner.id, period: '2026-01', weight: 1, limitsByPlan: { free: 5 } });
    await expect(admission).rejects.toMatchObject({ name: 'StoreUnavailableError' });
    holder.prepare('ROLLBACK').run();
    holder.close();
    await store.close();
  });
});
