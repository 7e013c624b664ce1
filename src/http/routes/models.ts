/**
 * GET /v1/models: the route profiles and concrete models the caller's plan may use, and the caller's own
 * presets whose model the plan allows (routes/preset-models.ts), in the OpenAI list shape. A concrete model also carries what /model-catalog would say of it (name, context length,
 * pricing per token from its endpoints' prices, supported parameters, and which providers serve it).
 */
import type { H3Event } from 'h3';
import type { ConcreteModel, ProviderConfig } from '../../config/types.js';
import { RouterError } from '../../core/errors.js';
import { supportedParameters } from '../../providers/supported-parameters.js';
import { planAllowsModel } from '../../config/model-globs.js';
import type { RouterDeps } from '../router-deps.js';
import type { Authenticated, Standing } from '../request-context.js';
import { presetIdsForSuggestions, presetModel, presetModels } from './preset-models.js';
import { unknownModel } from '../model-suggestions.js';

/** A fixed creation time: route profiles are configuration, not dated model releases. */
const PROFILE_CREATED = 1_767_225_600; // 2026-01-01T00:00:00Z

function modelObject(id: string) {
  return { id, object: 'model', created: PROFILE_CREATED, owned_by: 'router' };
}

/** OpenAI's model object plus OpenRouter's fields (prices in USD per token, as strings). */
function concreteModelObject(model: ConcreteModel, providers: ReadonlyMap<string, ProviderConfig>) {
  const served = model.endpoints.flatMap((endpoint) => {
    const provider = providers.get(endpoint.provider);
    return provider ? [{ endpoint, provider }] : [];
  });
  const prices = served.flatMap(({ endpoint, provider }) => {
    const price = provider.prices[endpoint.model];
    return price ? [price] : [];
  });
  const cheapest = prices.sort((a, b) => a.input + a.output - (b.input + b.output))[0];
  const parameters = new Set(served.flatMap(({ provider }) => supportedParameters(provider)));
  return {
    id: model.id,
    object: 'model',
    created: model.created,
    owned_by: model.id.split('/')[0] ?? model.id,
    name: model.name,
    description: model.description,
    context_length: model.contextLength,
    pricing: cheapest ? { prompt: perToken(cheapest.input), completion: perToken(cheapest.output) } : null,
    supported_parameters: model.kind === 'chat' ? [...parameters].sort() : [...KIND_PARAMETERS[model.kind]],
    ...kindFields(model),
    providers: served.map(({ provider }) => ({ id: provider.id, name: provider.name, region: provider.policy?.region ?? null })),
  };
}

/** What an embedding or rerank request may set (chat's sampling parameters do not apply). */
const KIND_PARAMETERS = { embedding: ['dimensions', 'encoding_format', 'input_type', 'user'], rerank: ['return_documents', 'top_n'] } as const;

/** A model that is not a chat model says so, and an embedding model the vectors it returns. */
function kindFields(model: ConcreteModel) {
  if (model.kind === 'chat') return {};
  const embedding = model.embedding;
  return {
    kind: model.kind,
    ...(embedding ? { embedding: { dimensions: embedding.dimensions, shortenable: embedding.shortenable, max_input_tokens: embedding.maxInputTokens ?? null } } : {}),
  };
}

/** USD per million tokens as USD per token, in a string (no float noise). */
function perToken(perMillion: number): string {
  return (perMillion / 1_000_000).toFixed(12).replace(/\.?0+$/, '');
}

function usableProfiles(deps: RouterDeps, request: Standing): string[] {
  return (request.plan?.routeProfiles ?? []).filter((id) => deps.routes.has(id));
}

function usableModels(deps: RouterDeps, request: Standing): ConcreteModel[] {
  return deps.config.catalog.concreteModels.filter((model) => planAllowsModel(request.plan, model.id));
}

export function createModelsRoute(deps: RouterDeps) {
  const providers = new Map(deps.config.providers.providers.map((provider) => [provider.id, provider]));
  return async (_event: H3Event, request: Standing & Authenticated) => ({
    object: 'list',
    data: [
      ...usableProfiles(deps, request).map(modelObject),
      ...usableModels(deps, request).map((model) => concreteModelObject(model, providers)),
      ...(await presetModels(deps.store, request.caller.accountId, { routes: deps.routes, plan: request.plan })),
    ],
  });
}

/** GET /v1/models/{id}: one route profile (ids contain a slash, e.g. router/frontier). */
export function createModelRoute(deps: RouterDeps) {
  return async (event: H3Event, request: Standing & Authenticated) => {
    const id = decodeModelId((event.path.split('?')[0] ?? '').slice('/v1/models/'.length));
    const preset = await presetModel(deps.store, request.caller.accountId, id, { routes: deps.routes, plan: request.plan });
    if (preset) return preset;
    const concrete = usableModels(deps, request).find((model) => model.id === id);
    if (concrete) return concreteModelObject(concrete, new Map(deps.config.providers.providers.map((provider) => [provider.id, provider])));
    const usable = usableProfiles(deps, request);
    if (!usable.includes(id)) {
      const presets = await presetIdsForSuggestions(deps.store, request.caller.accountId, { routes: deps.routes, plan: request.plan });
      throw unknownModel(id, usable, [...usableModels(deps, request).map((model) => model.id), ...presets]);
    }
    return modelObject(id);
  };
}

/** The id as the client meant it; malformed percent-encoding (`%ZZ`, a cut-off UTF-8 sequence) is the client's error. */
function decodeModelId(encoded: string): string {
  try {
    return decodeURIComponent(encoded);
  } catch {
    throw new RouterError('invalid_request', 'The model id in the path is not valid percent-encoding.', { param: 'model' });
  }
}
