/** POST /v1/responses: the Responses API over any upstream, as JSON or as a typed event stream. */
import type { H3Event } from 'h3';
import type { ResponsesRequest } from '../../formats/openai-responses.js';
import { tokenUsageFromResponses } from '../../translators/responses/responses-token-usage.js';
import type { ResponseUsage } from '../../formats/openai-responses.js';
import type { ResponsesOutEvent, ResponsesStreamOutcome } from '../../routing/responses-attempts.js';
import { abortOnDisconnect } from '../abort-on-disconnect.js';
import { authorizeRoute } from '../authorize-route.js';
import { applyOutputTokenCap } from '../output-token-cap.js';
import type { RouterDeps } from '../router-deps.js';
import type { RouterRequestContext } from '../request-context.js';
import { INTERRUPTED_CODE, relayCommittedStream, responsesFailureCode } from '../relay-committed-stream.js';
import { SseWriter } from '../sse-writer.js';
import { fusionPlanOf, requireFusionAccess, toolFusionOf } from '../fusion/fusion-plan.js';
import { serveFusionResponses } from '../fusion/serve-fusion-responses.js';
import { routingHeaders, setRoutingHeaders } from './routing-headers.js';
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
      const { value, meta } = await deps.engine.streamResponses(call, request);
      ctx.served = meta;
      await writeResponsesStream(event, ctx, deps, value);
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

async function writeResponsesStream(event: H3Event, ctx: RouterRequestContext, deps: RouterDeps, stream: ResponsesStreamOutcome): Promise<void> {
  const writer = new SseWriter(event.node.res);
  writer.open(routingHeaders(ctx.served!));
  ctx.firstByteAt = deps.clock.now();
  const send = (item: ResponsesOutEvent) => {
    if (item.type === 'response.completed' || item.type === 'response.incomplete') {
      const usage = (item.response as { usage?: ResponseUsage } | undefined)?.usage;
      ctx.usage = tokenUsageFromResponses(usage);
      ctx.finishReason = responseFinish(item.response);
      withCost(deps, ctx, usage);
    }
    return writer.send(item, item.type);
  };
  const failure = await relayCommittedStream(writer, stream, send, deps.drain.deadline);
  if (failure) {
    ctx.errorCode = failure.code ?? INTERRUPTED_CODE;
    // End with response.failed, never a silent close (Codex retries a silent close).
    const events = stream.fail({
      code: responsesFailureCode(failure),
      message: failure.message,
      ...(failure.retryAfterSeconds !== undefined ? { retryAfterSeconds: failure.retryAfterSeconds } : {}),
    });
    for (const item of events) await send(item);
  }
  writer.end();
}

/** The answer's cost beside its tokens (the ledger's figure), unless the operator turned it off. */
function withCost(deps: RouterDeps, ctx: RouterRequestContext, usage: unknown): void {
  if (usage === null || typeof usage !== 'object' || !deps.config.server.ledger.costInResponses) return;
  Object.assign(usage, responseCost(deps.usage.prices, ctx.served, ctx.usage ?? null));
}

/** A Response's end for its receipt: its status, with the reason when incomplete (`incomplete:max_output_tokens`). */
function responseFinish(response: unknown): string | undefined {
  const { status, incomplete_details: details } = (response ?? {}) as { status?: string; incomplete_details?: { reason?: string } | null };
  if (!status) return undefined;
  return status === 'incomplete' && details?.reason ? `incomplete:${details.reason}` : status;
}
