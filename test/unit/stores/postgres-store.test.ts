import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { createPostgresStore } from '../../../src/stores/postgres/create-postgres-store.js';
import { postgresMigrations } from '../../../src/stores/migrations/postgres-migrations.js';
import { StoreUnavailableError } from '../../../src/stores/store.js';
import { runAccountAuthContract } from '../../contracts/account-auth-contract.js';
import { runAlertStoreContract } from '../../contracts/alert-store-contract.js';
import { runToolCallSignatureContract } from '../../contracts/tool-call-signature-contract.js';
import { runBillingStoreContract } from '../../contracts/billing-store-contract.js';
import { runPeopleStoreContract } from '../../contracts/people-store-contract.js';
import { runPresetStoreContract } from '../../contracts/preset-store-contract.js';
import { admitConcurrently, ManualClock, runStoreContract, type MakeStore } from '../../contracts/store-contract.js';
import { dropSchemas } from '../../support/service-cleanup.js';

const url = process.env.ROUTER_TEST_POSTGRES_URL;
if (!url) console.warn('skipping PostgreSQL store tests: set ROUTER_TEST_POSTGRES_URL (e.g. postgres://postgres@127.0.0.1:5432/test)');

// Every store gets its own schema, so test files and tests never see each other's rows.
const run = randomBytes(4).toString('hex');
const schemas: string[] = [];
const nextSchema = (): string => {
  const schema = `test_pg_store_${run}_${schemas.length}`;
  schemas.push(schema);
  return schema;
};

describe.skipIf(!url)('postgres store', () => {
  const clock = new ManualClock(Date.UTC(2026, 0, 1));
  const databaseUrl = url ?? '';

  afterAll(() => dropSchemas(databaseUrl, ...schemas));

  const makePostgresStore: MakeStore = async (storeClock) => {
    const store = createPostgresStore({ url: databaseUrl, clock: storeClock, schema: nextSchema(), poolSize: 8 });
    await store.migrate();
    return store;
  };
  runStoreContract('postgres', makePostgresStore);
  runAccountAuthContract('postgres', makePostgresStore);
  runBillingStoreContract('postgres', makePostgresStore);
  runAlertStoreContract('postgres', makePostgresStore);
  runToolCallSignatureContract('postgres', makePostgresStore);
  runPeopleStoreContract('postgres', makePostgresStore);
  runPresetStoreContract('postgres', makePostgresStore);

  it('two instances migrating at once apply each version exactly once', async () => {
    const schema = nextSchema();
    const instances = [1, 2, 3].map(() => createPostgresStore({ url: databaseUrl, clock, schema }));
    await Promise.all(instances.map((store) => store.migrate()));
    const admin = new pg.Client({ connectionString: databaseUrl });
    await admin.connect();
    const { rows } = await admin.query(`SELECT version FROM "${schema}".schema_migrations ORDER BY version`);
    await admin.end();
    expect(rows).toEqual(postgresMigrations.map(({ version }) => ({ version })));
    await Promise.all(instances.map((store) => store.close()));
  });

  it('two instances with their own pools admit exactly the limit between them', async () => {
    const schema = nextSchema();
    const first = createPostgresStore({ url: databaseUrl, clock, schema, poolSize: 5 });
    const second = createPostgresStore({ url: databaseUrl, clock, schema, poolSize: 5 });
    await first.migrate();
    const owner = await first.createAccount({ email: 'a@example.com', plan: 'free' }, 'cli');
    const input = { accountId: owner.id, period: '2026-01', weight: 1, limitsByPlan: { free: 30 } };
    expect(await admitConcurrently([first, second], input, 100)).toBe(30);
    expect(await second.readQuota(owner.id, '2026-01')).toBe(30);
    await Promise.all([first.close(), second.close()]);
  });

  it('rejects a schema name that is not a plain lower-case identifier', () => {
    expect(() => createPostgresStore({ url: databaseUrl, clock, schema: 'bad"; DROP' })).toThrow('schema must match');
  });
});

describe('postgres store without a server', () => {
  it('reports an unreachable database as StoreUnavailableError', async () => {
    const store = createPostgresStore({ url: 'postgres://postgres@127.0.0.1:1/none', clock: new ManualClock(0), connectTimeoutMs: 500 });
    await expect(store.ping()).rejects.toBeInstanceOf(StoreUnavailableError);
    await expect(store.createAccount({ email: 'a@example.com', plan: 'free' }, 'cli')).rejects.toBeInstanceOf(StoreUnavailableError);
    await expect(store.admitQuota({ accountId: 'acct_x', period: '2026-01', weight: 1, limitsByPlan: {} })).rejects.toBeInstanceOf(
      StoreUnavailableError,
    );
    await store.close();
  });
});
