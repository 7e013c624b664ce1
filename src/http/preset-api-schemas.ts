/**
 * What the preset management API (/v1/presets, /api/v1/presets) accepts and answers, as TypeBox schemas:
 * the bodies are validated with them, so every refusal names its field, and the answers are described
 * by them for the API's reference (OpenAPI). The configuration itself is accounts/preset-config.ts's.
 */
import { Type } from '@sinclair/typebox';
import { presetConfigSchema } from '../accounts/preset-config.js';
import { PRESET_DESCRIPTION_MAX, PRESET_NAME_MAX } from '../stores/preset-store.js';

const slug = Type.String({ pattern: '^[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?$', description: 'Unique in the organization: lowercase letters, digits and hyphens; used as `@preset/<slug>`.' });
const name = Type.String({ minLength: 1, maxLength: PRESET_NAME_MAX });
const description = Type.String({ maxLength: PRESET_DESCRIPTION_MAX });
const status = Type.Union([Type.Literal('active'), Type.Literal('disabled'), Type.Literal('archived')], { description: 'Only an active preset can be used in a request.' });
// The configuration is checked field by field by the preset service (its messages name `config.<field>`).
const config = Type.Object({}, { additionalProperties: true, description: 'The preset configuration (PresetConfig).' });

/** POST /v1/presets: create the preset, or add a version to the one with this slug. */
export const createPresetSchema = Type.Object({ slug, name: Type.Optional(name), description: Type.Optional(description), config }, { additionalProperties: false });

/** PATCH /v1/presets/{slug}: name, description, status; a `config` adds a version. */
export const updatePresetSchema = Type.Object(
  { name: Type.Optional(name), description: Type.Optional(description), status: Type.Optional(status), config: Type.Optional(config) },
  { additionalProperties: false },
);

/** POST /v1/presets/{slug}/chat/completions (also /responses, /messages): a real request body; only configuration fields are kept. */
export const presetFromRequestSchema = Type.Object({}, { additionalProperties: true, description: 'A chat completions, Responses or Messages request body.' });

export const presetVersionView = Type.Object({
  id: Type.String(),
  version: Type.Integer({ minimum: 1 }),
  config: presetConfigSchema,
  created_at: Type.String({ format: 'date-time' }),
});

export const presetView = Type.Object({
  id: Type.String(),
  slug,
  name: Type.String(),
  description: Type.String(),
  status,
  designated_version_id: Type.String(),
  current_version: Type.Integer({ minimum: 1 }),
  workspace_id: Type.Union([Type.String(), Type.Null()]),
  creator_user_id: Type.Union([Type.String(), Type.Null()]),
  created_at: Type.String({ format: 'date-time' }),
  updated_at: Type.String({ format: 'date-time' }),
});

/** GET /v1/presets */
export const presetListResponse = Type.Object({ data: Type.Array(presetView), total_count: Type.Integer({ minimum: 0 }) });
/** GET /v1/presets/{slug}, and every write's answer: the preset with its current version. */
export const presetResponse = Type.Object({ data: Type.Intersect([presetView, Type.Object({ designated_version: presetVersionView })]) });
/** GET /v1/presets/{slug}/versions */
export const presetVersionListResponse = Type.Object({ data: Type.Array(presetVersionView), total_count: Type.Integer({ minimum: 0 }) });
/** GET /v1/presets/{slug}/versions/{version} */
export const presetVersionResponse = Type.Object({ data: presetVersionView });
/** DELETE /v1/presets/{slug} */
export const presetDeletedResponse = Type.Object({ deleted: Type.Literal(true) });
