/**
 * The embedded SQLite quota gate against real SQLite files: admission from held blocks, exactness across
 * connections sharing one file (as processes do), settlement, refunds, a crash, plan changes (told, and
 * committed by another connection), idle grants given back, and periods. Mirrors redis-quota-gate.test.ts.
 * Separate processes on one file, through real HTTP: test/e2e/limits-sqlite-gate.test.ts.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { systemClock } from '../../../src/core/clock.js';
import type { QuotaLedger } from '../../../src/stores/quota-ledger.js';
import { createSqliteQuotaGate } from '../../../src/stores/sqlite/create-sqlite-quota-gate.js';
import { createSqliteStore } from '../../../src/stores/sqlite/create-sqlite-store.js';
import type { SqliteStore } from '../../../src/stores/sqlite/sqlite-data-version.js';
import { NotFoundInStoreError, type Store } from '../../../src/stores/store.js';
import { admitAll, admitOnce, admittedUsed, expectAccountChangesAtTheNextAdmission, LIMITS, NEXT_PERIOD, oneTo, PERIOD, until, watchHolds } from './quota-gate-fixtures.js';

const dir = mkdtempSync(join(tmpdir(), 'sqlite-quota-gate-'));
let files = 0;
const openGates: QuotaLedger[] = [];
const openStores: Store[] = [];

afterEach(async () => {
  // Gates first (they write back to their stores), then the stores.
  for (const gate of openGates.splice(0)) await gate.close();
  for (const store of openStores.splice(0)) await store.close();
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A fresh database file, migrated; `connections` stores on it, like that many processes. */
async function openFile(connections = 1): Promise<{ path: string; stores: SqliteStore[] }> {
  const path = join(dir, `gate-${files++}.db`);
  const stores = Array.from({ length: connections }, () => createSqliteStore({ path, clock: systemClock }));
  await stores[0]!.migrate();
  openStores.push(...stores);
  return { path, stores };
}

function openStoreOn(path: string): SqliteStore {
  const store = createSqliteStore({ path, clock: systemClock });
  openStores.push(store);
  return store;
}

function gateOn(store: SqliteStore, options: { settleMs?: number; holdsOn?: Store } = {}): QuotaLedger {
  const gate = createSqliteQuotaGate({ store: options.holdsOn ?? store, dataVersion: store.dataVersion, settleMs: options.settleMs ?? 50 });
  openGates.push(gate);
  return gate;
}

const nextTurn = () => new Promise((resolve) => setImmediate(resolve));
const newAccount = async (store: Store, plan: string) => (await store.createAccount({ email: 'gate@example.com', plan }, 'cli')).id;

describe('sqlite quota gate', () => {
  it('admits exactly the limit of 37 out of 200 concurrent requests on one connection, each at its own count', async () => {
    const { stores } = await openFile();
    const gate = gateOn(stores[0]!);
    const accountId = await newAccount(stores[0]!, 'exact');
    const decisions = await admitAll([gate], accountId, 200);
    expect(admittedUsed(decisions)).toEqual(oneTo(37));
    for (const rejected of decisions.filter((decision) => !decision.admitted)) {
      expect(rejected).toMatchObject({ plan: 'exact', status: 'active', limit: 37 });
      expect(rejected.used).toBeGreaterThanOrEqual(37);
    }
    expect(gate.status()).toEqual({ backend: 'sqlite-gate' });
    await gate.close();
    expect(await stores[0]!.readQuota(accountId, PERIOD)).toBe(37);
    expect(await stores[0]!.readQuotaCommitted(accountId, PERIOD)).toBe(37);
  });

  it.each([
    ['tiny', 3],
    ['exact', 37],
    ['mid', 200],
    ['thousand', 1000],
  ])('three connections on one file admit exactly the %s limit of %i between them, however the requests fall', async (plan, limit) => {
    const { stores } = await openFile(3);
    const gates = stores.map((store) => gateOn(store));
    const accountId = await newAccount(stores[0]!, plan);
    const decisions = await admitAll(gates, accountId, limit + 150);
    expect(decisions.filter((decision) => decision.admitted)).toHaveLength(limit);
    await Promise.all(gates.map((gate) => gate.close()));
    expect(await stores[0]!.readQuota(accountId, PERIOD)).toBe(limit);
    expect(await stores[0]!.readQuotaCommitted(accountId, PERIOD)).toBe(limit);
  });

  it('holds a block of 1% of a large limit: ten admissions cost one store write', async () => {
    const { stores } = await openFile();
    const watched = watchHolds(stores[0]!);
    const gate = gateOn(stores[0]!, { holdsOn: watched.store, settleMs: 60_000 });
    const accountId = await newAccount(stores[0]!, 'big');
    expect(await admitOnce(gate, accountId)).toMatchObject({ admitted: true, used: 1, limit: 1_000_000 });
    expect(await stores[0]!.readQuotaCommitted(accountId, PERIOD)).toBe(100);
    for (let i = 2; i <= 10; i++) expect((await admitOnce(gate, accountId)).used).toBe(i);
    expect(watched.holds()).toBe(1);
    expect(await stores[0]!.readQuota(accountId, PERIOD)).toBe(0);
    await gate.settle();
    // Settling moved the ten from held to used; the total the limit is checked against did not change.
    expect(await stores[0]!.readQuota(accountId, PERIOD)).toBe(10);
    expect(await stores[0]!.readQuotaCommitted(accountId, PERIOD)).toBe(100);
    await gate.close();
    // Closing gives the unused 90 back.
    expect(await stores[0]!.readQuotaCommitted(accountId, PERIOD)).toBe(10);
  });

  it('answers at once, without a promise, while the grant holds units and the file is unchanged; through the store otherwise', async () => {
    const { path, stores } = await openFile();
    const gate = gateOn(stores[0]!, { settleMs: 60_000 });
    const accountId = await newAccount(stores[0]!, 'big');
    // The first admission reads the account and holds a block: that takes the store.
    const first = gate.admit({ accountId, period: PERIOD, weight: 1, limitsByPlan: LIMITS });
    expect(first).toBeInstanceOf(Promise);
    expect(await first).toMatchObject({ admitted: true, used: 1 });
    const second = gate.admit({ accountId, period: PERIOD, weight: 1, limitsByPlan: LIMITS });
    expect(second).not.toBeInstanceOf(Promise);
    expect(second).toMatchObject({ plan: 'big', admitted: true, used: 2, limit: 1_000_000 });
    // Another connection committed: the card must be read again, so the answer comes from the store.
    await openStoreOn(path).setAccountPlan(accountId, 'medium', 'cli');
    await nextTurn();
    const afterChange = gate.admit({ accountId, period: PERIOD, weight: 1, limitsByPlan: LIMITS });
    expect(afterChange).toBeInstanceOf(Promise);
    expect(await afterChange).toMatchObject({ plan: 'medium', admitted: true });
  });

  it('never holds more than an eighth of what the limit has left, so other processes find room', async () => {
    const { stores } = await openFile();
    const watched = watchHolds(stores[0]!);
    const gate = gateOn(stores[0]!, { holdsOn: watched.store, settleMs: 60_000 });
    const accountId = await newAccount(stores[0]!, 'thousand');
    // 990 already counted elsewhere: 10 left, so blocks of reservationBlock(1000) = 10 shrink to 1.
    await stores[0]!.holdQuota({ accountId, period: PERIOD, weight: 990, limitsByPlan: LIMITS });
    for (let i = 0; i < 3; i++) expect(await admitOnce(gate, accountId)).toMatchObject({ admitted: true, used: 991 + i });
    expect(await stores[0]!.readQuotaCommitted(accountId, PERIOD)).toBe(993);
    expect(watched.holds()).toBeGreaterThanOrEqual(3);
  });

  it('settles admissions into the store within the settle interval, without being asked', async () => {
    const { stores } = await openFile();
    const gate = gateOn(stores[0]!, { settleMs: 30 });
    const accountId = await newAccount(stores[0]!, 'big');
    for (let i = 0; i < 4; i++) await admitOnce(gate, accountId);
    await until(async () => (await stores[0]!.readQuota(accountId, PERIOD)) === 4, 1000);
  });

  it('gives a grant nobody used for a whole interval back to the store', async () => {
    const { stores } = await openFile();
    const gate = gateOn(stores[0]!, { settleMs: 30 });
    const accountId = await newAccount(stores[0]!, 'big');
    await admitOnce(gate, accountId);
    expect(await stores[0]!.readQuotaCommitted(accountId, PERIOD)).toBe(100);
    await until(async () => (await stores[0]!.readQuotaCommitted(accountId, PERIOD)) === 1, 1000);
    expect(await stores[0]!.readQuota(accountId, PERIOD)).toBe(1);
  });

  it('counts what a crashed process held as used: the others never admit it again', async () => {
    const { path, stores } = await openFile();
    // "Crashes": never closed and never settled (its interval is far away); its connection just goes.
    const crashing = createSqliteQuotaGate({ store: stores[0]!, dataVersion: stores[0]!.dataVersion, settleMs: 3_600_000 });
    const accountId = await newAccount(stores[0]!, 'mid');
    for (let i = 0; i < 3; i++) expect(await admitOnce(crashing, accountId)).toMatchObject({ admitted: true });
    const held = await stores[0]!.readQuotaCommitted(accountId, PERIOD);
    expect(held).toBeGreaterThanOrEqual(3);
    expect(await stores[0]!.readQuota(accountId, PERIOD)).toBe(0);

    const survivor = gateOn(openStoreOn(path));
    const decisions = await admitAll([survivor], accountId, 250);
    expect(decisions.filter((decision) => decision.admitted)).toHaveLength(200 - held);
    await survivor.close();
    expect(await stores[0]!.readQuotaCommitted(accountId, PERIOD)).toBe(200);
  });

  it('a refund makes the unit available again; once settled and given back, it comes off the store count', async () => {
    const { stores } = await openFile();
    const gate = gateOn(stores[0]!, { settleMs: 60_000 });
    const accountId = await newAccount(stores[0]!, 'tiny');
    const decisions = [];
    for (let i = 0; i < 3; i++) decisions.push(await admitOnce(gate, accountId));
    expect(decisions.map((decision) => decision.used)).toEqual([1, 2, 3]);
    expect(await admitOnce(gate, accountId)).toMatchObject({ admitted: false, used: 3, limit: 3 });

    await decisions[1]!.refund();
    expect(await admitOnce(gate, accountId)).toMatchObject({ admitted: true, used: 3 });
    await (await admitOnce(gate, accountId)).refund(); // a rejected decision's refund gives nothing back
    await gate.close();
    expect(await stores[0]!.readQuota(accountId, PERIOD)).toBe(3);
    // After the grant went back to the store, a refund goes to the store's own count.
    await decisions[2]!.refund();
    expect(await stores[0]!.readQuota(accountId, PERIOD)).toBe(2);
    expect(await stores[0]!.readQuotaCommitted(accountId, PERIOD)).toBe(2);
  });

  it('applies plan changes and deactivation made through forgetOnAccountChange to the very next admission', async () => {
    const { stores } = await openFile();
    await expectAccountChangesAtTheNextAdmission(stores[0]!, gateOn(stores[0]!), await newAccount(stores[0]!, 'medium'));
  });

  it('applies a plan change or deactivation another connection committed (the CLI, another process) to the next admission', async () => {
    const { path, stores } = await openFile();
    const gate = gateOn(stores[0]!, { settleMs: 60_000 });
    const cli = openStoreOn(path);
    const downgraded = await newAccount(stores[0]!, 'big');
    await admitOnce(gate, downgraded);
    // A block of 100 is held, far more than the new plan allows: the gate must not draw on it.
    await cli.setAccountPlan(downgraded, 'small', 'cli');
    // Another process's change reaches this one in a later turn of its event loop (over a socket, a
    // timer): the gate reads data_version once per turn.
    await nextTurn();
    expect(await admitOnce(gate, downgraded)).toMatchObject({ plan: 'small', admitted: true, used: 2, limit: 2 });
    expect(await admitOnce(gate, downgraded)).toMatchObject({ plan: 'small', admitted: false, limit: 2 });

    const deactivated = await newAccount(stores[0]!, 'big');
    await admitOnce(gate, deactivated);
    await cli.deactivateAccount(deactivated, 'cli');
    await nextTurn();
    expect(await admitOnce(gate, deactivated)).toMatchObject({ status: 'inactive', admitted: false });
    await gate.close();
    expect(await stores[0]!.readQuotaCommitted(downgraded, PERIOD)).toBe(2);
    expect(await stores[0]!.readQuotaCommitted(deactivated, PERIOD)).toBe(1);
  });

  it('fails for an account the store does not know', async () => {
    const { stores } = await openFile();
    const gate = gateOn(stores[0]!);
    await expect(admitOnce(gate, 'acct_missing')).rejects.toBeInstanceOf(NotFoundInStoreError);
    expect(await gate.peek('acct_missing', PERIOD, LIMITS)).toBeNull();
  });

  it('starts a new period from the store count of that period, and keeps the periods apart', async () => {
    const { stores } = await openFile();
    const gate = gateOn(stores[0]!, { settleMs: 60_000 });
    const accountId = await newAccount(stores[0]!, 'big');
    for (let i = 0; i < 3; i++) await admitOnce(gate, accountId);
    // The next month already has 5 counted and 2 held (another process): the gate counts on from all 7.
    for (let i = 0; i < 5; i++) await stores[0]!.admitQuota({ accountId, period: NEXT_PERIOD, weight: 1, limitsByPlan: LIMITS });
    await stores[0]!.holdQuota({ accountId, period: NEXT_PERIOD, weight: 2, limitsByPlan: LIMITS });
    expect(await admitOnce(gate, accountId, NEXT_PERIOD)).toMatchObject({ admitted: true, used: 8 });
    expect(await admitOnce(gate, accountId, PERIOD)).toMatchObject({ admitted: true, used: 4 });
    await gate.close();
    expect(await stores[0]!.readQuota(accountId, NEXT_PERIOD)).toBe(6);
    expect(await stores[0]!.readQuota(accountId, PERIOD)).toBe(4);
  });

  it('peek reports what was admitted, before the store has settled it', async () => {
    const { stores } = await openFile();
    const gate = gateOn(stores[0]!, { settleMs: 60_000 });
    const accountId = await newAccount(stores[0]!, 'big');
    for (let i = 0; i < 3; i++) await admitOnce(gate, accountId);
    expect(await stores[0]!.readQuota(accountId, PERIOD)).toBe(0);
    expect(await gate.peek(accountId, PERIOD, LIMITS)).toEqual({ plan: 'big', status: 'active', used: 3, limit: 1_000_000 });
    expect(await gate.peek(accountId, NEXT_PERIOD, LIMITS)).toEqual({ plan: 'big', status: 'active', used: 0, limit: 1_000_000 });
  });

  it('weights: a request heavier than what is left of the grant holds the difference', async () => {
    const { stores } = await openFile();
    const gate = gateOn(stores[0]!, { settleMs: 60_000 });
    const accountId = await newAccount(stores[0]!, 'ten');
    expect(await admitOnce(gate, accountId, PERIOD, 4)).toMatchObject({ admitted: true, used: 4 });
    expect(await admitOnce(gate, accountId, PERIOD, 5)).toMatchObject({ admitted: true, used: 9 });
    expect(await admitOnce(gate, accountId, PERIOD, 2)).toMatchObject({ admitted: false, limit: 10 });
    expect(await admitOnce(gate, accountId, PERIOD, 1)).toMatchObject({ admitted: true, used: 10 });
    await gate.close();
    expect(await stores[0]!.readQuota(accountId, PERIOD)).toBe(10);
  });
});
