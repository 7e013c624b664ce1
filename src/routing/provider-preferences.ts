/**
 * The `provider` object of a request (OpenRouter's field names and meanings): which of a route's
 * providers may serve it and in what order. Preferences only ever narrow and reorder the route's own
 * targets, so they can never reach a provider or model the route profile (and so the plan) does not
 * allow. A combination no target can meet is refused with a 400 naming the field, before admission.
 */
import type { MeasuredSort, ProviderConfig, RouteProfileConfig, RouteTarget } from '../config/types.js';
import { RouterError } from '../core/errors.js';
import { unsupportedParameter } from '../providers/supported-parameters.js';

export type PreferenceSort = 'price' | MeasuredSort;

export interface ProviderPreferences {
  /** Providers to try first, in this order. */
  order?: readonly string[];
  /** Only these providers. */
  only?: readonly string[];
  /** Never these providers. */
  ignore?: readonly string[];
  /** false: no backup providers (only `order`'s, or the first candidate alone). */
  allowFallbacks: boolean;
  sort?: PreferenceSort;
  /** USD per million tokens. */
  maxPrice?: { prompt?: number; completion?: number };
  /** `deny`: only providers that do not train on prompts. */
  dataCollection: 'allow' | 'deny';
  /** Only zero-data-retention providers. */
  zdr: boolean;
  /** Only providers whose adapter honours every parameter the request sets. */
  requireParameters: boolean;
}

export const NO_PREFERENCES: ProviderPreferences = { allowFallbacks: true, dataCollection: 'allow', zdr: false, requireParameters: false };

const FIELDS = new Set(['order', 'only', 'ignore', 'allow_fallbacks', 'sort', 'max_price', 'data_collection', 'zdr', 'require_parameters']);
const SORTS: readonly PreferenceSort[] = ['price', 'latency', 'throughput'];

/** Reads the request's `provider` value; the RouterError names the field at fault. */
export function parseProviderPreferences(value: unknown): ProviderPreferences | RouterError {
  if (value === undefined || value === null) return NO_PREFERENCES;
  if (typeof value !== 'object' || Array.isArray(value)) return invalid('provider', 'must be an object');
  const raw = value as Record<string, unknown>;
  const unknownField = Object.keys(raw).find((field) => !FIELDS.has(field));
  if (unknownField !== undefined) {
    return invalid(`provider.${unknownField}`, `is not a provider preference the router applies (known: ${[...FIELDS].join(', ')})`);
  }
  const preferences: ProviderPreferences = { ...NO_PREFERENCES };
  for (const field of ['order', 'only', 'ignore'] as const) {
    const list = raw[field];
    if (list === undefined || list === null) continue;
    if (!Array.isArray(list) || list.length > 32 || !list.every((id) => typeof id === 'string' && id.length > 0 && id.length <= 64)) {
      return invalid(`provider.${field}`, 'must be a list of provider ids (at most 32)');
    }
    preferences[field] = list.map((id: string) => id.toLowerCase());
  }
  for (const [field, key] of [['allow_fallbacks', 'allowFallbacks'], ['zdr', 'zdr'], ['require_parameters', 'requireParameters']] as const) {
    const flag = raw[field];
    if (flag === undefined || flag === null) continue;
    if (typeof flag !== 'boolean') return invalid(`provider.${field}`, 'must be true or false');
    preferences[key] = flag;
  }
  if (raw.sort !== undefined && raw.sort !== null) {
    if (!SORTS.includes(raw.sort as PreferenceSort)) return invalid('provider.sort', `must be one of: ${SORTS.join(', ')}`);
    preferences.sort = raw.sort as PreferenceSort;
  }
  if (raw.data_collection !== undefined && raw.data_collection !== null) {
    if (raw.data_collection !== 'allow' && raw.data_collection !== 'deny') return invalid('provider.data_collection', 'must be "allow" or "deny"');
    preferences.dataCollection = raw.data_collection;
  }
  if (raw.max_price !== undefined && raw.max_price !== null) {
    const maxPrice = parseMaxPrice(raw.max_price);
    if (maxPrice instanceof RouterError) return maxPrice;
    preferences.maxPrice = maxPrice;
  }
  return preferences;
}

function parseMaxPrice(value: unknown): ProviderPreferences['maxPrice'] | RouterError {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return invalid('provider.max_price', 'must be an object with prompt and/or completion');
  const maxPrice: { prompt?: number; completion?: number } = {};
  for (const [field, price] of Object.entries(value)) {
    if (field !== 'prompt' && field !== 'completion') return invalid(`provider.max_price.${field}`, 'is not applied here (prompt and completion are, in USD per million tokens)');
    if (typeof price !== 'number' || !Number.isFinite(price) || price < 0) return invalid(`provider.max_price.${field}`, 'must be a number of USD per million tokens, 0 or more');
    maxPrice[field] = price;
  }
  return maxPrice;
}

/** What narrowing needs besides the route: the providers' config and the parameters the request sets. */
export interface NarrowingContext {
  providers: ReadonlyMap<string, ProviderConfig>;
  /** The request's steering parameters (supported-parameters.ts), for require_parameters. */
  requestedParameters: readonly string[];
}

/** Why a target is out, as the preference field that excluded it. */
type Exclusion = 'provider.only' | 'provider.ignore' | 'provider.data_collection' | 'provider.zdr' | 'provider.max_price' | 'provider.require_parameters';

/**
 * The route as these preferences allow it: the same id and limits, with only the targets every stated
 * constraint admits, in the order asked for. The result's targets are always a subset of the route's.
 */
export function narrowRoute(route: RouteProfileConfig, preferences: ProviderPreferences, context: NarrowingContext): RouteProfileConfig | RouterError {
  if (preferences === NO_PREFERENCES) return route;
  const unknown = unknownProviderIn(preferences, context.providers);
  if (unknown) return unknown;
  const contradiction = contradictionIn(preferences);
  if (contradiction) return contradiction;
  const excluded = new Map<string, Exclusion>();
  const tiers = route.tiers
    .map((tier) =>
      tier.filter((target) => {
        const exclusion = exclusionOf(target, preferences, context);
        if (exclusion) excluded.set(target.provider, excluded.get(target.provider) ?? exclusion);
        return exclusion === undefined;
      }),
    )
    .filter((tier) => tier.length > 0);
  if (tiers.length === 0) return noTargetLeft(route, excluded);
  return reorder(route, tiers, preferences, context);
}

/** An id that names no provider here is a mistake (or a probe), never a silent no-op: `ignore: ["opnai"]` would ignore nothing. */
function unknownProviderIn(preferences: ProviderPreferences, providers: NarrowingContext['providers']): RouterError | undefined {
  const known = new Set([...providers.keys()].map((id) => id.toLowerCase()));
  for (const field of ['order', 'only', 'ignore'] as const) {
    const id = preferences[field]?.find((candidate) => !known.has(candidate));
    if (id !== undefined) return invalid(`provider.${field}`, `names '${id}', which is not a provider of this router; the status page lists them`);
  }
  return undefined;
}

function contradictionIn(preferences: ProviderPreferences): RouterError | undefined {
  const ignored = new Set(preferences.ignore ?? []);
  const only = preferences.only ? new Set(preferences.only) : undefined;
  for (const id of preferences.order ?? []) {
    if (ignored.has(id)) return invalid('provider.order', `names '${id}', which provider.ignore excludes`);
    if (only && !only.has(id)) return invalid('provider.order', `names '${id}', which is not in provider.only`);
  }
  if (preferences.order && preferences.sort && preferences.sort !== 'price') {
    return invalid('provider.sort', `'${preferences.sort}' ranks by live figures and cannot be combined with provider.order, which fixes the ranking`);
  }
  return undefined;
}

function exclusionOf(target: RouteTarget, preferences: ProviderPreferences, context: NarrowingContext): Exclusion | undefined {
  const id = target.provider.toLowerCase();
  if (preferences.only && !preferences.only.includes(id)) return 'provider.only';
  if (preferences.ignore?.includes(id)) return 'provider.ignore';
  const provider = context.providers.get(target.provider);
  if (preferences.order && !preferences.allowFallbacks && !preferences.order.includes(id)) return 'provider.only';
  if (preferences.dataCollection === 'deny' && (!provider?.policy || provider.policy.trainsOnPrompts)) return 'provider.data_collection';
  if (preferences.zdr && (!provider?.policy || provider.policy.retentionDays !== 0)) return 'provider.zdr';
  if (preferences.maxPrice) {
    const price = provider?.prices[target.model];
    const { prompt, completion } = preferences.maxPrice;
    if (!price || (prompt !== undefined && price.input > prompt) || (completion !== undefined && price.output > completion)) return 'provider.max_price';
  }
  if (preferences.requireParameters && (!provider || unsupportedParameter(provider, context.requestedParameters) !== undefined)) {
    return 'provider.require_parameters';
  }
  return undefined;
}

function reorder(route: RouteProfileConfig, tiers: RouteTarget[][], preferences: ProviderPreferences, context: NarrowingContext): RouteProfileConfig {
  const { order, sort, allowFallbacks } = preferences;
  let ordered: RouteTarget[][] = tiers;
  let measured: Pick<RouteProfileConfig, 'order' | 'sort'> = { order: route.order ?? 'tiers', ...(route.sort ? { sort: route.sort } : {}) };
  if (sort === 'price') {
    ordered = byPrice(tiers.flat(), context.providers);
    measured = { order: 'tiers' };
  } else if (sort) {
    measured = { order: 'measured', sort };
  }
  if (order) {
    const all = ordered.flat();
    const pinned = order.flatMap((id) => all.filter((target) => target.provider.toLowerCase() === id).map((target) => [target]));
    const rest = ordered.map((tier) => tier.filter((target) => !order.includes(target.provider.toLowerCase()))).filter((tier) => tier.length > 0);
    ordered = [...pinned, ...rest];
    measured = { order: 'tiers' };
  }
  const narrowed: RouteProfileConfig = { ...route, tiers: ordered, ...measured, ...(order || sort ? { callerOrdered: true as const } : {}) };
  if (!measured.sort) delete narrowed.sort;
  // No fallbacks and no list of its own: the first candidate alone.
  if (!allowFallbacks && !order) narrowed.retryBudget = 0;
  return narrowed;
}

/** Cheapest first (input plus output price per million tokens, a stable sort); a target without a price last. */
function byPrice(targets: RouteTarget[], providers: NarrowingContext['providers']): RouteTarget[][] {
  const priceOf = (target: RouteTarget): number => {
    const price = providers.get(target.provider)?.prices[target.model];
    return price ? price.input + price.output : Number.POSITIVE_INFINITY;
  };
  return targets
    .map((target) => ({ target, price: priceOf(target) }))
    .sort((a, b) => (a.price === b.price ? 0 : a.price < b.price ? -1 : 1))
    .map(({ target }) => [target]);
}

function noTargetLeft(route: RouteProfileConfig, excluded: ReadonlyMap<string, Exclusion>): RouterError {
  // The field at fault is the constraint that ruled out what only/ignore left; several such: the object.
  const fields = [...new Set(excluded.values())];
  const beyondSelection = fields.filter((field) => field !== 'provider.only' && field !== 'provider.ignore');
  const param = beyondSelection.length === 1 ? beyondSelection[0]! : fields.length === 1 ? fields[0]! : 'provider';
  const reasons = [...excluded].map(([provider, field]) => `${provider} (${field}: ${EXCLUSION_REASON[field]})`).join(', ');
  const policy = fields.some((field) => field === 'provider.data_collection' || field === 'provider.zdr');
  return new RouterError(
    'invalid_request',
    `No provider of ${route.id} meets the request's provider preferences: ${reasons}.${policy ? ' The request was not sent to any provider that does not meet its data policy.' : ''}`,
    { param, details: { excluded: [...excluded].map(([provider, field]) => ({ provider, field })) } },
  );
}

const EXCLUSION_REASON: Readonly<Record<Exclusion, string>> = {
  'provider.only': 'not in provider.only or provider.order',
  'provider.ignore': 'in provider.ignore',
  'provider.data_collection': 'may train on prompts, or declares no policy',
  'provider.zdr': 'keeps prompts, or declares no policy',
  'provider.max_price': 'priced above provider.max_price, or unpriced',
  'provider.require_parameters': 'does not honour every parameter the request sets',
};

function invalid(param: string, problem: string): RouterError {
  return new RouterError('invalid_request', `Invalid value for '${param}': ${problem}.`, { param });
}
