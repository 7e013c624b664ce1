import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { LedgerStore } from '../../../src/stores/ledger-store.js';
import { createSqliteLedgerStore } from '../../../src/stores/sqlite/create-sqlite-ledger-store.js';
import { UsageLedger } from '../../../src/usage/usage-ledger.js';
import { ledgerRecord } from '../../contracts/ledger-store-contract.js';
import { ManualClock } from '../../contracts/store-contract.js';
import { silentLogger, waitFor } from '../../e2e/router-harness.js';

const dir = mkdtempSync(join(tmpdir(), 'router-usage-ledger-'));
let files = 0;
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the usage ledger writer', () => {
  let path: string;
  let store: LedgerStore;
  let logger: ReturnType<typeof silentLogger>;
  const writers: UsageLedger[] = [];
  const writer = (settings: Partial<{ flushIntervalMs: number; batchSize: number; maxQueued: number }> = {}) => {
    const ledger = new UsageLedger({ store, flushIntervalMs: 60_000, batchSize: 100, maxQueued: 1000, clock: new ManualClock(Date.UTC(2026, 10, 15)), logger, ...settings });
    writers.push(ledger);
    return ledger;
  };
  const stored = async () => (await store.sumUsageBy('acct_a', '2026-01-01T00:00:00.000Z', '2027-01-01T00:00:00.000Z', 'route'))[0]?.calls ?? 0;
  /** Another connection holding the write lock: the ledger's writes fail as busy until released. */
  const lockDatabase = () => {
    const holder = new Database(path);
    holder.prepare('BEGIN IMMEDIATE').run();
    return () => {
      holder.prepare('ROLLBACK').run();
      holder.close();
    };
  };

  beforeEach(async () => {
    path = join(dir, `ledger-${files++}.db`);
    store = createSqliteLedgerStore({ path, now: () => '2026-11-15T00:00:00.000Z', busyTimeoutMs: 20 });
    await store.migrate();
    logger = silentLogger();
  });
  afterEach(async () => {
    for (const ledger of writers.splice(0)) await ledger.close(1000);
    await store.close();
  });

  it('queues on append without touching the database, and writes on flush', async () => {
    const ledger = writer();
    ledger.append([ledgerRecord(), ledgerRecord()]);
    expect(ledger.status()).toMatchObject({ state: 'ok', queued: 2, written: 0 });
    expect(await stored()).toBe(0);
    await ledger.flush();
    expect(await stored()).toBe(2);
    expect(ledger.status()).toMatchObject({ state: 'ok', queued: 0, written: 2, lastFlushAt: '2026-11-15T00:00:00.000Z' });
  });

  it('writes on its own every flush interval, and at once when a full batch is queued', async () => {
    const timed = writer({ flushIntervalMs: 50 });
    timed.append([ledgerRecord()]);
    await waitFor(() => timed.status().written === 1);
    const batched = writer({ batchSize: 3 });
    batched.append([ledgerRecord(), ledgerRecord(), ledgerRecord(), ledgerRecord()]);
    await waitFor(() => batched.status().written === 3);
    expect(batched.status().queued).toBe(1);
  });

  it('keeps records queued while writes fail and writes them once the database answers', async () => {
    const ledger = writer();
    const release = lockDatabase();
    ledger.append([ledgerRecord(), ledgerRecord()]);
    await ledger.flush();
    expect(ledger.status()).toMatchObject({ state: 'failing', queued: 2, written: 0, lastError: expect.stringContaining('SQLITE_BUSY') });
    expect(logger.lines.filter((line: string) => line.includes('writing 2 records failed'))).toHaveLength(1);
    release();
    await ledger.flush();
    expect(ledger.status()).toMatchObject({ state: 'ok', queued: 0, written: 2, lastError: null });
    expect(await stored()).toBe(2);
  });

  it('past its bound drops BYOK records (counted, logged once) but keeps managed ones, then catches up', async () => {
    const drops: number[] = [];
    const ledger = new UsageLedger({
      store,
      flushIntervalMs: 60_000,
      batchSize: 100,
      maxQueued: 3,
      clock: new ManualClock(0),
      logger,
      onDrop: (count) => drops.push(count),
    });
    writers.push(ledger);
    const release = lockDatabase();
    ledger.append([1, 2, 3, 4, 5].map(() => ledgerRecord()));
    ledger.append([ledgerRecord({ credentialSource: 'managed', reservationId: 'spr_1', meteredNanoUsd: 10 })]);
    expect(ledger.behind).toBe(true);
    expect(ledger.status()).toMatchObject({ state: 'behind', queued: 4, dropped: 2 });
    expect(drops).toEqual([1, 1]);
    expect(logger.lines.filter((line: string) => line.includes('usage ledger is behind'))).toHaveLength(1);
    release();
    await ledger.flush();
    expect(ledger.behind).toBe(false);
    expect(ledger.status()).toMatchObject({ state: 'ok', queued: 0, dropped: 2, written: 4 });
    expect(logger.lines.some((line: string) => line.includes('caught up (2 records of BYOK requests were dropped'))).toBe(true);
    expect((await store.readSpend('acct_a', '2026-11', '2026-11-15T00:00:00.000Z')).spentNanoUsd).toBe(10);
  });

  it('writes what is queued on close, and says what it could not write', async () => {
    const ledger = writer();
    ledger.append([ledgerRecord(), ledgerRecord(), ledgerRecord()]);
    await ledger.close();
    expect(await stored()).toBe(3);

    const stuck = writer();
    const release = lockDatabase();
    stuck.append([ledgerRecord()]);
    await stuck.close(200);
    release();
    expect(logger.lines.some((line: string) => line.includes('1 records could not be written before shutdown'))).toBe(true);
  });
});
