import type { VersionedMigration } from './versioned-migration.js';

/**
 * Presets (issue 33): an organization's saved configurations, addressed as `@preset/<slug>`, each change
 * a new row of preset_versions and the preset's `current_version` the one requests use. Slugs are unique
 * per organization (account), as workspace slugs are. Each usage record names the preset and version its
 * request used, for the receipt. Additive: the previous release writes records without them (NULL: no
 * preset) and never reads the new tables.
 */
export const v15Presets: VersionedMigration = {
  version: 15,
  name: 'presets',
  sqlite: `
    CREATE TABLE presets (
      id TEXT PRIMARY KEY,
      account_id TEXT NOT NULL REFERENCES accounts (id),
      workspace_id TEXT,
      slug TEXT NOT NULL,
      name TEXT NOT NULL,
      description TEXT NOT NULL DEFAULT '',
      status TEXT NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'disabled', 'archived')),
      current_version INTEGER NOT NULL CHECK (current_version >= 1),
      creator_person_id TEXT,
      created_at TEXT NOT NULL,
      updated_at TEXT NOT NULL,
      UNIQUE (account_id, slug)
    );
    CREATE TABLE preset_versions (
      id TEXT PRIMARY KEY,
      preset_id TEXT NOT NULL REFERENCES presets (id) ON DELETE CASCADE,
      version INTEGER NOT NULL CHECK (version >= 1),
      config TEXT NOT NULL,
      created_at TEXT NOT NULL,
      created_by TEXT NOT NULL,
      UNIQUE (preset_id, version)
    );
    ALTER TABLE usage_records ADD COLUMN preset_slug TEXT;
    ALTER TABLE usage_records ADD COLUMN preset_version INTEGER;
  `,
  postgres: `
    CREATE TABLE presets (
      id TEXT PRIMARY KEY,
      account_id TEXT NOT NULL REFERENCES accounts (id),
      workspace_id TEXT,
      slug TEXT NOT NULL,
      name TEXT NOT NULL,
      description TEXT NOT NULL DEFAULT '',
      status TEXT NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'disabled', 'archived')),
      current_version INTEGER NOT NULL CHECK (current_version >= 1),
      creator_person_id TEXT,
      created_at TIMESTAMPTZ NOT NULL,
      updated_at TIMESTAMPTZ NOT NULL,
      UNIQUE (account_id, slug)
    );
    CREATE TABLE preset_versions (
      id TEXT PRIMARY KEY,
      preset_id TEXT NOT NULL REFERENCES presets (id) ON DELETE CASCADE,
      version INTEGER NOT NULL CHECK (version >= 1),
      config JSONB NOT NULL,
      created_at TIMESTAMPTZ NOT NULL,
      created_by TEXT NOT NULL,
      UNIQUE (preset_id, version)
    );
    ALTER TABLE usage_records ADD COLUMN IF NOT EXISTS preset_slug TEXT;
    ALTER TABLE usage_records ADD COLUMN IF NOT EXISTS preset_version INTEGER;
  `,
};
