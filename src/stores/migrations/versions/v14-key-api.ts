import type { VersionedMigration } from './versioned-migration.js';

/**
 * The key API (issue 33): a key's kind (`inference` calls models; `management` manages keys through
 * /v1/keys and never calls a model), a switch that disables a key without retiring it, and when it was
 * last changed. Additive: the previous release inserts keys without `kind` and gets `inference`, and
 * ignores `disabled_at` (a key disabled during a rolling upgrade keeps working on old instances until
 * they are replaced).
 */
export const v14KeyApi: VersionedMigration = {
  version: 14,
  name: 'key kinds (management keys), disabled keys',
  sqlite: `
    ALTER TABLE api_keys ADD COLUMN kind TEXT NOT NULL DEFAULT 'inference' CHECK (kind IN ('inference', 'management'));
    ALTER TABLE api_keys ADD COLUMN disabled_at TEXT;
    ALTER TABLE api_keys ADD COLUMN updated_at TEXT;
  `,
  postgres: `
    ALTER TABLE api_keys ADD COLUMN kind TEXT NOT NULL DEFAULT 'inference' CHECK (kind IN ('inference', 'management'));
    ALTER TABLE api_keys ADD COLUMN disabled_at TIMESTAMPTZ;
    ALTER TABLE api_keys ADD COLUMN updated_at TIMESTAMPTZ;
  `,
};
