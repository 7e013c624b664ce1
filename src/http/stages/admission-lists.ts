/**
 * The /v1 stage lists, made once per app: which stages each kind of request passes, in order, and so
 * what its route receives. The order is checked by the compiler (stage.ts): a stage that needs the plan
 * cannot come before the quota stage, and a route cannot take more than its list established.
 */
import type { ProviderConfig } from '../../config/types.js';
import type { AdmittedRequest, CountTokensRequest, StandingRequest } from '../request-context.js';
import type { RouterDeps } from '../router-deps.js';
import { createAuthenticateStage } from './authenticate.js';
import { createConcurrencyStage } from './concurrency.js';
import { createEdgeUserAgentStage } from './edge-user-agent.js';
import { createKeyLimitsPeekStage, createKeyLimitsStage } from './key-limits.js';
import { createProviderPreferencesStage } from './provider-preferences.js';
import { createQuotaPeekStage, createQuotaStage } from './quota.js';
import { createRateLimitStage } from './rate-limit.js';
import { createReadJsonBodyStage, type BodyRule } from './read-json-body.js';
import { createResolveModelAliasStage } from './resolve-model-alias.js';
import { admission, namedStage, type AdmissionList } from './stage.js';

export interface AdmissionLists {
  /**
   * Model traffic (chat completions, Responses; Messages with `modelAliases`): the edge rule,
   * authentication, the body against its schema, provider preferences, the monthly count, a slot in
   * flight, the per-minute window, the key's own caps. Refused before the count is never counted;
   * refused after it is refunded (pipeline.ts).
   */
  modelTraffic(schema: object, options?: { refuse?: BodyRule; modelAliases?: boolean }): AdmissionList<AdmittedRequest>;
  /**
   * A token count is not a model request: it reads the account's and the key's monthly counts without
   * adding to them, takes its place in both per-minute windows, and writes no usage record.
   */
  countTokens(schema: object, refuse?: BodyRule): AdmissionList<CountTokensRequest>;
  /** The model list, receipts and unknown endpoints: the caller's standing, read without counting. */
  otherV1: AdmissionList<StandingRequest>;
  /** The edge rule alone, which the public JSON routes apply too (synchronous). */
  edge: ReturnType<typeof createEdgeUserAgentStage>;
}

export function createAdmissionLists(deps: RouterDeps): AdmissionLists {
  const { config } = deps;
  const edge = namedStage('edge_user_agent', createEdgeUserAgentStage(config.server.edge));
  const authenticate = namedStage('authenticate', createAuthenticateStage(deps.keys));
  const body = (schema: object, refuse?: BodyRule) =>
    namedStage('read_body', createReadJsonBodyStage({ limitBytes: config.server.bodyLimitBytes, schema, routes: deps.routes, refuse }));
  const resolveModelAlias = namedStage('resolve_model_alias', createResolveModelAliasStage(config.modelAliases, deps.routes));
  const providers = new Map<string, ProviderConfig>(config.providers.providers.map((provider) => [provider.id, provider]));
  const providerPreferences = namedStage('provider_preferences', createProviderPreferencesStage(deps.routes, providers));
  const quota = namedStage('quota', createQuotaStage(deps));
  const quotaPeek = namedStage('quota_peek', createQuotaPeekStage(deps));
  const inFlight = namedStage('in_flight', createConcurrencyStage(deps));
  const rateLimit = namedStage('rate_limit', createRateLimitStage(deps));
  // Per-key limits are set in the account app; both read them through one service so changes apply at once.
  const ownKeyLimits = namedStage('key_limits', createKeyLimitsStage(deps, deps.keyLimits));
  const ownKeyLimitsPeek = namedStage('key_limits', createKeyLimitsPeekStage(deps, deps.keyLimits));

  const authenticated = admission().then(edge).then(authenticate);
  return {
    modelTraffic(schema, options = {}) {
      const withBody = authenticated.then(body(schema, options.refuse));
      return (options.modelAliases ? withBody.then(resolveModelAlias) : withBody)
        .then(providerPreferences)
        .then(quota)
        .then(inFlight)
        .then(rateLimit)
        .then(ownKeyLimits);
    },
    // Provider preferences narrow the route (and take the router's `provider` object off the body) as
    // on the model routes; the key's own caps apply, read without counting, as the account's quota is.
    countTokens: (schema, refuse) => authenticated.then(body(schema, refuse)).then(resolveModelAlias).then(providerPreferences).then(quotaPeek).then(rateLimit).then(ownKeyLimitsPeek),
    otherV1: authenticated.then(quotaPeek).then(rateLimit),
    edge,
  };
}
