/** POST /v1/responses: the Responses API over any upstream, as JSON or as a typed event stream. */
import type { H3Event } from 'h3';
import type { ResponsesRequest } from '../../formats/openai-responses.js';
import { tokenUsageFromResponses } from '../../translators/responses/responses-token-usage.js';
import type { ResponseUsage } from '../../formats/openai-responses.js';
import { abortOnDisconnect } from '../abort-on-disconnect.js';
import { authorizeRoute } from '../authorize-route.js';
import { applyOutputTokenCap } from '../output-token-cap.js';
import type { RouterDeps } from '../router-deps.js';
import type { RouterRequestContext } from '../request-context.js';
import { streamTarget } from '../encoders/client-stream-encoder.js';
import { ResponsesStreamEncoder, responseFinish } from '../encoders/responses-stream-encoder.js';
import { serveClientStream } from '../encoders/serve-client-stream.js';
import { servedUsage } from '../encoders/served-usage.js';
import { fusionPlanOf, requireFusionAccess, toolFusionOf } from '../fusion/fusion-plan.js';
import { serveFusionResponses } from '../fusion/serve-fusion-responses.js';
import { setRoutingHeaders } from './routing-headers.js';
import { responseCost } from '../../usage/response-cost.js';
import { attemptsTraced, inSpendGateSpan } from '../request-spans.js';

export function createResponsesRoute(deps: RouterDeps) {
  return async (event: H3Event, ctx: RouterRequestContext): Promise<unknown> => {
    const route = authorizeRoute(ctx, deps.plans);
    applyOutputTokenCap(ctx.body!, ctx.plan, 'responses');
    const fusion = fusionPlanOf(route, ctx.body!, deps.routes);
    if (fusion?.kind === 'profile') await requireFusionAccess(deps, ctx.caller!.accountId, fusion.route);
    ctx.spendReservation = await inSpendGateSpan(ctx, () => deps.spend.reserve({ accountId: ctx.caller!.accountId, plan: ctx.plan, route, body: ctx.body!, ...toolFusionOf(fusion) }));
    const request = ctx.body as unknown as ResponsesRequest;
    const call = { route, accountId: ctx.caller!.accountId, signal: abortOnDisconnect(event, deps.drain.deadline), ...attemptsTraced(ctx) };
    if (fusion) return serveFusionResponses(event, ctx, deps, fusion, call, request);
    if (request.stream) {
      const encoder = new ResponsesStreamEncoder(streamTarget(event.node.res, ctx, servedUsage(ctx, deps), deps));
      await serveClientStream(encoder, () => deps.engine.streamResponses(call, request), { stopped: deps.drain.deadline });
      return undefined;
    }
    const { value, meta } = await deps.engine.completeResponses(call, request);
    ctx.served = meta;
    ctx.usage = tokenUsageFromResponses(value.usage as ResponseUsage | undefined);
    ctx.finishReason = responseFinish(value);
    withCost(deps, ctx, value.usage);
    ctx.firstByteAt = deps.clock.now();
    setRoutingHeaders(event.node.res, meta);
    return value;
  };
}

/** The answer's cost beside its tokens (the ledger's figure), unless the operator turned it off. */
function withCost(deps: RouterDeps, ctx: RouterRequestContext, usage: unknown): void {
  if (usage === null || typeof usage !== 'object' || !deps.config.server.ledger.costInResponses) return;
  Object.assign(usage, responseCost(deps.usage.prices, ctx.served, ctx.usage ?? null));
}
