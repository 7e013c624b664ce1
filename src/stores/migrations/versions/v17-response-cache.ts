import type { VersionedMigration } from './versioned-migration.js';

/**
 * The response cache (docs/caching.md). Additive: each account's own rule for the cache (NULL is
 * `allow`, so the previous release's rows and inserts mean what they meant); on each usage record the
 * request a cache hit replayed and the spend it saved (NULL on every other record); on each rollup the
 * hits and the spend they saved (0 by default, so the previous release's upserts keep adding up).
 */
export const v17ResponseCache: VersionedMigration = {
  version: 17,
  name: 'response cache',
  sqlite: `
    ALTER TABLE accounts ADD COLUMN response_cache TEXT;
    ALTER TABLE usage_records ADD COLUMN response_cache_hit_of TEXT;
    ALTER TABLE usage_records ADD COLUMN response_cache_saved_nano_usd INTEGER;
    ALTER TABLE usage_rollups ADD COLUMN response_cache_hits INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE usage_rollups ADD COLUMN response_cache_saved_nano_usd INTEGER NOT NULL DEFAULT 0;
  `,
  postgres: `
    ALTER TABLE accounts ADD COLUMN IF NOT EXISTS response_cache TEXT;
    ALTER TABLE usage_records ADD COLUMN IF NOT EXISTS response_cache_hit_of TEXT;
    ALTER TABLE usage_records ADD COLUMN IF NOT EXISTS response_cache_saved_nano_usd BIGINT;
    ALTER TABLE usage_rollups ADD COLUMN IF NOT EXISTS response_cache_hits BIGINT NOT NULL DEFAULT 0;
    ALTER TABLE usage_rollups ADD COLUMN IF NOT EXISTS response_cache_saved_nano_usd BIGINT NOT NULL DEFAULT 0;
  `,
};
