/** Preset rows as both dialects keep them (the configuration as JSON text or JSONB) and their records. */
import type { PresetConfigJson, PresetRecord, PresetStatus, PresetVersionRecord } from './preset-store.js';

type Instant = string | Date;
const iso = (value: Instant): string => (value instanceof Date ? value.toISOString() : value);

export interface PresetRow {
  id: string;
  account_id: string;
  workspace_id: string | null;
  slug: string;
  name: string;
  description: string;
  status: PresetStatus;
  current_version: number;
  creator_person_id: string | null;
  created_at: Instant;
  updated_at: Instant;
}

export interface PresetVersionRow {
  id: string;
  preset_id: string;
  version: number;
  config: string | PresetConfigJson;
  created_at: Instant;
  created_by: string;
}

export function toPreset(row: PresetRow): PresetRecord {
  return {
    id: row.id,
    accountId: row.account_id,
    workspaceId: row.workspace_id,
    slug: row.slug,
    name: row.name,
    description: row.description,
    status: row.status,
    currentVersion: Number(row.current_version),
    creatorPersonId: row.creator_person_id,
    createdAt: iso(row.created_at),
    updatedAt: iso(row.updated_at),
  };
}

export function toPresetVersion(row: PresetVersionRow): PresetVersionRecord {
  return {
    id: row.id,
    presetId: row.preset_id,
    version: Number(row.version),
    config: typeof row.config === 'string' ? (JSON.parse(row.config) as PresetConfigJson) : row.config,
    createdAt: iso(row.created_at),
    createdBy: row.created_by,
  };
}

/** What the audit log keeps of a change: names and numbers, never the configuration (it may hold a system prompt). */
export function presetAuditDetails(preset: { id: string; slug: string }, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { presetId: preset.id, slug: preset.slug, ...extra };
}

/** A version's id: its preset's and its number, so a listing names the current version without reading it. */
export function presetVersionId(presetId: string, version: number): string {
  return `${presetId}-v${version}`;
}
