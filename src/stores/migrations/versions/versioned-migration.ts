/** One schema version in both dialects: the same meaning, each in its own SQL (see ../migration.ts). */
export interface VersionedMigration {
  version: number;
  name: string;
  sqlite: string;
  postgres: string;
}
