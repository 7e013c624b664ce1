import { randomBytes } from 'node:crypto';
import { afterAll, describe } from 'vitest';
import { createPostgresLedgerStore } from '../../../src/stores/postgres/create-postgres-ledger-store.js';
import { createPostgresStore } from '../../../src/stores/postgres/create-postgres-store.js';
import { runLedgerStoreContract, type MakeLedger } from '../../contracts/ledger-store-contract.js';
import { runBudgetStoreContract } from '../../contracts/budget-store-contract.js';
import { ManualClock } from '../../contracts/store-contract.js';
import { dropSchemas } from '../../support/service-cleanup.js';

const url = process.env.ROUTER_TEST_POSTGRES_URL;
if (!url) console.warn('skipping PostgreSQL ledger store tests: set ROUTER_TEST_POSTGRES_URL (e.g. postgres://postgres@127.0.0.1:5432/test)');

const run = randomBytes(4).toString('hex');
const schemas: string[] = [];

describe.skipIf(!url)('postgres ledger store', () => {
  const databaseUrl = url ?? '';
  afterAll(() => dropSchemas(databaseUrl, ...schemas));

  const makeLedger: MakeLedger = async () => {
    const schema = `test_pg_ledger_${run}_${schemas.length}`;
    schemas.push(schema);
    const now = () => '2026-11-15T12:00:00.000Z';
    const store = createPostgresStore({ url: databaseUrl, schema, clock: new ManualClock(Date.parse(now())), poolSize: 2 });
    await store.migrate();
    const ledger = createPostgresLedgerStore({ url: databaseUrl, schema, now });
    return {
      ledger,
      store,
      openAnother: async () => createPostgresLedgerStore({ url: databaseUrl, schema, now }),
      close: async () => {
        await ledger.close();
        await store.close();
      },
    };
  };
  runLedgerStoreContract('postgres', makeLedger);
  runBudgetStoreContract('postgres', makeLedger);
});
