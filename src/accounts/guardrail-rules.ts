/**
 * Guardrails as the pipeline applies them to a request's route, before routing sees it. A request's guardrails are its workspace's, its member's and its
 * key's (each optional); the effective guardrail is their intersection, so each is checked in turn and
 * the first that refuses is named. Model rules (config globs, config/model-globs.ts) are matched against
 * the model the request names (a route profile or concrete model id) and, for a profile that spans
 * several models, against each target as `provider/model`: an allowed profile keeps all its targets,
 * otherwise only the targets a rule allows. Provider rules and the ZDR requirement keep only the targets
 * they allow. Candidates outside the guardrail are never tried; a fusion route, whose panel cannot be
 * narrowed, runs only when every one of its targets is allowed.
 */
import { globMatcher } from '../config/model-globs.js';
import { routeTargets } from '../config/route-targets.js';
import type { ProviderConfig, RouteProfileConfig, RouteTarget } from '../config/types.js';
import type { GuardrailRules, GuardrailScope } from '../stores/guardrail-store.js';

/** One guardrail that applies to a request, with the words that name it in a refusal. */
export interface AppliedGuardrail {
  scope: GuardrailScope;
  scopeId: string;
  /** e.g. `workspace "Research"`, `key "ci"`, `member ada@example.com`. */
  label: string;
  rules: GuardrailRules;
}

/** Why a guardrail refused: the guardrail and the rule. */
export interface GuardrailRefusal {
  guardrail: AppliedGuardrail;
  rule: 'allowed_models' | 'denied_models' | 'allowed_providers' | 'denied_providers' | 'require_zdr';
}

const matchesAny = (patterns: readonly string[], name: string): boolean => patterns.some((pattern) => globMatcher(pattern)(name));

/** The rule of one guardrail that excludes a target of a route named `routeId`, if any. */
function targetExclusion(rules: GuardrailRules, routeId: string, target: RouteTarget, providers: ReadonlyMap<string, ProviderConfig>): GuardrailRefusal['rule'] | undefined {
  const targetName = `${target.provider}/${target.model}`;
  if (rules.allowedModels !== null && !matchesAny(rules.allowedModels, routeId) && !matchesAny(rules.allowedModels, targetName)) return 'allowed_models';
  if (matchesAny(rules.deniedModels, routeId) || matchesAny(rules.deniedModels, targetName)) return 'denied_models';
  const provider = target.provider.toLowerCase();
  if (rules.allowedProviders !== null && !rules.allowedProviders.includes(provider)) return 'allowed_providers';
  if (rules.deniedProviders.includes(provider)) return 'denied_providers';
  if (rules.requireZdr && providers.get(target.provider)?.policy?.retentionDays !== 0) return 'require_zdr';
  return undefined;
}

/**
 * The route as the guardrails allow it (the same route when none narrows it), or the refusal when no
 * target is left: the guardrail and rule that excluded the last candidates, the broadest scope first.
 */
export function applyGuardrails(
  route: RouteProfileConfig,
  guardrails: readonly AppliedGuardrail[],
  providers: ReadonlyMap<string, ProviderConfig>,
): RouteProfileConfig | GuardrailRefusal {
  if (guardrails.length === 0) return route;
  let first: GuardrailRefusal | undefined;
  const allowed = (target: RouteTarget): boolean => {
    for (const guardrail of guardrails) {
      const rule = targetExclusion(guardrail.rules, route.id, target, providers);
      if (rule) {
        first ??= { guardrail, rule };
        return false;
      }
    }
    return true;
  };
  if (route.fusion) {
    // Every call of a fusion run must be allowed: its panel and judge cannot lose members quietly.
    for (const { target } of routeTargets(route)) if (!allowed(target)) return first!;
    return route;
  }
  const tiers = route.tiers.map((tier) => tier.filter(allowed)).filter((tier) => tier.length > 0);
  if (tiers.length === 0) return first!;
  return first === undefined ? route : { ...route, tiers };
}

export function isGuardrailRefusal(value: RouteProfileConfig | GuardrailRefusal): value is GuardrailRefusal {
  return 'guardrail' in value && 'rule' in value;
}

/** The words for a refused rule, for the error message. */
export const RULE_WORDS: Readonly<Record<GuardrailRefusal['rule'], string>> = {
  allowed_models: 'allows only other models',
  denied_models: 'denies this model',
  allowed_providers: 'allows only other providers',
  denied_providers: 'denies the providers of this model',
  require_zdr: 'requires zero-data-retention providers, and none serves this model',
};
