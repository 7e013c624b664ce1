/**
 * The caller's presets in GET /v1/models (the complaint OpenRouter's users repeat most: pickers that
 * list /models cannot show presets). Each active preset of the caller's organization is a model object
 * whose id is what a request sends (`@preset/<slug>`); nobody else's are listed. Whether the plan allows
 * the preset's model is judged when it is used, as for any model a request names.
 */
import { PRESETS_PER_ORGANIZATION_MAX, type PresetRecord, type PresetStore } from '../../stores/preset-store.js';

export const PRESET_MODEL_PREFIX = '@preset/';

export function presetModelObject(preset: PresetRecord) {
  return {
    id: `${PRESET_MODEL_PREFIX}${preset.slug}`,
    object: 'model',
    created: Math.floor(Date.parse(preset.createdAt) / 1000),
    owned_by: 'preset',
    name: preset.name,
    description: preset.description,
    preset: { slug: preset.slug, version: preset.currentVersion },
  };
}

/** The organization's active presets as model objects, by slug. */
export async function presetModels(store: PresetStore, accountId: string): Promise<ReturnType<typeof presetModelObject>[]> {
  const { presets } = await store.listPresets(accountId, { offset: 0, limit: PRESETS_PER_ORGANIZATION_MAX });
  return presets.filter((preset) => preset.status === 'active').map(presetModelObject);
}

/** One of them by its model id, or undefined (another organization's is not found either). */
export async function presetModel(store: PresetStore, accountId: string, id: string): Promise<ReturnType<typeof presetModelObject> | undefined> {
  if (!id.startsWith(PRESET_MODEL_PREFIX)) return undefined;
  const preset = await store.getPreset(accountId, id.slice(PRESET_MODEL_PREFIX.length));
  return preset && preset.status === 'active' ? presetModelObject(preset) : undefined;
}
