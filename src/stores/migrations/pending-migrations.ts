/** Which migrations a database still needs, shared by both dialects' runners. */
import type { Migration } from './migration.js';

/** Throws when the database was migrated by a newer router: running old code on it could corrupt it. */
export function pendingMigrations(migrations: readonly Migration[], appliedVersions: Iterable<number>): Migration[] {
  const applied = new Set(appliedVersions);
  const newestKnown = Math.max(0, ...migrations.map((migration) => migration.version));
  const newestApplied = Math.max(0, ...applied);
  if (newestApplied > newestKnown) {
    throw new Error(`database schema version ${newestApplied} is newer than this router knows (${newestKnown}); upgrade the router`);
  }
  return migrations.filter((migration) => !applied.has(migration.version)).sort((a, b) => a.version - b.version);
}
