/**
 * What every model route (chat completions, Responses, Messages) does around its own format: before the
 * upstream call, the plan's authorization of the model, the API's output cap, fusion access and the
 * spend reservation (with the server tools the body asks for, refused or bounded on managed keys); after a whole (JSON) answer, its record, cost and routing headers.
 */
import type { H3Event } from 'h3';
import type { ModelKind, PlanConfig, RouteProfileConfig } from '../../config/types.js';
import { RouterError } from '../../core/errors.js';
import type { TokenUsage } from '../../core/token-usage.js';
import type { RoutedMeta } from '../../routing/failover.js';
import { responseCost } from '../../usage/response-cost.js';
import { shownCost } from '../../usage/zero-completion-insurance.js';
import type { ServerToolUse } from '../../usage/server-tool-gate.js';
import type { SpanScope } from '../../tracing/tracing.js';
import { abortOnDisconnect } from '../abort-on-disconnect.js';
import { authorizeRoute } from '../authorize-route.js';
import { fusionPlanOf, requireFusionAccess, toolFusionOf, type FusionPlan } from '../fusion/fusion-plan.js';
import type { AdmittedRequest, ServingRecord } from '../request-context.js';
import { attemptsParent, reserveSpend } from '../request-spans.js';
import type { RouterDeps } from '../router-deps.js';
import { setRoutingHeaders } from './routing-headers.js';
import { presetIdsForSuggestions } from './preset-models.js';

/** The routing engine's call for this request (the failover loop's input), and its fusion plan if any. */
export interface ModelCall {
  route: RouteProfileConfig;
  fusion: FusionPlan | undefined;
  call: { route: RouteProfileConfig; accountId: string; signal: AbortSignal; trace: SpanScope | undefined };
}

/** An API's rule for the plan's output cap on the body (refuse above it, or lower it to it). */
export type OutputCap = (body: Record<string, unknown>, plan: PlanConfig | undefined) => void;

/** What an API's body asks an upstream to bill beyond tokens (formats/server-tools.ts), for the spend gate. */
export type ServerToolsOf = (body: Record<string, unknown>) => ServerToolUse;

/**
 * Everything between admission and the upstream call. Each refusal here is the router's own, so the
 * pipeline refunds it; the spend reservation is recorded before the call so the ledger settles it.
 */
export async function prepareModelCall(
  event: H3Event,
  request: AdmittedRequest,
  serving: ServingRecord,
  deps: RouterDeps,
  api: { capOutput: OutputCap; serverTools: ServerToolsOf; kind?: ModelKind },
): Promise<ModelCall> {
  const presets = request.route ? [] : await presetIdsForSuggestions(deps.store, request.caller.accountId, { routes: deps.routes, plan: request.plan });
  const route = authorizeRoute(request, deps.plans, deps.config.catalog.concreteModels, presets);
  requireKind(route, api.kind ?? 'chat');
  const { body, plan, caller } = request;
  api.capOutput(body, plan);
  const fusion = fusionPlanOf(route, body, deps.routes);
  if (fusion?.kind === 'profile') await requireFusionAccess(deps, caller.accountId, fusion.route);
  serving.spendReservation = await reserveSpend(request, deps.spend, { accountId: caller.accountId, plan, route, body, toolFusion: toolFusionOf(fusion), serverTools: api.serverTools(body), budgets: request.controls.budgets });
  const call = { route, accountId: caller.accountId, signal: abortOnDisconnect(event, deps.drain.deadline), trace: attemptsParent(request) };
  return { route, fusion, call };
}

/** Where each kind of model is served, for the refusal that points there. */
const ENDPOINT_OF: Readonly<Record<ModelKind, string>> = { chat: '/v1/chat/completions, /v1/responses or /v1/messages', embedding: '/v1/embeddings', rerank: '/v1/rerank' };

/** A model is served on its own kind's endpoint only: an embedding model never answers a chat, nor a chat model embeddings. */
function requireKind(route: RouteProfileConfig, kind: ModelKind): void {
  const own = route.kind ?? 'chat';
  if (own === kind) return;
  throw new RouterError('invalid_request', `The model '${route.id}' is a${own === 'embedding' ? 'n' : ''} ${own} model: send it to ${ENDPOINT_OF[own]}.`, { param: 'model' });
}

/**
 * A whole answer as served: who served it, its tokens and end on the record, the cost the ledger will
 * record added to the usage object the client is shown (unless the operator turned costs off; 0 when
 * insured), the
 * routing headers; the first byte is the body about to be sent.
 */
export function recordAnswer(
  event: H3Event,
  serving: ServingRecord,
  deps: RouterDeps,
  meta: RoutedMeta,
  answer: { tokens: TokenUsage | null; finishReason: string | undefined; shownUsage: unknown; /** false: embeddings and rerank, which complete nothing (never insured). */ generates?: boolean },
): void {
  serving.served = meta;
  serving.usage = answer.tokens;
  serving.finishReason = answer.finishReason;
  const shown = answer.shownUsage;
  if (shown !== null && typeof shown === 'object' && deps.config.server.ledger.costInResponses) {
    const ending = { served: true, generates: answer.generates ?? true, completionTokens: answer.tokens?.completion, finishReason: answer.finishReason, errorCode: undefined };
    Object.assign(shown, shownCost(responseCost(deps.usage.prices, meta, answer.tokens), ending));
  }
  serving.firstByteAt = deps.clock.now();
  setRoutingHeaders(event.node.res, meta);
}
