import type { VersionedMigration } from './versioned-migration.js';

/**
 * Zero-completion insurance (docs/usage.md#zero-completion-insurance). Additive: each usage record says
 * whether it was insured (its answer ended empty or in an error, so it cost the caller nothing). The
 * default is "not insured", so the previous release's rows and inserts mean what they meant.
 */
export const v16ZeroCompletionInsurance: VersionedMigration = {
  version: 16,
  name: 'zero-completion insurance',
  sqlite: `
    ALTER TABLE usage_records ADD COLUMN insured INTEGER NOT NULL DEFAULT 0;
  `,
  postgres: `
    ALTER TABLE usage_records ADD COLUMN IF NOT EXISTS insured BOOLEAN NOT NULL DEFAULT FALSE;
  `,
};
