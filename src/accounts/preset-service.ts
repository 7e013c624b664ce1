/**
 * Presets as the key API, the CLI and the account app change them: the one place their input is judged
 * (slug, name, description, the configuration against presetConfigSchema and its size), so all three
 * refuse the same things with the same words. Storage and audit are the store's (stores/preset-store.ts).
 */
import { Value } from '@sinclair/typebox/value';
import {
  PRESET_DESCRIPTION_MAX,
  PRESET_NAME_MAX,
  PRESET_SLUG,
  type PresetPatch,
  type PresetRecord,
  type PresetStore,
  type PresetVersionRecord,
  type SavePresetInput,
} from '../stores/preset-store.js';
import { PRESET_CONFIG_MAX_BYTES, configFromRequest, presetConfigSchema, type PresetApi, type PresetConfig } from './preset-config.js';

/** A preset input the service refuses: `field` names what to fix. */
export class PresetInputError extends Error {
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(message);
    this.name = 'PresetInputError';
  }
}

export interface SavePresetRequest extends Omit<SavePresetInput, 'config'> {
  config: unknown;
}

export interface PresetService {
  /** Creates the preset or adds a version with this configuration (checked first). */
  save(input: SavePresetRequest, actor: string): Promise<{ preset: PresetRecord; version: PresetVersionRecord; created: boolean }>;
  /** The same from a real request body of `api`: only its configuration fields are kept. */
  saveFromRequest(api: PresetApi, input: Omit<SavePresetRequest, 'config'>, body: Readonly<Record<string, unknown>>, actor: string): ReturnType<PresetService['save']>;
  update(accountId: string, slug: string, patch: PresetPatch, actor: string): Promise<PresetRecord | null>;
  /** The active preset's current version, for a request that names it; null when there is none or it is not active. */
  forUse(accountId: string, slug: string): Promise<{ preset: PresetRecord; version: PresetVersionRecord; config: PresetConfig } | null>;
}

export function checkPresetSlug(slug: string): void {
  if (!PRESET_SLUG.test(slug)) {
    throw new PresetInputError('slug', 'A preset slug is 1 to 64 lowercase letters, digits and hyphens, starting and ending with a letter or digit (e.g. code-review).');
  }
}

function checkPatch(patch: PresetPatch): void {
  if (patch.name !== undefined && (patch.name.trim().length === 0 || patch.name.length > PRESET_NAME_MAX)) throw new PresetInputError('name', `A preset name is 1 to ${PRESET_NAME_MAX} characters.`);
  if (patch.description !== undefined && patch.description.length > PRESET_DESCRIPTION_MAX) throw new PresetInputError('description', `A preset description is at most ${PRESET_DESCRIPTION_MAX} characters.`);
}

/** The configuration as the preset keeps it, or PresetInputError naming the first field that does not fit. */
export function checkPresetConfig(config: unknown): PresetConfig {
  if (typeof config !== 'object' || config === null || Array.isArray(config)) throw new PresetInputError('config', 'A preset configuration is a JSON object.');
  if (Buffer.byteLength(JSON.stringify(config)) > PRESET_CONFIG_MAX_BYTES) throw new PresetInputError('config', `A preset configuration is at most ${PRESET_CONFIG_MAX_BYTES} bytes as JSON.`);
  const [first] = Value.Errors(presetConfigSchema, config);
  if (first) {
    const path = first.path.split('/').filter(Boolean).join('.');
    const field = path === '' ? 'config' : `config.${path}`;
    // Own fields only: a client's `constructor` or `__proto__` is not a preset field, whatever Object has.
    const unknown = path !== '' && !Object.hasOwn(presetConfigSchema.properties, path.split('.')[0]!);
    throw new PresetInputError(field, unknown ? `'${path.split('.')[0]}' is not a preset field (${Object.keys(presetConfigSchema.properties).join(', ')}).` : `Invalid value for '${field}': ${first.message}.`);
  }
  return config as PresetConfig;
}

export function createPresetService(store: PresetStore): PresetService {
  const service: PresetService = {
    async save(input, actor) {
      checkPresetSlug(input.slug);
      checkPatch({ ...(input.name !== undefined ? { name: input.name } : {}), ...(input.description !== undefined ? { description: input.description } : {}) });
      const config = checkPresetConfig(input.config);
      return store.savePreset({ ...input, config }, actor);
    },
    saveFromRequest: (api, input, body, actor) => service.save({ ...input, config: configFromRequest(api, body) }, actor),
    async update(accountId, slug, patch, actor) {
      checkPatch(patch);
      return store.updatePreset(accountId, slug, patch, actor);
    },
    async forUse(accountId, slug) {
      if (!PRESET_SLUG.test(slug)) return null;
      const found = await store.getPresetVersion(accountId, slug);
      if (!found || found.preset.status !== 'active') return null;
      return { ...found, config: found.version.config as PresetConfig };
    },
  };
  return service;
}
