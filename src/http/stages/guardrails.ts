/**
 * After provider preferences, before the monthly count: the guardrails of the key's workspace, member and
 * key (accounts/guardrail-rules.ts) narrow the request's route to the candidates they all allow, so a
 * provider outside them is never tried; a request they leave no candidate is refused with 403
 * guardrail_denied naming the guardrail, its rule and where to change it, before it is counted. The
 * budgets that apply are kept for the spend gate (usage/spend-gate.ts), which holds them before the call.
 */
import type { AccountControls, RequestControls } from '../../accounts/account-controls.js';
import { isPromise } from '../../core/maybe-promise.js';
import { applyGuardrails, isGuardrailRefusal, RULE_WORDS, type GuardrailRefusal } from '../../accounts/guardrail-rules.js';
import type { ProviderConfig, RouteProfileConfig } from '../../config/types.js';
import { RouterError } from '../../core/errors.js';
import { establishing, type Authenticated, type Controlled, type Received, type WithBody } from '../request-context.js';
import type { Stage } from './stage.js';

const FUSION_PROFILE = 'router/fusion';
const FUSION_TOOL = 'router:fusion';

export function createGuardrailsStage(
  controls: AccountControls,
  providers: ReadonlyMap<string, ProviderConfig>,
  routes: ReadonlyMap<string, RouteProfileConfig>,
): Stage<Received & Authenticated & WithBody, Controlled> {
  return (_event, request) => {
    const { caller } = request;
    const applied = controls.forRequest({
      accountId: caller.accountId,
      keyId: caller.keyId,
      workspaceId: caller.workspaceId ?? null,
      personId: caller.personId ?? null,
      ...(caller.createdAt === undefined ? {} : { keyCreatedAt: caller.createdAt }),
    });
    // From a cached snapshot (the usual case): no promise, no await.
    if (!isPromise(applied)) return void control(request, applied);
    return applied.then((fresh) => control(request, fresh));
  };

  /** Keeps the controls for the spend gate and narrows the route to what the guardrails allow, or refuses. */
  function control(request: Received & Authenticated & WithBody, applied: RequestControls): Controlled {
    const controlled = establishing<Controlled>(request);
    controlled.controls = applied;
    const route = request.route;
    // An unknown model is answered by the route's authorization (404), guardrails or not.
    if (!route || applied.guardrails.length === 0) return controlled;
    const narrowed = applyGuardrails(route, applied.guardrails, providers);
    if (isGuardrailRefusal(narrowed)) throw guardrailDenied(narrowed, route.id);
    // The router:fusion tool runs the fusion profile's panel: every one of its calls must be allowed too.
    const fusionRoute = hasFusionTool(request.body.tools) ? routes.get(FUSION_PROFILE) : undefined;
    if (fusionRoute) {
      const tool = applyGuardrails(fusionRoute, applied.guardrails, providers);
      if (isGuardrailRefusal(tool)) throw guardrailDenied(tool, FUSION_TOOL);
    }
    request.route = narrowed;
    return controlled;
  }
}

function hasFusionTool(tools: unknown): boolean {
  return Array.isArray(tools) && tools.some((tool) => (tool as { type?: unknown } | null)?.type === FUSION_TOOL);
}

function guardrailDenied(refusal: GuardrailRefusal, model: string): RouterError {
  const { guardrail, rule } = refusal;
  return new RouterError(
    'guardrail_denied',
    `The guardrail of ${guardrail.label} ${RULE_WORDS[rule]} (${model}). Use a model it allows, or ask an organization admin to change it on the Guardrails page (/app/guardrails).`,
    { param: 'model', details: { guardrail: { scope: guardrail.scope, id: guardrail.scopeId, name: guardrail.label, rule } } },
  );
}
