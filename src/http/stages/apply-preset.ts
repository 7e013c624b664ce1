/**
 * Presets on model traffic (chat completions, Responses, Messages and token counts): a request names one
 * as `model: "@preset/<slug>"`, `model: "<model>@preset/<slug>"` (the preset applied to that model) or a
 * `preset: "<slug>"` field. Between reading the body and checking it, the caller's organization's active
 * preset is looked up and its configuration written into the body where the request left a field unset
 * (accounts/preset-merge.ts), so everything after (the endpoint's schema, provider preferences,
 * guardrails, the plan's route profiles and models) judges the result as if the client had sent it: a
 * preset never reaches what the plan does not allow. A request that names no preset costs nothing here.
 */
import type { PresetApi } from '../../accounts/preset-config.js';
import { parsePresetReference } from '../../accounts/preset-config.js';
import { applyPresetConfig } from '../../accounts/preset-merge.js';
import type { PresetService } from '../../accounts/preset-service.js';
import { RouterError } from '../../core/errors.js';
import { establishing, type Authenticated, type ParsedBody, type PresetApplied } from '../request-context.js';
import type { Stage } from './stage.js';

export function createApplyPresetStage(presets: Pick<PresetService, 'forUse'>, api: PresetApi): Stage<Authenticated & ParsedBody> {
  // Synchronous for the request that names no preset (no promise, no await: stage.ts).
  return (_event, request) => {
    const reference = parsePresetReference(request.body.model);
    // `preset: null` names none (as an absent field), like OpenRouter's other optional fields.
    if (reference === undefined && (request.body.preset === undefined || request.body.preset === null)) return;
    return apply(request, reference);
  };

  async function apply(request: Authenticated & ParsedBody, reference: ReturnType<typeof parsePresetReference>): Promise<unknown> {
    const body = request.body;
    const field = body.preset ?? undefined;
    delete body.preset;
    if (field !== undefined && typeof field !== 'string') throw new RouterError('invalid_request', "Invalid value for 'preset': a preset's slug, a string.", { param: 'preset' });
    if (reference && field !== undefined && reference.slug !== field) {
      throw new RouterError('invalid_request', `The request names two presets ('${clip(reference.slug)}' in model and '${clip(field)}' in preset); name one.`, { param: 'preset' });
    }
    const slug = reference?.slug ?? (field as string);
    const param = reference ? 'model' : 'preset';
    const found = await presets.forUse(request.caller.accountId, slug);
    if (!found) {
      throw new RouterError('preset_not_found', `No active preset '${clip(slug)}' in this organization. List them with GET /v1/presets, or see @preset/… entries in GET /v1/models.`, { param });
    }
    if (reference) {
      // `<model>@preset/<slug>`: that model; `@preset/<slug>`: the preset's own (filled in below).
      if (reference.model === undefined) delete body.model;
      else body.model = reference.model;
    }
    applyPresetConfig(api, found.config, body);
    if (body.model === undefined) {
      throw new RouterError('invalid_request', `The preset '${slug}' names no model; name one in the request (e.g. "model": "<model>@preset/${slug}").`, { param: 'model' });
    }
    const applied = establishing<PresetApplied>(request);
    applied.preset = { slug, version: found.version.version };
    return applied;
  }
}

/** Client text in a message: bounded. */
function clip(text: string): string {
  return text.length > 80 ? `${text.slice(0, 80)}…` : text;
}
