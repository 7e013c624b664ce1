/**
 * The caller's presets in GET /v1/models (the complaint OpenRouter's users repeat most: pickers that
 * list /models cannot show presets). Each active preset of the caller's organization whose model the
 * caller's plan allows is a model object whose id is what a request sends (`@preset/<slug>`); nobody
 * else's are listed. The listing shows only what the caller may call, as for route profiles and concrete
 * models: a preset naming a model outside the plan, or naming none (`@preset/<slug>` alone is then
 * refused), is left out, and so is it from `unknown_model`'s suggestions.
 */
import type { PlanConfig, RouteProfileConfig } from '../../config/types.js';
import { CONCRETE_MODEL_FAMILY } from '../../config/concrete-model-route.js';
import { planAllowsModel } from '../../config/model-globs.js';
import type { PresetConfigJson, PresetRecord, PresetStore } from '../../stores/preset-store.js';
import { SUFFIX_SORT } from '../stages/provider-preferences.js';

export const PRESET_MODEL_PREFIX = '@preset/';

/** What decides whether the caller may call a model: the configured routes and its plan. */
export interface CallerModels {
  routes: ReadonlyMap<string, RouteProfileConfig>;
  plan: PlanConfig | undefined;
}

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

/**
 * Would a request naming `model` pass the plan (http/authorize-route.ts)? A route profile the plan
 * includes, or a concrete model it allows; OpenRouter's `:nitro` and `:floor` suffixes name the same model.
 */
export function planMayCall(caller: CallerModels, model: unknown): boolean {
  if (typeof model !== 'string') return false;
  const colon = model.lastIndexOf(':');
  const base = colon >= 0 && SUFFIX_SORT.has(model.slice(colon + 1)) ? model.slice(0, colon) : model;
  const route = caller.routes.get(base);
  if (!route) return false;
  if (route.family === CONCRETE_MODEL_FAMILY) return planAllowsModel(caller.plan, route.id);
  return (caller.plan?.routeProfiles ?? []).includes(route.id);
}

function callable(caller: CallerModels, config: PresetConfigJson): boolean {
  return planMayCall(caller, config.model);
}

/** The organization's active presets the caller may call, as model objects, by slug (one store read). */
export async function presetModels(store: PresetStore, accountId: string, caller: CallerModels): Promise<ReturnType<typeof presetModelObject>[]> {
  const presets = await store.listActivePresetConfigs(accountId);
  return presets.filter(({ config }) => callable(caller, config)).map(({ preset }) => presetModelObject(preset));
}

/** One of them by its model id, or undefined (another organization's, or one the caller may not call, is not found either). */
export async function presetModel(store: PresetStore, accountId: string, id: string, caller: CallerModels): Promise<ReturnType<typeof presetModelObject> | undefined> {
  if (!id.startsWith(PRESET_MODEL_PREFIX)) return undefined;
  const found = await store.getPresetVersion(accountId, id.slice(PRESET_MODEL_PREFIX.length));
  return found && found.preset.status === 'active' && callable(caller, found.version.config) ? presetModelObject(found.preset) : undefined;
}

/**
 * The organization's presets the caller may call, for an unknown model's suggestions only (one store
 * read on that refusal, none on any other request). A courtesy: if the store cannot answer, the refusal
 * goes out without them.
 */
export async function presetIdsForSuggestions(store: PresetStore, accountId: string, caller: CallerModels): Promise<string[]> {
  try {
    return (await presetModels(store, accountId, caller)).map((preset) => preset.id);
  } catch {
    return [];
  }
}
