/**
 * Presets (issue 33; OpenRouter's `@preset/<slug>`): a saved model, provider preferences, system prompt
 * and parameters an organization's requests can name instead of repeating them. Scoped like keys: an
 * organization (an `accounts` row) owns them, slugs are unique within it, and another organization can
 * neither read nor use them. Versioned: every change of the configuration adds a version, numbered from 1,
 * and the newest is the preset's current (designated) one; old versions stay readable, so a receipt that
 * names `slug` and `version` can always be looked up while the preset exists.
 */

/** A preset's saved configuration (accounts/preset-config.ts says which fields it may hold). */
export type PresetConfigJson = Readonly<Record<string, unknown>>;

export type PresetStatus = 'active' | 'disabled' | 'archived';

export interface PresetRecord {
  id: string;
  accountId: string;
  /** The workspace it belongs to; null: the organization's default (as for keys). */
  workspaceId: string | null;
  /** Unique within the organization: lowercase letters, digits and hyphens (PRESET_SLUG). */
  slug: string;
  name: string;
  description: string;
  /** Only an active preset can be used in a request; every status can be read and changed. */
  status: PresetStatus;
  /** The current version's number (1 for a new preset). */
  currentVersion: number;
  /** The person who created it (null: a key, the CLI or the operator). */
  creatorPersonId: string | null;
  createdAt: string;
  updatedAt: string;
}

export interface PresetVersionRecord {
  id: string;
  presetId: string;
  version: number;
  config: PresetConfigJson;
  createdAt: string;
  /** Who made this version (`key:<id>`, `person:<id>`, `cli`). */
  createdBy: string;
}

export interface SavePresetInput {
  accountId: string;
  slug: string;
  config: PresetConfigJson;
  /** On creation: absent means the slug; on a new version: absent keeps the current one. */
  name?: string;
  description?: string;
  workspaceId?: string | null;
  creatorPersonId?: string | null;
}

export interface PresetPatch {
  name?: string;
  description?: string;
  status?: PresetStatus;
}

export interface PresetStore {
  /** A page of the organization's presets by slug, and how many it has in all. */
  listPresets(accountId: string, page: { offset: number; limit: number }): Promise<{ presets: PresetRecord[]; total: number }>;
  getPreset(accountId: string, slug: string): Promise<PresetRecord | null>;
  /**
   * The organization's active presets by slug, each with its current version's configuration, in one
   * query (GET /v1/models lists only those whose model the caller's plan allows, without a read per preset).
   */
  listActivePresetConfigs(accountId: string): Promise<Array<{ preset: PresetRecord; config: PresetConfigJson }>>;
  /** One version of the organization's preset (absent `version`: the current one), or null when either is missing. */
  getPresetVersion(accountId: string, slug: string, version?: number): Promise<{ preset: PresetRecord; version: PresetVersionRecord } | null>;
  /** Every version of the preset, newest first; null when the organization has no such preset. */
  listPresetVersions(accountId: string, slug: string): Promise<PresetVersionRecord[] | null>;
  /**
   * Creates the preset with version 1, or adds the next version to the existing one and makes it current,
   * in one transaction (two saves at once get two distinct versions). Audited as `preset.create` or
   * `preset.version` with the slug and version, never the configuration.
   */
  savePreset(input: SavePresetInput, actor: string): Promise<{ preset: PresetRecord; version: PresetVersionRecord; created: boolean }>;
  /** Renames, describes, disables or archives a preset (no new version); null when there is none. Audited as `preset.update`. */
  updatePreset(accountId: string, slug: string, patch: PresetPatch, actor: string): Promise<PresetRecord | null>;
  /** Removes the preset and its versions; false when there was none. Audited as `preset.delete`. */
  deletePreset(accountId: string, slug: string, actor: string): Promise<boolean>;
}

/** A preset's slug as OpenRouter accepts it in `@preset/<slug>`. */
export const PRESET_SLUG = /^[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?$/;
export const PRESET_NAME_MAX = 100;
export const PRESET_DESCRIPTION_MAX = 1000;
/** Versions kept per preset: far more than anyone edits, and a bound on what one preset can store. */
export const PRESET_VERSIONS_MAX = 1000;
/** Presets one organization may keep. */
export const PRESETS_PER_ORGANIZATION_MAX = 500;

/** A save past PRESET_VERSIONS_MAX or PRESETS_PER_ORGANIZATION_MAX: refused, nothing written. */
export class PresetLimitError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PresetLimitError';
  }
}
