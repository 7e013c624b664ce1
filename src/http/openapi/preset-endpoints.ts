/**
 * The preset API's entries in the OpenAPI registry (public-endpoints.ts): reads with any key of the
 * organization, changes with a management key, each also at OpenRouter's /api/v1 path (docs/presets.md).
 */
import type { ErrorCode } from '../../core/errors.js';
import { createPresetSchema, presetFromRequestSchema, updatePresetSchema } from '../preset-api-schemas.js';
import { KEY_BODY, MANAGEMENT, type EndpointParameter, type PublicEndpoint } from './endpoint-types.js';

const slugParameter: EndpointParameter = { name: 'slug', in: 'path', required: true, description: 'The preset’s slug, as in `@preset/<slug>`.', schema: { type: 'string', maxLength: 64 } };
const versionParameter: EndpointParameter = { name: 'version', in: 'path', required: true, description: 'A version number (1 is the first).', schema: { type: 'integer', minimum: 1 } };
const READ: readonly ErrorCode[] = ['rate_limit_exceeded', 'preset_not_found'];
const PRESET_VIEW = '`{"data": {…}}`: the preset, its current configuration and version.';

const read = (path: string, operationId: string, summary: string, success: string, parameters: readonly EndpointParameter[] = []): PublicEndpoint => ({
  path,
  method: 'get',
  operationId,
  summary,
  tag: 'Presets',
  parameters,
  success: { status: 200, description: success },
  errors: parameters.length === 0 ? ['rate_limit_exceeded', 'invalid_request'] : READ,
  auth: 'bearer',
  openRouterAlias: true,
});

const fromRequest = (api: 'chat/completions' | 'responses' | 'messages', operationId: string): PublicEndpoint => ({
  path: `/v1/presets/{slug}/${api}`,
  method: 'post',
  operationId,
  summary: `Create a preset, or add a version, from a real ${api} request body (only its configuration fields are kept)`,
  tag: 'Presets',
  requestSchema: presetFromRequestSchema,
  parameters: [
    slugParameter,
    { name: 'name', in: 'query', required: false, description: 'The preset’s name (on creation).', schema: { type: 'string', maxLength: 100 } },
    { name: 'description', in: 'query', required: false, description: 'The preset’s description.', schema: { type: 'string', maxLength: 1000 } },
  ],
  success: { status: 201, description: `${PRESET_VIEW} 201 when created, 200 when a version was added.` },
  errors: KEY_BODY,
  auth: 'management',
  openRouterAlias: true,
});

export const PRESET_ENDPOINTS: readonly PublicEndpoint[] = [
  read('/v1/presets', 'listPresets', 'The organization’s presets, 100 a page', '`{"data": [{…}], "total_count": n}`.', [
    { name: 'offset', in: 'query', required: false, description: 'Presets to skip.', schema: { type: 'integer', minimum: 0 } },
    { name: 'limit', in: 'query', required: false, description: 'Presets in the page (at most 100).', schema: { type: 'integer', minimum: 1, maximum: 100 } },
  ]),
  {
    path: '/v1/presets',
    method: 'post',
    operationId: 'createPreset',
    summary: 'Create a preset, or add a version to the one with this slug',
    tag: 'Presets',
    requestSchema: createPresetSchema,
    success: { status: 201, description: `${PRESET_VIEW} 201 when created, 200 when a version was added.` },
    errors: KEY_BODY,
    auth: 'management',
    openRouterAlias: true,
  },
  read('/v1/presets/{slug}', 'getPreset', 'One preset', PRESET_VIEW, [slugParameter]),
  {
    path: '/v1/presets/{slug}',
    method: 'patch',
    operationId: 'updatePreset',
    summary: 'Rename, describe, disable or archive a preset; a `config` adds a version',
    tag: 'Presets',
    requestSchema: updatePresetSchema,
    parameters: [slugParameter],
    success: { status: 200, description: PRESET_VIEW },
    errors: [...KEY_BODY, 'preset_not_found'],
    auth: 'management',
    openRouterAlias: true,
  },
  {
    path: '/v1/presets/{slug}',
    method: 'delete',
    operationId: 'deletePreset',
    summary: 'Delete a preset and its versions',
    tag: 'Presets',
    parameters: [slugParameter],
    success: { status: 200, description: '`{"deleted": true}`.' },
    errors: [...MANAGEMENT, 'preset_not_found'],
    auth: 'management',
    openRouterAlias: true,
  },
  read('/v1/presets/{slug}/versions', 'listPresetVersions', 'A preset’s versions, newest first', '`{"data": [{…}], "total_count": n}`.', [slugParameter]),
  read('/v1/presets/{slug}/versions/{version}', 'getPresetVersion', 'One version of a preset', '`{"data": {"id", "config", "created_at"}}`.', [slugParameter, versionParameter]),
  fromRequest('chat/completions', 'createPresetFromChat'),
  fromRequest('responses', 'createPresetFromResponse'),
  fromRequest('messages', 'createPresetFromMessage'),
];
