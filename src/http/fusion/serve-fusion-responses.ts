/**
 * /v1/responses for a fusion plan, served through chat (the pipeline's shape) and translated back: one
 * Response object, or the synthesized event stream through response.completed, whose response carries
 * the summed usage and the `router` object. Keep-alives and failures as for chat.
 */
import type { H3Event } from 'h3';
import { tokenUsageFromResponses } from '../../translators/responses/responses-token-usage.js';
import type { ResponsesRequest, ResponseUsage } from '../../formats/openai-responses.js';
import { responseContext, synthesizeResponsesStream, type ResponsesOutEvent } from '../../routing/responses-attempts.js';
import { chatCompletionToResponse } from '../../translators/responses/chat-to-responses.js';
import { responsesRequestToChat } from '../../translators/responses/responses-request-to-chat.js';
import { INTERRUPTED_CODE, relayCommittedStream, responsesFailureCode } from '../relay-committed-stream.js';
import type { RouterDeps } from '../router-deps.js';
import type { RouterRequestContext } from '../request-context.js';
import { routingHeaders, setRoutingHeaders } from '../routes/routing-headers.js';
import { errorBody } from '../send-error.js';
import { SseWriter } from '../sse-writer.js';
import { responsesUsage, routerExtension, totalUsage, withFusionCost } from './fusion-report.js';
import { keepAliveMsOf, type FusionPlan } from './fusion-plan.js';
import { behindKeepAlive } from './keep-alive.js';
import { completePlan, streamPlan, type FusionCallContext } from './run-fusion-plan.js';

const FINAL = new Set(['response.completed', 'response.incomplete']);

export async function serveFusionResponses(
  event: H3Event,
  ctx: RouterRequestContext,
  deps: RouterDeps,
  plan: FusionPlan,
  call: FusionCallContext,
  request: ResponsesRequest,
): Promise<unknown> {
  const responsesCall = { request, model: plan.route.id, signal: call.signal };
  const chat = responsesRequestToChat({ ...request, stream: request.stream === true });
  if (!request.stream) {
    const { value, meta } = await completePlan(deps, plan, call, chat, ctx);
    ctx.firstByteAt = deps.clock.now();
    setRoutingHeaders(event.node.res, meta);
    const trace = ctx.fusion!.trace;
    const response = chatCompletionToResponse(value, responseContext(deps, responsesCall)) as unknown as Record<string, unknown>;
    return { ...response, usage: withFusionCost(responsesUsage(totalUsage(trace)), trace, deps.usage.prices, deps.config.server.ledger.costInResponses), router: routerExtension(trace, deps.usage.prices) };
  }
  const writer = new SseWriter(event.node.res);
  const { value: result, opened } = await behindKeepAlive(writer, keepAliveMsOf(plan), ctx, () => streamPlan(deps, plan, call, chat, ctx), async (error) => {
    const { error: info } = errorBody(error, deps.config.server);
    await writer.send({ type: 'error', sequence_number: 0, code: info.code, message: info.message, param: info.param }, 'error');
  });
  if (!opened) writer.open(routingHeaders(result.meta));
  ctx.firstByteAt = deps.clock.now();
  const stream = synthesizeResponsesStream(deps, responsesCall, result.value);
  const main = result.main;
  const send = (item: ResponsesOutEvent) => {
    if (FINAL.has(item.type) && item.response && typeof item.response === 'object') {
      const response = item.response as { usage?: ResponseUsage | null; router?: unknown };
      ctx.usage = main.usage = tokenUsageFromResponses(response.usage ?? undefined);
      const trace = ctx.fusion!.trace;
      response.usage = withFusionCost(responsesUsage(totalUsage(trace)), trace, deps.usage.prices, deps.config.server.ledger.costInResponses);
      response.router = routerExtension(trace, deps.usage.prices);
    }
    return writer.send(item, item.type);
  };
  const failure = await relayCommittedStream(writer, stream, send, deps.drain.deadline);
  if (failure) {
    ctx.errorCode = failure.code ?? INTERRUPTED_CODE;
    for (const item of stream.fail({ code: responsesFailureCode(failure), message: failure.message })) await send(item);
  }
  writer.end();
  return undefined;
}
