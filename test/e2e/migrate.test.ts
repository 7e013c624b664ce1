/**
 * Migrations apart from serving, through the built bin/router on SQLite and (when
 * ROUTER_TEST_POSTGRES_URL is set) PostgreSQL in a random schema: `router migrate` brings the database to
 * this release's schema, `serve --no-migrate` starts only on that schema, and every command refuses a
 * database a newer router has migrated.
 */
import { execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { promisify } from 'node:util';
import Database from 'better-sqlite3';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { postgresMigrations } from '../../src/stores/migrations/postgres-migrations.js';
import { sqliteMigrations } from '../../src/stores/migrations/sqlite-migrations.js';
import { dropSchemas } from '../support/service-cleanup.js';

const run = promisify(execFile);
const BIN = new URL('../../bin/router', import.meta.url).pathname;
const postgresUrl = process.env.ROUTER_TEST_POSTGRES_URL;
if (!postgresUrl) console.warn('skipping the PostgreSQL variant of the migrate tests: set ROUTER_TEST_POSTGRES_URL');

interface Database_ {
  /** ROUTER_STORAGE for a fresh, never migrated database. */
  fresh(): string;
  newestKnown: number;
  /** Records a migration version this release does not know, as a newer router would have. */
  addFutureVersion(storage: string, version: number): Promise<void>;
  cleanUp(): Promise<void>;
}

function sqliteDatabases(): Database_ {
  const dir = mkdtempSync(join(tmpdir(), 'router-migrate-'));
  let count = 0;
  return {
    fresh: () => `sqlite:${join(dir, `router-${count++}.db`)}`,
    newestKnown: Math.max(...sqliteMigrations.map((migration) => migration.version)),
    async addFutureVersion(storage, version) {
      const db = new Database(storage.slice('sqlite:'.length));
      db.prepare('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)').run(version, 'from a newer release', new Date().toISOString());
      db.close();
    },
    cleanUp: async () => rmSync(dir, { recursive: true, force: true }),
  };
}

function postgresDatabases(url: string): Database_ {
  const schemas: string[] = [];
  return {
    fresh() {
      const schema = `e2e_migrate_${randomBytes(4).toString('hex')}`;
      schemas.push(schema);
      const storage = new URL(url);
      storage.searchParams.set('schema', schema);
      return storage.toString();
    },
    newestKnown: Math.max(...postgresMigrations.map((migration) => migration.version)),
    async addFutureVersion(storage, version) {
      const schema = new URL(storage).searchParams.get('schema');
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        await client.query(`INSERT INTO "${schema}".schema_migrations (version, name, applied_at) VALUES ($1, $2, now())`, [version, 'from a newer release']);
      } finally {
        await client.end();
      }
    },
    cleanUp: () => dropSchemas(url, ...schemas),
  };
}

const backends: [string, () => Database_][] = [['sqlite', sqliteDatabases], ...(postgresUrl ? [['postgres', () => postgresDatabases(postgresUrl)] as [string, () => Database_]] : [])];

// Each test starts several router processes one after another: seconds each on a shared machine.
describe.each(backends)('router migrate and serve --no-migrate on %s (built bin/router)', { timeout: 90_000 }, (dialect, make) => {
  const databases = make();
  afterAll(() => databases.cleanUp());

  const envFor = (storage: string): NodeJS.ProcessEnv => ({
    ...process.env,
    ROUTER_STORAGE: storage,
    ROUTER_SECRET_KEY: 'migrate-test-secret-0123456789abcdef',
    ROUTER_PORT: '0',
    ROUTER_HOST: '127.0.0.1',
    CONSOLA_LEVEL: '3',
  });
  const cli = async (storage: string, ...args: string[]) => {
    try {
      const { stdout, stderr } = await run('node', [BIN, ...args], { env: envFor(storage), timeout: 30_000 });
      return { code: 0, stdout, stderr };
    } catch (error) {
      const failed = error as { code: number; stdout: string; stderr: string };
      return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
    }
  };
  /** Starts `router serve --json` with the arguments, waits for the listening document, then stops it with SIGTERM. */
  const serveAndStop = async (storage: string, ...args: string[]) => {
    const child = spawn('node', [BIN, 'serve', '--json', ...args], { env: envFor(storage), stdio: ['ignore', 'pipe', 'pipe'] });
    try {
      const [first] = (await once(createInterface({ input: child.stdout }), 'line')) as [string];
      return JSON.parse(first) as { listening: string; storage: string };
    } finally {
      child.kill('SIGTERM');
      await once(child, 'exit');
    }
  };

  it('migrates a fresh database to this release and exits; serve --no-migrate then starts on it', async () => {
    const storage = databases.fresh();
    const migrated = await cli(storage, 'migrate', '--json');
    expect(migrated.code, migrated.stderr).toBe(0);
    expect(JSON.parse(migrated.stdout)).toEqual({ migrated: true, storage: dialect, schemaVersion: databases.newestKnown });
    const again = await cli(storage, 'migrate');
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout + again.stderr).toContain(`is at schema version ${databases.newestKnown}`);
    const listening = await serveAndStop(storage, '--no-migrate');
    expect(listening).toMatchObject({ listening: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+$/), storage: dialect });
  });

  it('serve --no-migrate refuses a database that was never migrated and leaves it so; plain serve migrates it', async () => {
    const storage = databases.fresh();
    const refused = await cli(storage, 'serve', '--no-migrate');
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(`database schema version 0 is older than this router needs (${databases.newestKnown}); run \`router migrate\` first`);
    // Still unmigrated: the refusal changed nothing, so the same command still refuses.
    expect((await cli(storage, 'serve', '--no-migrate')).stderr).toContain('schema version 0 is older');
    expect(await serveAndStop(storage)).toMatchObject({ storage: dialect });
    expect(await serveAndStop(storage, '--no-migrate')).toMatchObject({ storage: dialect });
  });

  it('refuses to serve or migrate a database that a newer router migrated, with or without --no-migrate', async () => {
    const storage = databases.fresh();
    expect((await cli(storage, 'migrate')).code).toBe(0);
    const future = databases.newestKnown + 1;
    await databases.addFutureVersion(storage, future);
    const message = `database schema version ${future} is newer than this router knows (${databases.newestKnown}); upgrade the router`;
    for (const args of [['serve'], ['serve', '--no-migrate'], ['migrate']]) {
      const refused = await cli(storage, ...args);
      expect(refused.code, args.join(' ')).toBe(1);
      expect(refused.stderr, args.join(' ')).toContain(message);
    }
  });
});
