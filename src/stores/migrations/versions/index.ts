/**
 * Migrations from version 12 on, one file per version holding both dialects side by side, so a schema
 * change reads as one unit and parallel work adds a file instead of editing two long lists. Versions 1–11
 * stay in sqlite-migrations.ts and postgres-migrations.ts, unedited (a released version never changes).
 * Keep this list in version order; gaps are allowed only while a numbered change is unmerged.
 */
import { v12TeamsPeople } from './v12-teams-people.js';
import type { VersionedMigration } from './versioned-migration.js';
import { v13WorkspacesBudgets } from './v13-workspaces-budgets.js';
import { v14KeyApi } from './v14-key-api.js';
import { v15Presets } from './v15-presets.js';
import { v16ZeroCompletionInsurance } from './v16-zero-completion-insurance.js';
import { v17ResponseCache } from './v17-response-cache.js';
import { v18UsageAttribution } from './v18-usage-attribution.js';

export const laterMigrations: readonly VersionedMigration[] = [v12TeamsPeople, v13WorkspacesBudgets, v14KeyApi, v15Presets, v16ZeroCompletionInsurance, v17ResponseCache, v18UsageAttribution];
