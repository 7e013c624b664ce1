/**
 * The preset API in OpenRouter's shape (`/api/v1/presets`, also under /v1): reads for any key of the
 * organization (the `otherV1` list), writes for its management keys only (the `management` list,
 * stages/key-kind.ts). A preset of another organization, or none, is 404 `not_found`. Every write is
 * audited by the store with the actor `key:<management key id>`, as /v1/keys's are.
 *
 * Writes: `POST /presets` (plain JSON: create, or add a version), `PATCH /presets/{slug}` (name,
 * description, status; a `config` adds a version), `DELETE /presets/{slug}`, and
 * `POST /presets/{slug}/chat/completions` (also `/responses`, `/messages`): a real request body, of which
 * only the configuration fields are kept (accounts/preset-config.ts), never the conversation.
 */
import { getQuery, getRouterParam, setResponseStatus, type H3Event } from 'h3';
import type { PresetApi } from '../../accounts/preset-config.js';
import { PresetInputError, createPresetService } from '../../accounts/preset-service.js';
import { RouterError } from '../../core/errors.js';
import { presetVersionId } from '../../stores/preset-rows.js';
import { PresetLimitError, type PresetPatch, type PresetRecord, type PresetVersionRecord } from '../../stores/preset-store.js';
import { createPresetSchema, presetFromRequestSchema, updatePresetSchema } from '../preset-api-schemas.js';
import type { StandingRequest } from '../request-context.js';
import type { RouterDeps } from '../router-deps.js';
import { createBodyValidator } from '../stages/read-json-body.js';
import { parseOffset, readBody } from './keys-api.js';

/** Presets per page of GET /v1/presets, at most and by default. */
export const PRESETS_PAGE_SIZE = 100;
/** A plain JSON preset is small (the configuration is at most 64 KB). */
const BODY_LIMIT_BYTES = 96 * 1024;

type Handler = (event: H3Event, request: StandingRequest) => Promise<unknown>;

export function presetView(preset: PresetRecord) {
  return {
    id: preset.id,
    slug: preset.slug,
    name: preset.name,
    description: preset.description,
    status: preset.status,
    designated_version_id: presetVersionId(preset.id, preset.currentVersion),
    current_version: preset.currentVersion,
    workspace_id: preset.workspaceId,
    creator_user_id: preset.creatorPersonId,
    created_at: preset.createdAt,
    updated_at: preset.updatedAt,
  };
}

export function presetVersionView(version: PresetVersionRecord) {
  return { id: version.id, version: version.version, config: version.config, created_at: version.createdAt };
}

export function createPresetsApiRoutes(deps: RouterDeps): Record<'list' | 'read' | 'versions' | 'version' | 'create' | 'update' | 'remove', Handler> & { fromRequest(api: PresetApi): Handler } {
  const service = createPresetService(deps.store);
  const validCreate = createBodyValidator(createPresetSchema);
  const validUpdate = createBodyValidator(updatePresetSchema);
  const validRequest = createBodyValidator(presetFromRequestSchema);
  const actorOf = (request: StandingRequest) => `key:${request.caller.keyId}`;
  const slugOf = (event: H3Event) => (getRouterParam(event, 'slug') ?? '').slice(0, 200);
  const missing = (slug: string) => new RouterError('not_found', `No preset ${slug.slice(0, 80)} in this organization.`, { param: 'slug' });
  const owner = (request: StandingRequest) => ({ accountId: request.caller.accountId, workspaceId: request.caller.workspaceId ?? null, creatorPersonId: request.caller.personId ?? null });

  async function withCurrent(accountId: string, slug: string) {
    const found = await deps.store.getPresetVersion(accountId, slug);
    if (!found) throw missing(slug);
    return { data: { ...presetView(found.preset), designated_version: presetVersionView(found.version) } };
  }

  /** A write's answer: 201 when it created the preset. */
  function saved(event: H3Event, result: { preset: PresetRecord; version: PresetVersionRecord; created: boolean }) {
    if (result.created) setResponseStatus(event, 201);
    return { data: { ...presetView(result.preset), designated_version: presetVersionView(result.version) } };
  }

  return {
    async list(event, request) {
      const query = getQuery(event);
      const offset = parseOffset(query.offset);
      const limit = parseLimit(query.limit);
      const page = await deps.store.listPresets(request.caller.accountId, { offset, limit });
      return { data: page.presets.map(presetView), total_count: page.total };
    },

    read: (event, request) => withCurrent(request.caller.accountId, slugOf(event)),

    async versions(event, request) {
      const slug = slugOf(event);
      const versions = await deps.store.listPresetVersions(request.caller.accountId, slug);
      if (!versions) throw missing(slug);
      return { data: versions.map(presetVersionView), total_count: versions.length };
    },

    async version(event, request) {
      const slug = slugOf(event);
      const raw = getRouterParam(event, 'version') ?? '';
      const number = /^[1-9]\d{0,5}$/.test(raw) ? Number(raw) : Number.NaN;
      if (Number.isNaN(number)) throw new RouterError('invalid_request', 'version must be a whole number from 1.', { param: 'version' });
      const found = await deps.store.getPresetVersion(request.caller.accountId, slug, number);
      if (!found) throw new RouterError('not_found', `No version ${number} of preset ${slug.slice(0, 80)} in this organization.`, { param: 'version' });
      return { data: presetVersionView(found.version) };
    },

    async create(event, request) {
      const body = (await readBody(event, validCreate, BODY_LIMIT_BYTES)) as { slug: string; name?: string; description?: string; config: unknown };
      return saved(event, await asContractError(service.save({ ...owner(request), slug: body.slug, config: body.config, ...named(body) }, actorOf(request))));
    },

    async update(event, request) {
      const slug = slugOf(event);
      const body = (await readBody(event, validUpdate, BODY_LIMIT_BYTES)) as PresetPatch & { config?: unknown };
      const { config, ...patch } = body;
      const actor = actorOf(request);
      if (!(await deps.store.getPreset(request.caller.accountId, slug))) throw missing(slug);
      if (config !== undefined) await asContractError(service.save({ ...owner(request), slug, config }, actor));
      if (Object.keys(patch).length > 0 && !(await asContractError(service.update(request.caller.accountId, slug, patch, actor)))) throw missing(slug);
      return withCurrent(request.caller.accountId, slug);
    },

    async remove(event, request) {
      const slug = slugOf(event);
      if (!(await deps.store.deletePreset(request.caller.accountId, slug, actorOf(request)))) throw missing(slug);
      return { deleted: true };
    },

    fromRequest(api) {
      return async (event, request) => {
        const slug = slugOf(event);
        // A real request: as large as the model routes accept (its conversation is read, then dropped).
        const body = (await readBody(event, validRequest, deps.config.server.bodyLimitBytes)) as Record<string, unknown>;
        const query = getQuery(event);
        const input = { ...owner(request), slug, ...named({ name: textParam(query.name, 'name'), description: textParam(query.description, 'description') }) };
        return saved(event, await asContractError(service.saveFromRequest(api, input, body, actorOf(request))));
      };
    },
  };
}

function named(fields: { name?: string | undefined; description?: string | undefined }): { name?: string; description?: string } {
  return { ...(fields.name !== undefined ? { name: fields.name } : {}), ...(fields.description !== undefined ? { description: fields.description } : {}) };
}

/** The service's refusals in the contract's words. */
async function asContractError<T>(work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (error) {
    if (error instanceof PresetInputError) throw new RouterError('invalid_request', error.message, { param: error.field });
    if (error instanceof PresetLimitError) throw new RouterError('invalid_request', error.message);
    throw error;
  }
}

function parseLimit(value: unknown): number {
  if (value === undefined) return PRESETS_PAGE_SIZE;
  const limit = typeof value === 'string' && /^\d{1,3}$/.test(value) ? Number(value) : Number.NaN;
  if (!(limit >= 1 && limit <= PRESETS_PAGE_SIZE)) throw new RouterError('invalid_request', `limit must be a whole number from 1 to ${PRESETS_PAGE_SIZE}.`, { param: 'limit' });
  return limit;
}

function textParam(value: unknown, param: string): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string') throw new RouterError('invalid_request', `${param} must be given once.`, { param });
  return value;
}
