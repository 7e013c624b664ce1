import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';
import { createSqliteLedgerStore } from '../../../src/stores/sqlite/create-sqlite-ledger-store.js';
import { createSqliteStore } from '../../../src/stores/sqlite/create-sqlite-store.js';
import { runLedgerStoreContract, type MakeLedger } from '../../contracts/ledger-store-contract.js';
import { runBudgetStoreContract } from '../../contracts/budget-store-contract.js';
import { ManualClock } from '../../contracts/store-contract.js';

const dir = mkdtempSync(join(tmpdir(), 'router-sqlite-ledger-'));
let files = 0;
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const makeLedger: MakeLedger = async () => {
  const path = join(dir, `ledger-${files++}.db`);
  const now = () => '2026-11-15T12:00:00.000Z';
  const store = createSqliteStore({ path, clock: new ManualClock(Date.parse(now())) });
  await store.migrate();
  const ledger = createSqliteLedgerStore({ path, now });
  await ledger.migrate();
  return {
    ledger,
    store,
    openAnother: async () => createSqliteLedgerStore({ path, now }),
    close: async () => {
      await ledger.close();
      await store.close();
    },
  };
};

runLedgerStoreContract('sqlite', makeLedger);
runBudgetStoreContract('sqlite', makeLedger);
