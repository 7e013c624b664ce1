import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Migration } from '../../../src/stores/migrations/migration.js';
import { requireCurrentSchema } from '../../../src/stores/migrations/require-current-schema.js';
import { sqliteMigrations } from '../../../src/stores/migrations/sqlite-migrations.js';

const migrationsUpTo = (newest: number): Migration[] =>
  Array.from({ length: newest }, (_, index) => ({ version: index + 1, name: `v${index + 1}`, sql: '' }));

describe('requireCurrentSchema (what serve --no-migrate accepts)', () => {
  it('accepts exactly a database with every known version applied, and names the version', () => {
    const newest = Math.max(...sqliteMigrations.map((migration) => migration.version));
    expect(requireCurrentSchema(sqliteMigrations, sqliteMigrations.map((migration) => migration.version))).toBe(newest);
  });

  it('refuses any database missing a known version (run router migrate) or carrying a newer one (upgrade)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 30 }), fc.uniqueArray(fc.integer({ min: 1, max: 40 })), (newest, applied) => {
        const migrations = migrationsUpTo(newest);
        const current = migrations.every((migration) => applied.includes(migration.version));
        const newer = applied.some((version) => version > newest);
        const check = () => requireCurrentSchema(migrations, applied);
        if (newer) expect(check).toThrow(`is newer than this router knows (${newest}); upgrade the router`);
        else if (!current) expect(check).toThrow(`is older than this router needs (${newest}); run \`router migrate\` first`);
        else expect(check()).toBe(newest);
      }),
    );
  });
});
