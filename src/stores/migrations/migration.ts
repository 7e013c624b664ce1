/**
 * One versioned schema change. SQLite and PostgreSQL keep parallel lists (sqlite-migrations.ts,
 * postgres-migrations.ts): the same versions with the same meaning, in each dialect's SQL. A version,
 * once released, is never edited: a change is a new version appended to both lists.
 */
export interface Migration {
  version: number;
  name: string;
  sql: string;
}
