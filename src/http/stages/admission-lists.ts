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
import { refuseManagementKey, requireManagementKey } from './key-kind.js';
import { createProviderPreferencesStage } from './provider-preferences.js';
import { createGuardrailsStage } from './guardrails.js';
import { createQuotaPeekStage, createQuotaStage } from './quota.js';
import { createRateLimitStage } from './rate-limit.js';
import { createCheckBodyStage, createReadJsonBodyStage, type BodyRule } from './read-json-body.js';
import { createApplyPresetStage } from './apply-preset.js';
import { createPresetService } from '../../accounts/preset-service.js';
import type { PresetApi } from '../../accounts/preset-config.js';
import { createResolveModelAliasStage } from './resolve-model-alias.js';
import { admission, namedStage, type AdmissionList } from './stage.js';

export interface AdmissionLists {
  /**
   * Model traffic (chat completions, Responses; Messages with `modelAliases`): the edge rule,
   * authentication, the body against its schema, provider preferences, guardrails, the monthly count, a slot in
   * flight, the per-minute window, the key's own caps. Refused before the count is never counted;
   * refused after it is refunded (pipeline.ts).
   */
  modelTraffic(schema: object, options?: { refuse?: BodyRule; modelAliases?: boolean; presets?: PresetApi }): AdmissionList<AdmittedRequest>;
  /**
   * A token count is not a model request: it reads the account's and the key's monthly counts without
   * adding to them, takes its place in both per-minute windows, and writes no usage record.
   */
  countTokens(schema: object, refuse?: BodyRule): AdmissionList<CountTokensRequest>;
  /** The model list, receipts, the key's own figures, preset reads and unknown endpoints: the caller's standing, read without counting. */
  otherV1: AdmissionList<StandingRequest>;
  /** Management routes (/v1/keys, preset writes): a management key only (stages/key-kind.ts), then the standing and the per-minute window. */
  management: AdmissionList<StandingRequest>;
  /** The edge rule alone, which the public JSON routes apply too (synchronous). */
  edge: ReturnType<typeof createEdgeUserAgentStage>;
}

export function createAdmissionLists(deps: RouterDeps): AdmissionLists {
  const { config } = deps;
  const edge = namedStage('edge_user_agent', createEdgeUserAgentStage(config.server.edge));
  const authenticate = namedStage('authenticate', createAuthenticateStage(deps.keys));
  const readBody = namedStage('read_body', createReadJsonBodyStage({ limitBytes: config.server.bodyLimitBytes }));
  const checkBody = (schema: object, refuse?: BodyRule) => namedStage('check_body', createCheckBodyStage({ schema, routes: deps.routes, refuse }));
  // Presets apply between reading the body and checking it, so what they add is judged like the client's own fields.
  const presets = createPresetService(deps.store);
  const applyPreset = (api: PresetApi) => namedStage('apply_preset', createApplyPresetStage(presets, api));
  const resolveModelAlias = namedStage('resolve_model_alias', createResolveModelAliasStage(config.modelAliases, deps.routes));
  const providers = new Map<string, ProviderConfig>(config.providers.providers.map((provider) => [provider.id, provider]));
  const providerPreferences = namedStage('provider_preferences', createProviderPreferencesStage(deps.routes, providers));
  // Guardrails narrow the route after the request's own preferences, before anything is counted.
  const guardrails = namedStage('guardrails', createGuardrailsStage(deps.controls, providers, deps.routes));
  const quota = namedStage('quota', createQuotaStage(deps));
  const quotaPeek = namedStage('quota_peek', createQuotaPeekStage(deps));
  const inFlight = namedStage('in_flight', createConcurrencyStage(deps));
  const rateLimit = namedStage('rate_limit', createRateLimitStage(deps));
  // Per-key limits are set in the account app; both read them through one service so changes apply at once.
  const ownKeyLimits = namedStage('key_limits', createKeyLimitsStage(deps, deps.keyLimits));
  const ownKeyLimitsPeek = namedStage('key_limits', createKeyLimitsPeekStage(deps, deps.keyLimits));

  const authenticated = admission().then(edge).then(authenticate);
  // Refused right after authentication, before anything is read or counted (stages/key-kind.ts).
  const modelCaller = authenticated.then(namedStage('refuse_management_key', refuseManagementKey));
  return {
    modelTraffic(schema, options = {}) {
      const parsed = modelCaller.then(readBody);
      const withBody = (options.presets ? parsed.then(applyPreset(options.presets)) : parsed).then(checkBody(schema, options.refuse));
      return (options.modelAliases ? withBody.then(resolveModelAlias) : withBody)
        .then(providerPreferences)
        .then(guardrails)
        .then(quota)
        .then(inFlight)
        .then(rateLimit)
        .then(ownKeyLimits);
    },
    // Provider preferences narrow the route (and take the router's `provider` object off the body) as
    // on the model routes; the key's own caps apply, read without counting, as the account's quota is.
    countTokens: (schema, refuse) => modelCaller.then(readBody).then(applyPreset('messages')).then(checkBody(schema, refuse)).then(resolveModelAlias).then(providerPreferences).then(quotaPeek).then(rateLimit).then(ownKeyLimitsPeek),
    otherV1: authenticated.then(quotaPeek).then(rateLimit),
    management: authenticated.then(namedStage('require_management_key', requireManagementKey)).then(quotaPeek).then(rateLimit),
    edge,
  };
}
