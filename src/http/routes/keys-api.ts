/**
 * The management API for keys, in OpenRouter's shape (`/api/v1/keys`): a management key creates, lists,
 * reads, changes, rotates and deletes the keys of its own organization (account). The admission list
 * (`management`, stages/key-kind.ts) admits management keys only; every change is audited with the actor
 * `key:<management key id>`.
 *
 * `hash` in paths and bodies is the key's public id (`key_…`, as the app and the CLI show it): random, not
 * derived from the secret, so it can neither authenticate nor help guess a key. The stored SHA-256/HMAC
 * of the secret is never exposed. A key of another organization, or none, is 404 `not_found`.
 *
 * Limits: `limit`, `limit_reset` and `include_byok_in_limit` are the key-scope budget (stores/budget-store.ts),
 * `requests_per_minute` the key's own per-minute limit (accounts/key-limit-service.ts).
 */
import { getQuery, getRouterParam, setResponseStatus, type H3Event } from 'h3';
import { budgetPeriodOf, keyBudget, keyFigures, keysFigures, type LimitReset } from '../../accounts/key-figures.js';
import { isPlaygroundKey, isReservedKeyName } from '../../accounts/key-service.js';
import { readBoundedBody } from '../../core/read-bounded-body.js';
import { RouterError } from '../../core/errors.js';
import type { ApiKeyRecord } from '../../stores/store.js';
import { usdToNano } from '../../usage/nano-usd.js';
import { createKeySchema, rotateKeySchema, updateKeySchema } from '../key-api-schemas.js';
import type { RouterDeps } from '../router-deps.js';
import type { StandingRequest } from '../request-context.js';
import { createBodyValidator } from '../stages/read-json-body.js';

/** Keys per page of GET /v1/keys (OpenRouter's). */
export const KEYS_PAGE_SIZE = 100;
/** Management bodies are small; anything larger is not one. */
const BODY_LIMIT_BYTES = 64 * 1024;
/** Offsets beyond this are not pages anyone has. */
const MAX_OFFSET = 1_000_000;

interface LimitFields {
  limit?: number | null;
  limit_reset?: LimitReset | null;
  include_byok_in_limit?: boolean;
  requests_per_minute?: number | null;
}

type Handler = (event: H3Event, request: StandingRequest) => Promise<unknown>;

export function createKeysApiRoutes(deps: RouterDeps): { create: Handler; list: Handler; read: Handler; update: Handler; remove: Handler; rotate: Handler } {
  const validCreate = createBodyValidator(createKeySchema);
  const validUpdate = createBodyValidator(updateKeySchema);
  const validRotate = createBodyValidator(rotateKeySchema);
  const figuresDeps = { store: deps.store, ledger: deps.usage.store };
  const figures = (key: ApiKeyRecord) => keyFigures(figuresDeps, key, deps.clock.now());
  const view = async (key: ApiKeyRecord) => ({ hash: key.id, ...(await figures(key)), requests_per_minute: (await deps.keyLimits.stored(key.id)).requestsPerMinute });
  const actorOf = (request: StandingRequest) => `key:${request.caller.keyId}`;

  /** The caller's organization's key named in the path, or 404. */
  async function ownKey(event: H3Event, request: StandingRequest): Promise<ApiKeyRecord> {
    const hash = getRouterParam(event, 'hash') ?? '';
    const key = /^key_[0-9a-f]{1,64}$/.test(hash) ? await deps.store.getApiKey(hash) : null;
    if (!key || key.accountId !== request.caller.accountId || !isListed(key, deps.clock.now())) {
      throw new RouterError('not_found', `No key ${hash.slice(0, 80)} in this organization.`, { param: 'hash' });
    }
    return key;
  }

  /** Writes the limit fields a body names; a field left out keeps its value. */
  async function applyLimits(key: ApiKeyRecord, fields: LimitFields, actor: string): Promise<void> {
    if (fields.limit !== undefined || fields.limit_reset !== undefined || fields.include_byok_in_limit !== undefined) {
      const current = await keyBudget(deps.store, key);
      const limit = fields.limit !== undefined ? fields.limit : current ? current.limitNanoUsd / 1e9 : null;
      if (limit === null) {
        if (current) await deps.store.removeBudget(key.accountId, 'key', key.id, actor);
      } else {
        const reset = fields.limit_reset !== undefined ? fields.limit_reset : null;
        await deps.store.setBudget(
          {
            accountId: key.accountId,
            scope: 'key',
            scopeId: key.id,
            limitNanoUsd: usdToNano(limit),
            period: fields.limit_reset !== undefined || !current ? budgetPeriodOf(reset) : current.period,
            includeByok: fields.include_byok_in_limit ?? current?.includeByok ?? false,
          },
          actor,
        );
      }
      // This instance's requests read budgets through a cache: the next one must see the change (others
      // within keyCacheTtlMs, as with every setting).
      deps.controls.forget(key.accountId);
    }
    if (fields.requests_per_minute !== undefined) {
      const limits = await deps.keyLimits.stored(key.id);
      await deps.keyLimits.set({ keyId: key.id, monthlyRequests: limits.monthlyRequests, requestsPerMinute: fields.requests_per_minute }, actor);
    }
  }

  return {
    async create(event, request) {
      const body = (await readBody(event, validCreate)) as LimitFields & { name: string; expires_at?: string | null };
      if (isReservedKeyName(body.name)) throw new RouterError('invalid_request', `'${body.name}' is kept for the account app's playground key; choose another name.`, { param: 'name' });
      const expiresAt = parseExpiry(body.expires_at, deps.clock.now());
      const actor = actorOf(request);
      const { key, record } = await deps.keys.issue(request.caller.accountId, body.name, actor, { expiresAt, kind: 'inference' });
      try {
        await applyLimits(record, body, actor);
      } catch (error) {
        // A key must never exist without the limit it was asked for.
        await deps.keys.revoke(record.id, actor);
        throw error;
      }
      setResponseStatus(event, 201);
      return { data: await view(record), key };
    },

    async list(event, request) {
      const query = getQuery(event);
      const offset = parseOffset(query.offset);
      const includeDisabled = parseBoolean(query.include_disabled, 'include_disabled');
      const now = deps.clock.now();
      const keys = (await deps.store.listApiKeys(request.caller.accountId)).filter((key) => isListed(key, now) && (includeDisabled || key.disabledAt === null));
      const page = keys.slice(offset, offset + KEYS_PAGE_SIZE);
      // A fixed number of store queries for the page, not a few per key.
      const [figures, limits] = await Promise.all([keysFigures(figuresDeps, page, now), deps.store.listKeyLimits(request.caller.accountId)]);
      const perMinute = new Map(limits.map((limit) => [limit.keyId, limit.requestsPerMinute]));
      return { data: page.map((key, index) => ({ hash: key.id, ...figures[index], requests_per_minute: perMinute.get(key.id) ?? null })), total_count: keys.length };
    },

    async read(event, request) {
      return { data: await view(await ownKey(event, request)) };
    },

    async update(event, request) {
      const key = await ownKey(event, request);
      const body = (await readBody(event, validUpdate)) as LimitFields & { name?: string; disabled?: boolean };
      if (body.name !== undefined && isReservedKeyName(body.name)) throw new RouterError('invalid_request', `'${body.name}' is kept for the account app's playground key; choose another name.`, { param: 'name' });
      const actor = actorOf(request);
      let updated = key;
      if (body.name !== undefined || body.disabled !== undefined) {
        updated = await deps.keys.update(key.id, { ...(body.name !== undefined ? { name: body.name } : {}), ...(body.disabled !== undefined ? { disabled: body.disabled } : {}) }, actor);
      }
      await applyLimits(updated, body, actor);
      return { data: await view(updated) };
    },

    async remove(event, request) {
      const key = await ownKey(event, request);
      await deps.keys.revoke(key.id, actorOf(request));
      return { deleted: true };
    },

    async rotate(event, request) {
      const key = await ownKey(event, request);
      const body = (await readBody(event, validRotate)) as { grace_seconds?: number };
      const actor = actorOf(request);
      // The store gives the replacement the key's limit and what was spent against it, in the rotation's
      // transaction (a rotation must not be a way to a fresh limit).
      const rotated = await deps.keys.rotate(key.id, body.grace_seconds ?? 0, actor);
      deps.controls.forget(key.accountId);
      setResponseStatus(event, 201);
      return { data: await view(rotated.record), key: rotated.key, previous: { hash: rotated.revoked.id, expires_at: rotated.revoked.expiresAt, revoked_at: rotated.revoked.revokedAt } };
    },
  };
}

/** Listed: neither revoked nor past its expiry, and not the app playground's own key. */
function isListed(key: ApiKeyRecord, nowMs: number): boolean {
  return key.revokedAt === null && (key.expiresAt === null || Date.parse(key.expiresAt) > nowMs) && !isPlaygroundKey(key);
}

/** A management route's JSON body, bounded (`limitBytes`) and checked by `validate` (presets-api.ts reads its bodies here too). */
export async function readBody(event: H3Event, validate: (body: unknown) => RouterError | undefined, limitBytes = BODY_LIMIT_BYTES): Promise<unknown> {
  const raw = await readBoundedBody(event.node.req, limitBytes, {
    tooLarge: () => new RouterError('request_too_large', `The request body is larger than ${limitBytes} bytes.`),
    aborted: () => new RouterError('client_closed_request', 'The client closed the connection while sending the request body.'),
  });
  let body: unknown = {};
  if (raw.length > 0) {
    try {
      body = JSON.parse(raw.toString('utf8'));
    } catch {
      throw new RouterError('invalid_json', 'The request body is not valid JSON. Send a JSON object with Content-Type: application/json.');
    }
  }
  const invalid = validate(body);
  if (invalid) throw invalid;
  return body as Record<string, unknown>;
}

/** OpenRouter's rule: a UTC ISO 8601 instant (other zones refused), in the future; null or absent: none. */
function parseExpiry(value: string | null | undefined, nowMs: number): string | null {
  if (value === undefined || value === null) return null;
  const at = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?Z$/.test(value) ? Date.parse(value) : Number.NaN;
  if (Number.isNaN(at)) throw new RouterError('invalid_request', 'expires_at must be a UTC ISO 8601 instant ending in Z, e.g. 2027-01-01T00:00:00Z.', { param: 'expires_at' });
  if (at <= nowMs) throw new RouterError('invalid_request', 'expires_at must be in the future.', { param: 'expires_at' });
  return new Date(at).toISOString();
}

export function parseOffset(value: unknown): number {
  if (value === undefined) return 0;
  const offset = typeof value === 'string' && /^\d{1,7}$/.test(value) ? Number(value) : Number.NaN;
  if (!(offset >= 0 && offset <= MAX_OFFSET)) throw new RouterError('invalid_request', `offset must be a whole number from 0 to ${MAX_OFFSET}.`, { param: 'offset' });
  return offset;
}

function parseBoolean(value: unknown, param: string): boolean {
  if (value === undefined || value === 'false') return false;
  if (value === 'true') return true;
  throw new RouterError('invalid_request', `${param} must be true or false.`, { param });
}
