/** What `router serve --no-migrate` accepts: a database exactly at the schema this router knows. */
import type { Migration } from './migration.js';
import { pendingMigrations } from './pending-migrations.js';

/** Throws (through pendingMigrations) on a newer database, and on one that still needs migrations. */
export function requireCurrentSchema(migrations: readonly Migration[], appliedVersions: readonly number[]): number {
  const pending = pendingMigrations(migrations, appliedVersions);
  const newestKnown = Math.max(0, ...migrations.map((migration) => migration.version));
  if (pending.length > 0) {
    const newestApplied = Math.max(0, ...appliedVersions);
    throw new Error(
      `database schema version ${newestApplied} is older than this router needs (${newestKnown}); run \`router migrate\` first (serve --no-migrate does not migrate)`,
    );
  }
  return newestKnown;
}
